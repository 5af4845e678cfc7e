"""Columns a question asks for alone, and catalogs named in other words: "quali emozioni esprimono i verbi" shows
the emotions (each once), not the words; "quali parti del discorso usa il lemmario" the parts of speech; "le
etichette delle emozioni" is ELITA's catalog; "i tipi di risorse del lemmario" its types; "quali parole hanno un
contrario" the words that have one; "sia un'emozione sia una definizione" asks for defined senses."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Join, Plan, Words
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def test_the_column_asked_for_is_read(lexicons):
    assert read_signals("Quali emozioni sono associate ai verbi?", *lexicons).asks == ("emotionLabel",)
    assert read_signals("Which parts of speech appear in the lemma bank?", *lexicons).asks == ("pos",)
    assert not read_signals("Quali verbi esprimono rabbia?", *lexicons).asks
    assert read_signals("Quali parole hanno sia un'emozione in ELITA sia una definizione in CompL-it?",
                        *lexicons).defined


def test_the_emotions_of_a_set_are_each_shown_once(endpoint):
    verbs = Plan(words=Words(pos=("verb",)), joins=(Join("elita"),))
    pairs = endpoint.execute(compile_plan(verbs.with_block(columns=("italianWord", "emotionLabel")))).rows
    labels = endpoint.execute(compile_plan(verbs.with_block(columns=("emotionLabel",)))).rows
    assert pairs and sorted(row[0].value for row in labels) == sorted({row[1].value for row in pairs})


@pytest.mark.parametrize("question, plan_text", [
    ("Quali emozioni sono associate ai verbi?", "verb words | with elita | list emotionLabel"),
    ("Quali parti del discorso sono usate nel lemma bank?", "lemmas | list pos"),
    ("Quali sono le etichette delle emozioni?", "catalog emotions | list emotionLabel"),
    ("Quali tipi di risorse ci sono nel grafo del lemma bank?", "catalog lemma_bank_types | list type"),
])
def test_the_enumerator_offers_the_column_asked_for(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_a_relation_or_a_definition_asked_of_any_word_shows_the_words(lexicons):
    from nl2sparql.data.plans.model import Senses
    from nl2sparql.retrieval.column_blocks import columns

    related = Plan(words=Words(), senses=Senses(relation="antonym"))
    options = columns(related, read_signals("Quali parole hanno un contrario in CompL-it?", *lexicons))
    assert ("italianWord",) in options and ("italianWord", "antonymWord") in options
    named = Plan(words=Words(forms=("bello",)), senses=Senses(relation="antonym"))
    assert ("italianWord",) not in columns(named, read_signals("Qual è il contrario di «bello»?", *lexicons))
    defined = Plan(words=Words(), senses=Senses(requires=("definition",)))
    s = read_signals("Quali parole hanno una definizione in CompL-it?", *lexicons)
    assert columns(defined, s)[:2] == [("italianWord", "definition"), ("italianWord",)]


def test_different_parts_of_speech_are_more_than_one(lexicons):
    s = read_signals("Quali lemmi hanno lo stesso scritto ma parti del discorso diverse?", *lexicons)
    assert 1.0 in s.numbers and s.comparison == ">=" and "pos" in s.keys
    assert read_signals("Which written forms have different parts of speech?", *lexicons).comparison == ">="
    assert read_signals("Di cosa è parte «ramo»?", *lexicons).relations[:1] == ("holonym",)


def test_a_word_called_a_dialect_word_is_one_where_italian_writes_it_too(lexicons):
    marked = read_signals("A quale parola italiana corrisponde il siciliano «casa»?", *lexicons)
    assert marked.dialect_forms == (("sicilian", "casa"),) and not marked.forms
    italian = read_signals("Qual è la traduzione siciliana di «casa»?", *lexicons)
    assert italian.forms == ("casa",) and not italian.dialect_forms


def test_nothing_found_in_the_budget_asks_the_sets_again_one_at_a_time(kb_store, lexicons):
    from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans, enumeration_endpoint

    s = read_signals("Quali verbi esprimono rabbia?", *lexicons)
    with enumeration_endpoint(kb_store, timeout_s=10) as pool:
        none = enumerate_plans(s, pool, EnumerationConfig(budget_s=0.0, empty_budget_s=0.0))
        again = enumerate_plans(s, pool, EnumerationConfig(budget_s=0.0, empty_budget_s=20))
    assert none.candidates == [] and none.stopped_early
    assert "verb words | with elita (Rabbia) | list italianWord" in [c.plan.text() for c in again.candidates]


def test_letters_quoted_after_an_affix_are_either_or_excluded(lexicons):
    either = read_signals("Quali nomi finiscono in «a», in «o» oppure in «e»?", *lexicons)
    assert either.affixes == (("suffix", "a"), ("suffix", "o"), ("suffix", "e")) and not either.forms
    excluded = read_signals("Quali verbi iniziano con «ri» ma non con «rin»?", *lexicons)
    assert excluded.affixes == (("prefix", "ri"), ("not_prefix", "rin"))
    from nl2sparql.retrieval.filter_blocks import filter_sets

    first = filter_sets(excluded, "italianWord", None)[0]
    assert [(f.kind, f.value, f.negated) for f in first] == [("prefix", "ri", False), ("prefix", "rin", True)]
    both = read_signals("Quali nomi contengono «cc» e finiscono in «io»?", *lexicons)
    assert set(both.affixes) == {("suffix", "io"), ("contains", "cc")}


def test_a_whole_a_kind_and_a_subject_before_the_verb(lexicons):
    whole = read_signals("A quale intero appartiene «convento» in CompL-it?", *lexicons)
    assert whole.relations[:1] == ("holonym",)
    kind = read_signals("Costume è un tipo di sembianza secondo CompL-it?", *lexicons)
    assert kind.relations[:1] == ("hyponym",) and "ask" in kind.operators
    assert "secondo" not in kind.forms and "tipo" not in kind.forms
    optional = read_signals("Elenca i verbi con la traduzione parmigiana, dove esiste", *lexicons)
    assert optional.optional


def test_the_endings_of_defined_words_are_a_key(lexicons):
    from nl2sparql.data.plans.model import Senses
    from nl2sparql.retrieval.computed_blocks import computed

    s = read_signals("Con quali 3 lettere finiscono più spesso le parole che hanno una definizione in CompL-it?",
                     *lexicons)
    defined = Plan(words=Words(), senses=Senses(requires=("definition",)))
    texts = [p.text() for p in computed(defined, s, "sense")]
    assert any("group by ending3 count distinct(word)" in t for t in texts), texts
    linked = Plan(words=Words(), senses=Senses(requires=("definition",), linked=True))
    assert any("count distinct(lemma)" in p.text() for p in computed(linked, s, "sense"))


def test_the_number_of_letters_is_the_length_and_the_other_the_k(lexicons):
    from nl2sparql.retrieval.filter_blocks import filter_sets, whole_number

    s = read_signals("Dammi 3 nomi che hanno esattamente 11 caratteri, in ordine alfabetico.", *lexicons)
    assert s.letters == 11 and whole_number(s) == 3
    assert [(f.kind, f.value, f.op) for f in filter_sets(s, "italianWord", None)[0]] == [("length", 11, "=")]
    alone = read_signals("Quanti nomi hanno più di 12 lettere?", *lexicons)
    assert whole_number(alone) == 12


def test_a_share_is_the_percentage_of_the_set_that_has_the_resource(endpoint, lexicons):
    from decimal import Decimal

    from nl2sparql.data.plans.verbalize import verbalize

    verbs = Plan(words=Words(pos=("verb",)), joins=(Join("elita"),))
    share = verbs.with_block(joins=(Join("elita"), Join("sicilian", mode="covered")), operator="share", columns=())
    (value,), = [tuple(t.value for t in row) for row in endpoint.execute(compile_plan(share)).rows]
    every = {r[0].value for r in endpoint.execute(compile_plan(verbs.with_block(columns=("lemma",)))).rows}
    translated = verbs.with_block(joins=(Join("elita"), Join("sicilian")), columns=("lemma",))
    having = {r[0].value for r in endpoint.execute(compile_plan(translated)).rows}
    assert every and abs(Decimal(value) - Decimal(100 * len(having)) / len(every)) < Decimal("1e-9")
    assert share.text() == "verb words | with elita | share with sicilian | share in percent"
    assert "in percentuale" in verbalize(share, "it") and "in percent" in verbalize(share, "en")
    s = read_signals("Che percentuale dei verbi associati alla rabbia ha una traduzione siciliana?", *lexicons)
    assert "share" in s.operators
    assert read_signals("Quali verbi della prima coniugazione esprimono gioia?", *lexicons).affixes == (
        ("suffix", "are"),)


@pytest.mark.parametrize("question, check", [
    ("Which Sicilian words contain the cluster 'ggh'?", lambda s: s.affixes == (("contains", "ggh"),)),
    ("Which parts of speech have fewer than 20 lemmas?", lambda s: s.comparison == "<="),
    ("How many nouns have ten or more senses?", lambda s: s.comparison == ">=" and s.inclusive),
    ("Which words mean the same as the verb aiutare?", lambda s: "average" not in s.operators
     and s.relations[:1] == ("synonym",)),
    ("How is 'pizza' defined?", lambda s: "complit" in s.resources and s.forms == ("pizza",)),
    ("Which objects have a 'tastiera' (keyboard) among their parts?", lambda s: s.relations[:1] == ("meronym",)),
    ("Count the Parmigiano-translatable Italian words by Sentix polarity class.", lambda s: "group" in s.operators),
    ("Give the definitions of the noun porta, checking that the LiITA lemma bank lists its lemma as a noun.",
     lambda s: not s.dialect_forms),
    ("Look for hyponyms of 'animale' whose definition says 'domestico'.",
     lambda s: ("contains", "domestico") in s.definition),
])
def test_english_wordings_read_like_the_italian_ones(question, check, lexicons):
    s = read_signals(question, *lexicons)
    assert check(s), s
