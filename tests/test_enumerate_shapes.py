"""Shapes the enumerator reads from a question's words beyond a word set and its filters: an unquoted multiword
expression ("l'espressione polirematica fico d'India"), a kind of letter at a word's edge ("iniziano con una
vocale"), "esattamente un senso", a lemma named by its IRI, a written form with a lemma of each of two parts of
speech ("sia nomi che verbi"), a language tag column, the lemma bank linked beside CompL-it, and a count per word
averaged ("quanti sensi ha in media un verbo"). Each is checked as a signal and, on the embedded KB, as a plan that
compiles, runs and verbalizes, or as a candidate the enumerator finds."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Plan, Senses, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals

LEMMA = "http://liita.it/data/id/lemma/1054825"


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def test_an_unquoted_multiword_expression_is_one_word_and_a_common_phrase_is_none(lexicons):
    s = read_signals("L'espressione polirematica fico d'India è registrata come lemma?", *lexicons)
    assert s.forms[0] == "fico d'India"
    assert "ordine alfabetico" not in read_signals("Quali verbi in -rsi ci sono, in ordine alfabetico?",
                                                   *lexicons).forms
    assert read_signals("Quali parole si scrivono allo stesso modo in siciliano?", *lexicons).forms == ()


def test_letter_classes_exactly_one_iris_both_parts_of_speech_tags_and_the_bank_link_are_read(lexicons):
    s = read_signals("Quali lemmi iniziano con una vocale e finiscono con una consonante?", *lexicons)
    assert ("regex", "^[aeiouàèéìíòóùAEIOU]") in s.affixes
    assert any(kind == "regex" and value.endswith("]$") for kind, value in s.affixes)
    assert not any(value in ("vocale", "consonante") for _, value in s.affixes)
    one = read_signals("Quali nomi hanno esattamente un senso in CompL-it?", *lexicons)
    assert one.numbers == (1.0,) and one.exactly
    named = read_signals(f"Qual è la forma scritta del lemma {LEMMA}, e che categoria ha?", *lexicons)
    assert named.iris == (LEMMA,) and not named.authentic and named.forms == ()  # the IRI's path is no word
    assert read_signals("Quali parole sono sia nomi che verbi?", *lexicons).every_pos
    assert not read_signals("Quali parole sono nomi o verbi?", *lexicons).every_pos
    assert "languageTag" in read_signals("Che tag di lingua hanno le forme siciliane?", *lexicons).computed
    assert read_signals("A quale lemma di LiITA è collegata la parola macchina di CompL-it?", *lexicons).bank_link


def test_each_new_block_compiles_runs_and_verbalizes(endpoint):
    both = Plan(words=Words(pos=("noun", "verb"), every_pos=True), columns=("italianWord",))
    found = sorted(r[0].value for r in endpoint.execute(compile_plan(both)).rows)
    assert found
    for word in found[:5]:  # each is written as a noun and as a verb
        for pos in ("noun", "verb"):
            ask = Plan(words=Words(forms=(word,), pos=(pos,)), operator="ask", columns=())
            assert endpoint.execute(compile_plan(ask)).boolean, (word, pos)
    one_pos = Plan(words=Words(pos=("noun",)), columns=("italianWord",), operator="count",
                   aggregates=(Aggregate("count", "italianWord", "count", distinct=True),))
    assert len(found) < int(endpoint.execute(compile_plan(one_pos)).rows[0][0].value)
    assert "sia nomi che verbi" in verbalize(both, "it") and "both nouns and verbs" in verbalize(both, "en")

    named = Plan(words=Words(iri=LEMMA), columns=("italianWord", "pos"))
    rows = endpoint.execute(compile_plan(named)).rows
    assert len(rows) == 1 and LEMMA in verbalize(named, "en")

    tagged = Plan(words=Words(forms=("gatto",)), columns=("italianWord", "languageTag"))
    assert [(r[0].value, r[1].value) for r in endpoint.execute(compile_plan(tagged)).rows] == [("gatto", "it")]

    average = Plan(words=Words(), senses=Senses(pos="verb"), operator="average_groups", columns=("word",),
                   aggregates=(Aggregate("count", "sense", "count", distinct=True),))
    sparql = compile_plan(average)
    assert "AVG(?count)" in sparql and "GROUP BY ?word" in sparql
    value = float(endpoint.execute(sparql).rows[0][0].value)
    assert value >= 1.0  # every CompL-it verb counted has a sense
    assert "average" in verbalize(average, "en") and "media" in verbalize(average, "it")


@pytest.mark.parametrize("question, plan_text", [
    ("L'espressione polirematica fico d'India è registrata come lemma? Con quale categoria?",
     "lemmas written 'fico d'India' | italianWord contains ' ' | list lemma, pos"),
    (f"Qual è la forma scritta del lemma {LEMMA}, e che categoria ha?", f"words <{LEMMA}> | list italianWord, pos"),
    ("Quali parole sono sia nomi che verbi nel lemmario?", "noun+verb lemmas | list italianWord"),
    ("Dammi la traduzione parmigiana di «gatto» con il suo tag di lingua.",
     "words written 'gatto' | with parmigiano | list parmigianoWord, parmigianoTag"),
    ("Quanti sensi ha in media un verbo in CompL-it?",
     "words | CompL-it senses (verb) | average over groups by word count distinct(sense) as count"),
])
def test_the_enumerator_finds_and_runs_each_shape(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_elided_articles_several_counts_any_case_and_type_are_read(lexicons):
    s = read_signals("Il ramo è registrato come parte dell'albero?", *lexicons)
    assert "albero" in s.forms and "ramo" in s.forms
    assert read_signals("Quanti lemmi e quante grafie distinte contiene il lemmario?", *lexicons).several_counts
    assert not read_signals("Quanti lemmi contiene il lemmario?", *lexicons).several_counts
    roma = read_signals("Come è scritto roma nel lemmario, con o senza maiuscola?", *lexicons)
    assert roma.any_case and roma.forms[:1] == ("roma",)
    assert read_signals("Quali risorse hanno la forma «letto», e di che tipo sono?", *lexicons).asks_type


@pytest.mark.parametrize("question, plan_text", [
    ("Quanti lemmi e quante grafie distinte contiene il lemmario?",
     "lemmas | count count distinct(lemma) as lemmaCount, count distinct(italianWord) as italianWordCount"),
    ("Come è scritto il lemma roma nel lemmario, con o senza maiuscola? Mostra tutte le varianti con la categoria.",
     "lemmas | italianWord is 'roma' (any case) | list italianWord, pos"),
    ("Che categoria grammaticale ha il lemma siciliano «cori»?", "sicilian words written 'cori' | list pos"),
    ("Quali risorse del lemmario hanno la forma «letto», e di che tipo sono?", "words written 'letto' | list lemma, "
                                                                               "type, pos"),
    ("Tra le parole di Tristezza, quali sono le cinque più negative in Sentix?",
     "words | with elita (Tristezza) | with sentix (negative) | list italianWord, emotionLabel, sentixValue | order "
     "sentixValue, italianWord | limit 5"),
])
def test_the_enumerator_finds_and_runs_each_reading(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_only_one_emotion_and_alternative_endings_compile_run_and_verbalize(endpoint):
    from nl2sparql.data.plans.model import Filter, Join

    only = Plan(joins=(Join("elita", emotions=("Gioia",), only=True),), columns=("italianWord",))
    some = Plan(joins=(Join("elita", emotions=("Gioia",)),), columns=("italianWord",))
    only_words = {r[0].value for r in endpoint.execute(compile_plan(only)).rows}
    some_words = {r[0].value for r in endpoint.execute(compile_plan(some)).rows}
    assert only_words and only_words < some_words  # fewer: those with another emotion too are left out
    assert "soltanto Gioia" in verbalize(only, "it") and "no other emotion" in only.text()

    endings = Plan(words=Words(pos=("verb",)), filters=(Filter("italianWord", "regex", "(are|ere|ire)$"),),
                   operator="group", columns=("ending3",), aggregates=(Aggregate("count", "lemma", "count",
                                                                                 distinct=True),))
    rows = {r[0].value: int(r[1].value) for r in endpoint.execute(compile_plan(endings)).rows}
    assert set(rows) == {"are", "ere", "ire"} and all(n > 0 for n in rows.values())
    assert "ultime 3 lettere" in verbalize(endings, "it")


def test_several_endings_are_one_alternative_and_a_per_letter_key_drops_the_prefix(lexicons):
    from nl2sparql.retrieval.filter_blocks import filter_sets

    s = read_signals("Quanti verbi finiscono in -are, quanti in -ere e quanti in -ire?", *lexicons)
    assert [f.value for f in filter_sets(s, "italianWord", None)[0]] == ["(are|ere|ire)$"]
    letters = read_signals("Quante parole iniziano con ogni lettera dell'alfabeto?", *lexicons)
    assert "initial" in letters.computed and not any(kind == "prefix" for kind, _ in letters.affixes)
    assert read_signals("Quali parole esprimono soltanto Gioia, senza altre emozioni?", *lexicons).only


def test_a_resources_properties_and_a_catalogs_items_are_counted(endpoint, lexicons):
    from nl2sparql.retrieval.catalog_blocks import catalog_plans

    plans = catalog_plans(read_signals("Quali proprietà usano le voci di ELITA?", *lexicons))
    listed = next(p for p in plans if p.meta == "elita_properties" and p.operator == "list")
    used = {r[0].value for r in endpoint.execute(compile_plan(listed)).rows}
    assert "http://www.w3.org/ns/lemon/ontolex#canonicalForm" in used
    assert "http://w3id.org/elita/HasEmotion" in used
    graphs = catalog_plans(read_signals("Quanti grafi ci sono nella base di conoscenza?", *lexicons))
    counted = next(p for p in graphs if p.meta == "graphs" and p.operator == "count")
    listed_graphs = next(p for p in graphs if p.meta == "graphs" and p.operator == "list")
    assert int(endpoint.execute(compile_plan(counted)).rows[0][0].value) == len(
        endpoint.execute(compile_plan(listed_graphs)).rows)
