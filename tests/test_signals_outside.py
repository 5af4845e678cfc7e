"""Wordings of people who never saw the cues (the design half of `bench/outside`): a polarity "sopra 0,5" leaves
0.5 out, "almeno" keeps it; "missing from Sentix" lacks Sentix; "iperonimi di rabbia" asks about the word, not the
emotion; "sì o no" is a yes/no question and "mi fai vedere" is not; "scritte con la ö" is a letter contained; the
lemma bank a question names is read first; a count and an average asked together come in one row."""

from __future__ import annotations

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.retrieval.blocks import word_sets
from nl2sparql.retrieval.filter_blocks import filter_sets
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


def _value_ops(s) -> list[str]:
    return [f.op for filters in filter_sets(s, "italianWord", "polarityValue") for f in filters if f.kind == "value"]


@pytest.mark.parametrize("question, ops", [
    ("aggettivi in -oso con polarità Sentix sopra 0,5", [">", ">="]),
    ("Adjectives that Sentix scores above 0.5", [">", ">="]),
    ("aggettivi con una polarità più bassa di -0.6 in Sentix", ["<", "<="]),
    ("aggettivi con polarità Sentix pari o superiore a 0.8", [">="]),
    ("parole con polarità Sentix di almeno 0.75", [">="]),
])
def test_a_value_bound_is_strict_unless_the_bound_itself_passes(lexicons, question, ops):
    assert _value_ops(read_signals(question, *lexicons)) == ops


def test_missing_from_a_resource_lacks_it(lexicons):
    for question in ("Which ELITA words are missing from Sentix altogether?", "Parole ELITA assenti in Sentix"):
        s = read_signals(question, *lexicons)
        assert s.lacking == ("sentix",) and "absent" in s.operators


def test_an_emotion_word_a_relation_is_asked_of_is_a_word(lexicons):
    s = read_signals("rabbia è un tipo di cosa? iperonimi di rabbia", *lexicons)
    assert s.forms == ("rabbia",) and s.emotions == () and "elita" not in s.resources
    named = read_signals("i sinonimi di paura che esprimono l'emozione Paura", *lexicons)
    assert named.emotions == ("Paura",) and "elita" in named.resources  # the emotion named as one stays


def test_yes_or_no_asks_and_show_me_lists(lexicons):
    s = read_signals("amore in ELITA è associato alla tristezza? sì o no", *lexicons)
    assert "ask" in s.operators and "absent" not in s.operators
    shown = read_signals("Mi fai vedere gli aggettivi siciliani del campione con il corrispondente italiano?", *lexicons)
    assert "ask" not in shown.operators and shown.forms == () and shown.pos == ("adjective",)


def test_written_with_a_letter_contains_it_and_the_named_bank_comes_first(lexicons):
    s = read_signals("Nel lemmario parmigiano ci sono parole scritte con la ö? Quali?", *lexicons)
    assert ("contains", "ö") in s.affixes and "ask" not in s.operators
    assert word_sets(s)[0].bank == "parmigiano"


def test_a_count_and_an_average_in_one_row(endpoint, enumerated):
    plan = Plan(words=Words(), joins=(Join("sentix"),), filters=(Filter("italianWord", "prefix", "dis"),),
                operator="count", columns=(), aggregates=(Aggregate("count", "sentixEntry", "count", distinct=True),
                                                          Aggregate("avg", "polarityValue", "average")))
    result = endpoint.execute(compile_plan(plan))
    assert result.variables == ("count", "average") and len(result.rows) == 1 and int(result.rows[0][0].value) > 10
    assert "media" in verbalize(plan, "it") and "average" in verbalize(plan, "en")
    texts = [c.plan.text() for c in enumerated("Qual è la polarità media in Sentix delle parole che iniziano con "
                                               "'dis'? E quante sono?")]
    assert plan.text() in texts


def test_every_word_at_the_extreme_value_ties_included(endpoint, enumerated):
    plan = Plan(words=Words(pos=("adjective",)), joins=(Join("sentix"),), operator="extreme", columns=("italianWord",),
                order=(("polarityValue", False),))
    lowest = endpoint.execute(compile_plan(plan)).rows
    minimum = endpoint.execute(compile_plan(Plan(words=Words(pos=("adjective",)), joins=(Join("sentix"),),
                                                 operator="count", columns=(),
                                                 aggregates=(Aggregate("min", "polarityValue", "low"),)))).rows
    tied = endpoint.execute(compile_plan(Plan(words=Words(pos=("adjective",)), joins=(Join("sentix"),),
                                              columns=("italianWord",), filters=(
                                                  Filter("polarityValue", "value", float(minimum[0][0].value), "="),))))
    assert len(lowest) > 1 and {r[0].value for r in lowest} == {r[0].value for r in tied.rows}
    texts = [c.plan.text() for c in enumerated("Quali aggettivi hanno il punteggio più negativo di tutto Sentix?")]
    assert any("at the extreme" in t for t in texts)


@pytest.mark.parametrize("question, form", [("Cosa significa tavolo?", "tavolo"), ("Cosa vuol dire angoscia?", "angoscia"),
                                            ("Cosa vuol dire tristezza?", "tristezza")])
def test_what_a_word_means_names_the_word_not_an_emotion(lexicons, question, form):
    s = read_signals(question, *lexicons)
    assert s.forms == (form,) and s.emotions == () and s.resources == ("complit",)


def test_what_a_resource_says_of_a_word_asks_that_resource_only(lexicons):
    s = read_signals("What does Sentix say about 'felicità' - polarity score and class?", *lexicons)
    assert s.forms == ("felicità",) and s.resources == ("sentix",)


def test_split_across_classes_groups_and_no_spaces_is_one_word(lexicons):
    assert "group" in read_signals("How are the Sentix entries split across polarity classes?", *lexicons).operators
    assert "group" in read_signals("Come sono ripartite le voci di Sentix tra le classi di polarità?",
                                   *lexicons).operators
    s = read_signals("qual è la parola più lunga di tutta la banca lemmi (parole singole, niente spazi)?", *lexicons)
    assert s.single_word and s.forms == () and ("contains", " ") not in s.affixes


def test_examples_alone_the_related_words_definition_and_a_gap_between_two_values(enumerated):
    examples = [c.plan.text() for c in enumerated("mi servono degli esempi d'uso della parola 'casa'")]
    assert any(t.endswith("list example") for t in examples)
    defined = [c.plan for c in enumerated("La quercia è un tipo di che cosa? Dammi anche la definizione "
                                          "dell'iperonimo")]
    assert any(p.senses.defined == "related" and p.columns == ("hypernymWord", "definition") for p in defined)
    gaps = [c.plan for c in enumerated("Which 5 words show the biggest gap between their ELITA and Sentix "
                                       "polarity scores?")]
    assert any(p.order and p.order[0] == ("gap", True) and p.limit == 5 for p in gaps)


def test_a_catalog_shows_the_columns_named_and_lexicons_count_per_language(enumerated):
    named = [c.plan.columns for c in enumerated("Mi servono titolo, descrizione e contributori della collezione "
                                                 "di lemmi parmigiani")]
    assert ("title", "description", "contributor") in named
    per_language = [c.plan for c in enumerated("Che lessici dialettali ci sono, in quale lingua e con quante "
                                                "entry ciascuno?")]
    assert any(p.operator == "group" and p.columns == ("lexicon", "language") for p in per_language)


def test_preambles_examples_and_as_many_as(lexicons):
    many = read_signals("quali parole hanno ben tre emozioni diverse?", *lexicons)
    assert many.forms == () and many.comparison == ">=" and many.inclusive and many.numbers == (3.0,)
    assert read_signals("vino in dialetto parmigiano, tutte le traduzioni", *lexicons).forms == ("vino",)
    example = read_signals("Sto cercando aggettivi in -oso lunghi fra 6 e 8 lettere, tipo 'noioso'.", *lexicons)
    assert example.forms == () and ("suffix", "oso") in example.affixes
    preamble = read_signals("Per un esperimento su emozioni miste: ci sono parole che in ELITA sono legate sia alla "
                            "gioia che all'amore?", *lexicons)
    assert preamble.forms == () and preamble.emotions == ("Gioia", "Amore")
    curated = read_signals("chi ha curato il lemmario parmigiano e come si chiama ufficialmente?", *lexicons)
    assert {"title", "contributor"} <= set(curated.asks)
