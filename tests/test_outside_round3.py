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


def _bounds(s) -> list[tuple[str, str, float]]:
    from nl2sparql.retrieval.filter_blocks import filter_sets

    return [(f.kind, f.op, f.value) for f in filter_sets(s, "italianWord", "polarityValue")[0]]


@pytest.mark.parametrize("question", ["aggettivi brevi (fino a 6 lettere) e decisamente positivi, polarità da 0,6 in su",
                                      "Short, clearly positive adjectives: six letters or fewer and a polarity of at "
                                      "least 0.6"])
def test_each_number_takes_the_bound_of_its_own_clause(lexicons, question):
    s = read_signals(question, *lexicons)
    assert ("length", "<=", 6.0) in _bounds(s) and ("value", ">=", 0.6) in _bounds(s)


def test_not_exceeding_is_a_bound_and_no_negation(lexicons):
    s = read_signals("Verbi che cominciano con ri- e non superano le 7 lettere", *lexicons)
    assert "absent" not in s.operators and ("length", "<=", 7.0) in _bounds(s)


def test_a_number_before_letter_with_a_hyphen_is_a_length(lexicons):
    s = read_signals("Four-letter words Sentix classes as neutral?", *lexicons)
    assert ("length", "=", 4.0) in _bounds(s)


def test_nothing_in_a_resource_lacks_it(lexicons):
    s = read_signals("Which words have a Sicilian translation but nothing in Parmigiano?", *lexicons)
    assert s.lacking == ("parmigiano",) and "sicilian" in s.resources


def test_a_filter_on_a_named_words_relation_reads_the_related_words(endpoint, enumerated):
    found = [c for c in enumerated("Parte dell'automobile, 6 lettere: quali parti di 'automobile' hanno 6 lettere?")
             if "partWord length = 6" in c.plan.text()]
    assert found
    rows = endpoint.execute(compile_plan(found[0].plan)).rows
    assert rows and all(len(row[0].value) == 6 for row in rows)


def test_a_closing_purpose_sentence_names_no_word(lexicons):
    s = read_signals("Quali sono le parti dell'occhio? Le uso per un esercizio di denominazione.", *lexicons)
    assert s.forms == ("occhio",)


def test_the_polarity_of_an_emotions_words_is_elitas_unless_sentix_is_named(lexicons):
    s = read_signals("Parole di gioia con polarità di almeno 0.85, dalla più positiva, con il valore", *lexicons)
    assert "sentix" not in s.resources and s.emotions == ("Gioia",) and "top" not in s.operators
    named = read_signals("Parole di gioia con polarità Sentix di almeno 0.5", *lexicons)
    assert "sentix" in named.resources


def test_initial_letters_are_a_key_not_a_prefix_or_a_length(lexicons):
    for question in ("Quali sono le 5 lettere iniziali più frequenti tra le parole del lemma bank?",
                     "Which five initial letters start the most words in the lemma bank, and how many words each?"):
        s = read_signals(question, *lexicons)
        assert "initial" in s.computed and not s.affixes and not s.length


def test_the_triples_of_a_named_graph(lexicons):
    from nl2sparql.retrieval.catalog_blocks import catalog_plans

    first = catalog_plans(read_signals("How many triples are in the ELITA graph?", *lexicons))[0]
    assert first.meta == "graphs" and first.operator == "count" and first.filters


@pytest.mark.parametrize("text, bounds", [
    ("polarità sentix non superiore a -0,8", ((-0.8, "<="),)),
    ("polarità pari o superiore a 0.8", ((0.8, ">="),)),
    ("polarità non inferiore a 0.3", ((0.3, ">="),)),
    ("più di 10 lettere e almeno 3 sensi", ((10.0, ">"), (3.0, ">="))),
    ("parole di 5 lettere", ()),
])
def test_a_numbers_own_bound_is_the_nearest_longest_comparison_before_it(text, bounds):
    from nl2sparql.retrieval.question_words import number_bounds

    assert number_bounds(text) == bounds


def test_dont_negates_and_an_opener_names_no_word(lexicons):
    s = read_signals("Single-word adverbs in the lemma bank that don't end in -mente: which ones?", *lexicons)
    assert "absent" in s.operators and ("suffix", "mente") in s.affixes
    opened = read_signals("Curioso: ci sono parole che ELITA mette sotto la gioia ma che per Sentix hanno polarità "
                          "negativa?", *lexicons)
    assert opened.forms == () and opened.emotions == ("Gioia",) and "sentix" in opened.resources


def test_the_lemma_banks_graph_and_lime_lexicons_are_catalogs(lexicons):
    from nl2sparql.retrieval.catalog_blocks import catalog_plans

    graph = catalog_plans(read_signals("Quante triple contiene il grafo del lemma bank?", *lexicons))[0]
    assert graph.meta == "graphs" and graph.filters[0].value == "http://liita.it/data"
    lexicons_asked = catalog_plans(read_signals("List the lime:Lexicon resources with their lime:language and how many "
                                                "lime:entry each has", *lexicons))
    assert any(p.meta == "lexicons" and p.columns == ("lexicon", "language") and p.aggregates for p in lexicons_asked)


def test_a_count_per_haspos_value_groups_by_part_of_speech(enumerated):
    texts = [c.plan.text() for c in enumerated("Count the lemmas per lila:hasPOS value in the lemma bank named graph")]
    assert any("group by pos count distinct(lemma)" in t for t in texts)


def test_its_definition_with_a_relation_shows_the_definitions(enumerated):
    texts = [c.plan.text() for c in enumerated("For each meaning of 'casa', give me its definition and its synonyms.")]
    assert any("synonyms" in t and "list synonymWord, definition" in t for t in texts)


def test_the_top_by_value_among_translated_words_without_the_dialect_column(enumerated):
    texts = [c.plan.text() for c in enumerated("Among the words that have a Sicilian translation, which five are the "
                                               "most negative according to Sentix? Include the score.")]
    assert any(t.endswith("list italianWord, polarityValue | order polarityValue, italianWord | limit 5")
               for t in texts)
