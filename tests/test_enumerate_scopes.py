"""What a question negates, offers as alternatives or shows where present, read into plan blocks: negated emotions,
resources and parts of speech ("ma non Paura", "né siciliana né parmigiana", "né nomi né verbi"), "Gioia o Fiducia",
a resource shown where the word has it (OPTIONAL), values in one cell (GROUP_CONCAT), the length as a group key; and
each new block compiles, runs on the test knowledge base and answers what it says."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.retrieval.blocks import ABSENT, join_sets, word_sets
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def _answer(endpoint, plan: Plan) -> set:
    return {tuple(t.value if t is not None else None for t in row) for row in endpoint.execute(compile_plan(plan)).rows}


def test_negations_are_scoped_to_what_they_negate(lexicons):
    s = read_signals("Quali parole sono associate sia a Rabbia sia a Disgusto ma non a Paura?", *lexicons)
    assert s.emotions == ("Rabbia", "Disgusto", "Paura") and s.without == ("Paura",) and "absent" in s.operators
    assert (Join("elita", emotions=("Rabbia", "Disgusto"), without_emotions=("Paura",)),) == join_sets(s)[0]
    neither = read_signals("Quali parole di ELITA non esprimono né Gioia né Tristezza?", *lexicons)
    assert set(neither.without) == {"Gioia", "Tristezza"} and join_sets(neither)[0][0].emotions == ()
    dialects = read_signals("Quali nomi non hanno traduzione né siciliana né parmigiana?", *lexicons)
    assert set(dialects.lacking) == {"sicilian", "parmigiano"}
    assert {j.mode for j in join_sets(dialects)[0]} == {ABSENT}
    sentix = read_signals("Quali aggettivi hanno una polarità Sentix ma nessuna emozione in ELITA?", *lexicons)
    assert sentix.lacking == ("elita",)
    assert [(j.resource, j.mode) for j in join_sets(sentix)[0]] == [("sentix", "has"), ("elita", ABSENT)]
    # a conjunction ends the negation's scope; "senza altre emozioni" lacks other emotions, not ELITA
    assert not read_signals("Quali verbi non esprimono Gioia e hanno polarità Sentix?", *lexicons).lacking
    assert not read_signals("Quali parole esprimono soltanto Gioia, senza altre emozioni?", *lexicons).lacking


def test_alternatives_and_parts_of_speech_negated(lexicons):
    either = read_signals("Quante parole esprimono Gioia o Fiducia?", *lexicons)
    assert either.either and join_sets(either)[0][0].any_emotion
    assert not read_signals("Quali parole esprimono sia Paura sia Tristezza?", *lexicons).either
    neither = read_signals("Quanti lemmi non sono né nomi né verbi?", *lexicons)
    assert set(neither.without_pos) == {"noun", "verb"} and word_sets(neither)[0].pos == ()
    kept = read_signals("Quali parole sono nomi ma non verbi?", *lexicons)
    assert kept.without_pos == ("verb",) and word_sets(kept)[0] == Words(pos=("noun",), without_pos=("verb",))


def test_any_of_two_emotions_answers_their_union(endpoint):
    def words(join: Join) -> set:
        return _answer(endpoint, Plan(joins=(join,), columns=("italianWord",)))
    union = words(Join("elita", emotions=("Gioia", "Paura"), any_emotion=True))
    assert union and union == words(Join("elita", emotions=("Gioia",))) | words(Join("elita", emotions=("Paura",)))
    plan = Plan(joins=(Join("elita", emotions=("Gioia", "Paura"), any_emotion=True),), columns=("italianWord",))
    assert "VALUES ?emotion" in compile_plan(plan) and "Gioia o Paura" in verbalize(plan, "it")


def test_parts_of_speech_lacked_by_the_lemma_or_the_written_form(endpoint):
    mal = (Filter("italianWord", "prefix", "mal"),)  # a slice of the bank: answers stay under the row cap

    def lemmas(words: Words, role: str = "lemma") -> set:
        return _answer(endpoint, Plan(words=words, filters=mal, columns=(role,)))
    every, nouns = lemmas(Words(kind="Lemma")), lemmas(Words(kind="Lemma", pos=("noun",)))
    neither = Words(kind="Lemma", without_pos=("noun",))
    assert nouns and lemmas(neither) == every - nouns
    assert "che non sono nomi" in verbalize(Plan(words=neither), "it")
    forms = lemmas(Words(pos=("noun",), without_pos=("verb",)), "italianWord")
    noun_forms = lemmas(Words(pos=("noun",)), "italianWord")
    assert forms and forms == noun_forms - lemmas(Words(pos=("verb",)), "italianWord")


def test_an_optional_resource_keeps_the_words_without_it(endpoint):
    mal = (Filter("italianWord", "prefix", "mal"),)
    kept = Plan(words=Words(pos=("noun",)), joins=(Join("sentix", "optional"),), filters=mal, columns=("italianWord",))
    joined = kept.with_block(joins=(Join("sentix"),))
    nouns = kept.with_block(joins=())
    assert _answer(endpoint, kept) == _answer(endpoint, nouns) > _answer(endpoint, joined)
    shown = kept.with_block(columns=("italianWord", "polarityValue"))
    assert "OPTIONAL" in compile_plan(shown) and any(row[1] is None for row in _answer(endpoint, shown))


def test_values_in_one_cell_and_the_length_as_a_key(endpoint, lexicons):
    listed = Plan(joins=(Join("elita"),), operator="group", columns=("italianWord",),
                  aggregates=(Aggregate("group_concat", "emotionLabel", "emotionLabelList", distinct=True),))
    assert "GROUP_CONCAT" in compile_plan(listed) and _answer(endpoint, listed)
    assert "in una cella" in verbalize(listed, "it")
    s = read_signals("Per ogni parola di Paura, elenca le sue emozioni separate da virgola.", *lexicons)
    assert s.concat and "cella" not in s.forms
    per_length = Plan(words=Words(pos=("verb",)), operator="group", columns=("length",),
                      aggregates=(Aggregate("count", "lemma", "count", distinct=True),))
    rows = _answer(endpoint, per_length)
    assert rows and all(int(length) > 0 for length, _ in rows)
    assert "length" in read_signals("Quante parole ci sono per ogni lunghezza?", *lexicons).keys


@pytest.mark.parametrize("question, plan_text", [
    ("Quali verbi non esprimono Paura?", "verb words | with elita (not Paura) | list italianWord"),
    ("Quante parole esprimono Gioia o Paura?",
     "words | with elita (Gioia or Paura) | count count distinct(lemma) as count"),
    ("Quante parole ci sono per ogni lunghezza?",
     "words | group by length count distinct(lemma) as count | order length"),
    ("Quali sono i primi 5 verbi in ordine alfabetico?",
     "verb words | list italianWord | order italianWord | limit 5"),
])
def test_the_enumerator_finds_each_scoped_reading(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_a_word_asked_of_a_bank_is_no_affix(lexicons):
    asked = read_signals("Il lemmario contiene la parola «zzyzxq»?", *lexicons)
    assert asked.forms == ("zzyzxq",) and not asked.affixes  # a word the bank lacks is still what is asked about
    listed = read_signals("Quali lemmi contengono la parola «casa»?", *lexicons)
    assert listed.affixes == (("contains", "casa"),) and not listed.forms
    graph = read_signals("In quale grafo nominato si trova il lemma «correre»?", *lexicons)
    assert graph.pos == () and "graphs" in graph.catalogs
