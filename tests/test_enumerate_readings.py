"""Readings the enumerator proposes for a word the question lacks a resource for, for top values, for groups over a
threshold, and for words the question names ("la parola Parma", "monorematico", "qualche esempio di lemma"); and the
two ways a plan is written for the embedded store's speed (a lacked resource as MINUS, Sentix before a broad word
set) answer the same as the slower writing."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Join, Plan, Words
from nl2sparql.retrieval.blocks import ABSENT, join_sets
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def _answer(endpoint, sparql: str) -> set:
    return {tuple(t.value for t in row) for row in endpoint.execute(sparql).rows}


@pytest.mark.parametrize("has, lacks", [("elita", "sicilian"), ("sicilian", "parmigiano"), ("elita", "sentix")])
def test_a_lacked_resource_written_as_minus_answers_as_not_exists(endpoint, has, lacks):
    minus = Plan(words=Words(pos=("verb",)), joins=(Join(has), Join(lacks, ABSENT)), columns=("italianWord",))
    not_exists = Plan(words=Words(pos=("verb",)), joins=(Join(has), Join(lacks, "absent")), columns=("italianWord",))
    assert "MINUS" in compile_plan(minus) and "NOT EXISTS" in compile_plan(not_exists)
    found = _answer(endpoint, compile_plan(minus))
    assert found and found == _answer(endpoint, compile_plan(not_exists))
    assert found < _answer(endpoint, compile_plan(Plan(words=Words(pos=("verb",)), joins=(Join(has),),
                                                       columns=("italianWord",))))


def test_sentix_is_written_before_a_broad_word_set_with_the_same_answer(endpoint):
    broad = Plan(joins=(Join("sentix", polarity="Negative"),), columns=("italianWord", "polarityValue"))
    sparql = compile_plan(broad)
    assert sparql.index("marl:hasPolarity") < sparql.index("GRAPH <http://liita.it/data>")
    body = sparql.split("WHERE {", 1)[1].rsplit("}", 1)[0].strip().splitlines()
    swapped = sparql.split("WHERE {", 1)[0] + "WHERE {\n" + "\n".join(body[::-1]) + "\n}"
    assert swapped.index("GRAPH <http://liita.it/data>") < swapped.index("marl:hasPolarity")
    assert _answer(endpoint, sparql) == _answer(endpoint, swapped) != set()
    named = compile_plan(Plan(words=Words(forms=("amore",)), joins=(Join("sentix"),), columns=("polarityValue",)))
    assert named.index("GRAPH <http://liita.it/data>") < named.index("marl:hasPolarity")  # a named word leads


def test_either_resource_may_be_the_lacked_one(lexicons):
    s = read_signals("Quali parole italiane non hanno traduzione siciliana ma hanno una traduzione parmigiana?",
                     *lexicons)
    pairs = {tuple((j.resource, j.mode) for j in joins) for joins in join_sets(s)}
    assert (("parmigiano", "has"), ("sicilian", ABSENT)) in pairs
    assert (("sicilian", "has"), ("parmigiano", ABSENT)) in pairs


def test_named_words_single_words_and_samples_are_read(lexicons):
    parma = read_signals("Che categoria assegna LiITA alla parola Parma?", *lexicons)
    assert parma.forms == ("Parma",) and "parmigiano" not in parma.resources
    assert "parmigiano" in read_signals("Come si dice casa a Parma?", *lexicons).resources
    single = read_signals("Qual è il sostantivo monorematico più lungo del lemmario?", *lexicons)
    assert single.single_word and not read_signals("Qual è il sostantivo più lungo?", *lexicons).single_word
    sample = read_signals("Dammi qualche esempio di lemma che non ha un identificativo LiITA autentico.", *lexicons)
    assert "complit" not in sample.resources and not sample.examples
    assert read_signals("Quali esempi d'uso ha il verbo perdere?", *lexicons).examples
    assert "E" not in read_signals("Quali nomi sono scritti con una sola parola e finiscono in -zione?",
                                   *lexicons).forms


@pytest.mark.parametrize("question, plan_text", [
    ("Quali emozioni sono espresse da più di 50 parole?",
     "words | with elita | group by emotionLabel count distinct(lemma) as count | having count > 50"),
    ("Quale parola ha il maggior numero di emozioni in ELITA?",
     "words | with elita | group by italianWord count distinct(emotion) as count | order count desc, italianWord | "
     "limit 1"),
    ("Quali sono le emozioni di ELITA?", "catalog emotions | list emotionLabel"),
    ("Quali verbi non hanno una polarità in Sentix?", "verb words | minus sentix | list italianWord"),
    ("Quante voci ha il lessico siciliano?", "catalog lexicons | lexicon IRI starts with "
     "'http://liita.it/data/id/LexicalReources/DialettoSiciliano/Lexicon' | count count distinct(entry) as count"),
    ("Quante triple ci sono nel grafo di ELITA?",
     "catalog graphs | graph IRI starts with 'http://w3id.org/elita' | count count(*) as count"),
    ("Le cinque note d'uso più frequenti tra le traduzioni parmigiane.",
     "words | with parmigiano (with a usage note) | group by usageNote count distinct(parmigianoEntry) as count | "
     "order count desc, usageNote | limit 5"),
    ("Quanti verbi hanno fra 4 e 6 lettere?", "verb words | italianWord length >= 4 | italianWord length <= 6 | count "
     "count distinct(lemma) as count"),
    ("Quali parole hanno una polarità Sentix compresa tra 0.3 e 0.5?",
     "words | with sentix | polarityValue >= 0.3 | polarityValue <= 0.5 | list italianWord"),
    ("Qual è la lettera iniziale più frequente tra gli aggettivi?",
     "adjective words | group by initial count distinct(lemma) as count | order count desc, initial | limit 1"),
    ("Quanti lemmi cominciano con ciascuna vocale?",
     "lemmas | italianWord matches '^[aeiouàèéìíòóùAEIOU]' | group by initial count distinct(lemma) as count"),
    ("Quali nomi hanno una definizione in CompL-it che menziona «acqua»?",
     "words | CompL-it senses (noun) | having a definition | definition contains 'acqua' | list italianWord, "
     "definition"),
    ("Quali verbi esprimono Tristezza ma non Paura?", "verb words | with elita (Tristezza, not Paura) | list "
                                                      "italianWord"),
    ("Qual è il sostantivo monorematico più lungo del lemmario?",
     "noun lemmas | italianWord not contains ' ' | list italianWord, length | order length desc, italianWord | "
     "limit 1"),
])
def test_the_enumerator_finds_each_reading(question, plan_text, enumerated):
    texts = [c.plan.text() for c in enumerated(question)]
    assert plan_text in texts, texts[:12]


def test_an_inclusive_bound_is_tried_first(lexicons):
    from nl2sparql.data.plans.model import Senses
    from nl2sparql.retrieval.blocks import operators

    at_least = read_signals("Quanti verbi hanno almeno cinque sensi in CompL-it?", *lexicons)
    more_than = read_signals("Quanti verbi hanno più di cinque sensi in CompL-it?", *lexicons)
    assert at_least.inclusive and not more_than.inclusive
    base = Plan(words=Words(), senses=Senses(pos="verb"))
    for s, first in ((at_least, ">="), (more_than, ">")):
        having = [p.having.op for p in operators(base, s) if p.having is not None]
        assert having and having[0] == first


def test_whether_a_words_count_passes_is_asked_of_its_groups(endpoint):
    from nl2sparql.data.plans.model import Aggregate, Filter, Senses
    from nl2sparql.data.plans.verbalize import verbalize

    def plan(bound: float) -> Plan:
        return Plan(words=Words(forms=("cane",)), senses=Senses(pos="noun"), operator="ask_groups", columns=("word",),
                    aggregates=(Aggregate("count", "sense", "count", distinct=True),),
                    having=Filter("count", "value", bound, ">"))
    senses = Plan(words=Words(forms=("cane",)), senses=Senses(pos="noun"), operator="count", columns=(),
                  aggregates=(Aggregate("count", "sense", "count", distinct=True),))
    n = int(endpoint.execute(compile_plan(senses)).rows[0][0].value)
    assert n > 1
    assert endpoint.execute(compile_plan(plan(n - 1))).boolean is True
    assert endpoint.execute(compile_plan(plan(n))).boolean is False
    assert compile_plan(plan(n)).startswith("PREFIX") and "ASK {" in compile_plan(plan(n))
    assert "count > " in verbalize(plan(n), "en") and "numero > " in verbalize(plan(n), "it")
