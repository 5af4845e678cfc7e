"""Readings from the design half of `bench/outside` (third round): CompL-it joined to the lemma bank on the written
form, the join the schema advises where a CompL-it word's IRI is not the lemma's; an example in brackets ("(like
'noioso')") names no word; an emotion word asked whether it has another emotion is a word."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Join, Plan, Senses, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def _joy_definitions(linked: str) -> Plan:
    return Plan(words=Words(), joins=(Join("elita", emotions=("Gioia",)),), senses=Senses(linked=linked),
                columns=("italianWord", "definition"))


def test_a_form_link_joins_on_the_written_form_and_finds_the_words_an_iri_link_misses(endpoint):
    by_form, by_iri = compile_plan(_joy_definitions("form")), compile_plan(_joy_definitions("word"))
    assert "?word ontolex:canonicalForm ?lemma" in by_iri and "?word ontolex:canonicalForm ?lemma" not in by_form
    assert "?lemma ontolex:writtenRep ?italianWord" in by_form
    form_rows = {tuple(t.value for t in row) for row in endpoint.execute(by_form).rows}
    iri_rows = {tuple(t.value for t in row) for row in endpoint.execute(by_iri).rows}
    assert iri_rows and iri_rows < form_rows  # the store's lemmas spelled alike: the IRI link reaches only one
    assert "through the form" in _joy_definitions("form").text()
    assert verbalize(_joy_definitions("form"), "it") and verbalize(_joy_definitions("form"), "en")


def test_the_enumerator_offers_the_form_link_after_the_iri_link(enumerated):
    texts = [c.plan.text() for c in enumerated("For the joy words in ELITA, which ones have a dictionary definition "
                                               "in CompL-it, and what does it say?")]
    form = [i for i, t in enumerate(texts) if "through the form" in t]
    word = [i for i, t in enumerate(texts) if "through the word" in t]
    assert form and word and min(word) < min(form)


@pytest.mark.parametrize("question", ["Which adjectives ending in -oso are between 6 and 8 letters long (like 'noioso')?",
                                      "aggettivi in -oso lunghi tra 6 e 8 lettere (come «noioso»)"])
def test_an_example_in_brackets_names_no_word(lexicons, question):
    s = read_signals(question, *lexicons)
    assert s.forms == () and s.pos == ("adjective",) and ("suffix", "oso") in s.affixes


def test_an_emotion_word_asked_whether_it_has_another_emotion_is_a_word(lexicons):
    s = read_signals("amore in ELITA è associato alla tristezza? sì o no", *lexicons)
    assert s.forms == ("amore",) and s.emotions == ("Tristezza",) and "ask" in s.operators
    both = read_signals("quali parole esprimono sia rabbia sia paura?", *lexicons)
    assert both.forms == () and set(both.emotions) == {"Rabbia", "Paura"}
