"""Filters the enumerator reads from a question's words: what a CompL-it definition must say ("definiti come
usurati", "una definizione che comincia con «mammifero»"), LiITA's own lemma IRIs ("lemmi autentici"), a translation
written as its Italian word, and a quoted word's hyponyms at any depth ("sotto «veicolo»"). Each is checked as a
signal and, on the test KB, as a candidate the enumerator finds and executes."""

from __future__ import annotations

import pytest

from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans, enumeration_endpoint
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


@pytest.mark.parametrize("question, definition, forms", [
    ("Quali veicoli, sotto «veicolo» a qualunque profondità, sono definiti come usurati?",
     (("contains", "usurati"), ("contains", "usurato")), ("veicolo",)),
    ("Tra gli iponimi di «animale», quali hanno una definizione che dice «domestico»?",
     (("contains", "domestico"),), ("animale",)),
    ("Quali parole hanno una definizione che comincia con «mammifero»?", (("prefix", "mammifero"),), ()),
    ("Quali sono le definizioni di «cane»?", (), ("cane",)),  # a definition asked for, nothing it must say
])
def test_what_a_definition_must_say_is_read_and_is_no_word_asked_about(question, definition, forms, lexicons):
    s = read_signals(question, *lexicons)
    assert s.definition == definition
    assert s.forms == forms
    assert s.affixes == ()  # "comincia con" of a definition is not the word's prefix


def test_a_quoted_word_below_is_a_relation_at_any_depth_and_authentic_and_same_form_cues(lexicons):
    s = read_signals("Quali veicoli, sotto «veicolo» a qualunque profondità, sono definiti come usurati?", *lexicons)
    assert s.relations == ("hyponym",) and s.any_depth
    assert read_signals("Quanti lemmi LiITA autentici ci sono per ciascuna categoria?", *lexicons).authentic
    assert not read_signals("Quanti lemmi ci sono per ciascuna categoria?", *lexicons).authentic
    assert read_signals("Quali traduzioni siciliane si scrivono esattamente come la parola italiana?",
                        *lexicons).same_form
    assert not read_signals("Quali sono le traduzioni siciliane di «casa»?", *lexicons).same_form


@pytest.mark.parametrize("question, plan_text", [
    ("Quali veicoli, sotto «veicolo» a qualunque profondità, sono definiti come usurati?",
     "words written 'veicolo' | CompL-it senses | hyponyms at any depth | having a definition | definition contains "
     "'usurato' | list hyponymWord"),
    ("Quali parole hanno una definizione che comincia con «mammifero»?",
     "words | CompL-it senses | having a definition | definition starts with 'mammifero' | list italianWord, "
     "definition"),
    ("Quanti lemmi LiITA autentici ci sono per ciascuna categoria?",
     "lemmas | lemma IRI starts with 'http://liita.it/data/id/lemma/' | group by pos count distinct(lemma) as count"),
    ("Quali traduzioni siciliane si scrivono esattamente come la parola italiana?",
     "words | with sicilian | sicilianWord written as italianWord | list italianWord, sicilianWord"),
])
def test_the_enumerator_finds_and_runs_each_filter(question, plan_text, enumerated):
    candidates = enumerated(question)
    texts = [c.plan.text() for c in candidates]
    assert plan_text in texts, texts
    assert candidates[texts.index(plan_text)].rows > 0


def test_a_translation_written_as_its_italian_word_is_a_subset_of_all_translations(endpoint):
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.data.plans.model import Filter, Join, Plan
    from nl2sparql.data.plans.parse import parse_plan

    every = Plan(joins=(Join("sicilian"),), columns=("italianWord", "sicilianWord"))
    same = every.with_block(filters=(Filter("sicilianWord", "same_as", "italianWord"),))
    rows = {tuple(t.value for t in row) for row in endpoint.execute(compile_plan(same)).rows}
    assert rows and all(italian == sicilian for italian, sicilian in rows)
    assert rows < {tuple(t.value for t in row) for row in endpoint.execute(compile_plan(every)).rows}
    assert parse_plan(compile_plan(same)) == same


def test_a_quoted_word_is_never_read_away_and_a_written_form_is_no_graph(endpoint, lexicons):
    s = read_signals("Quale parola siciliana traduce «zzzqqq» e «casa»?", *lexicons)
    assert s.quoted  # «casa» is quoted: asked about, so an empty set is no reason to drop it
    unquoted = read_signals("Quali verbi siciliani ha il campione?", *lexicons)
    assert not unquoted.quoted
    assert read_signals("Quali grafie corrispondono a più di un lemma?", *lexicons).catalogs == ()
    assert read_signals("Quali grafi contiene la base di conoscenza?", *lexicons).catalogs == ("graphs",)


def test_written_forms_shared_by_several_lemmas_are_counted_per_form(kb_store, lexicons):
    with enumeration_endpoint(kb_store, timeout_s=10) as pool:  # no query dropped for a busy machine
        found = enumerate_plans(read_signals("Quali grafie corrispondono a più di un lemma?", *lexicons), pool,
                                EnumerationConfig(budget_s=20))
    texts = [c.plan.text() for c in found.candidates]
    wanted = "lemmas | group by italianWord count distinct(lemma) as count | having count > 1"
    assert wanted in texts, texts
    assert found.candidates[texts.index(wanted)].rows > 0
