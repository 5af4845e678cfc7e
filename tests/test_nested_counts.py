"""Nested counts: the groups at the extreme count with their ties, the rows at the extreme value per key, a per-word
count averaged per key (and only over the keys with enough words), and the readings that ask for them."""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

import pytest

from nl2sparql.data.plans.codec import plan_from_json, plan_to_json
from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.retrieval.signals import read_signals

_COUNT = (Aggregate("count", "parmigianoLemma", "count", distinct=True),)


def _rows(endpoint, plan: Plan) -> list[tuple]:
    return [tuple(t.value if t is not None else None for t in row) for row in endpoint.execute(compile_plan(plan)).rows]


def test_the_extreme_count_keeps_every_group_tied_at_the_top(endpoint):
    verbs = Plan(words=Words(pos=("verb",)), joins=(Join("parmigiano"),), columns=("italianWord",))
    counts = {w: int(n) for w, n in _rows(endpoint, verbs.with_block(operator="group", aggregates=_COUNT))}
    top = max(counts.values())
    extreme = verbs.with_block(operator="extreme", aggregates=_COUNT, order=(("count", True),))
    found = {(w, int(n)) for w, n in _rows(endpoint, extreme)}
    assert found == {(w, n) for w, n in counts.items() if n == top}
    assert len(found) > 1  # the Parmigiano verbs tie at the top: LIMIT 1 would drop one


def test_the_extreme_value_is_taken_per_key(endpoint):
    words = Plan(joins=(Join("elita"),), columns=("emotionLabel", "italianWord", "polarityValue"))
    best: dict[str, float] = defaultdict(lambda: float("-inf"))
    listed = [(e, w, float(v)) for e, w, v in _rows(endpoint, words)]
    for emotion, _, value in listed:
        best[emotion] = max(best[emotion], value)
    extreme = words.with_block(operator="extreme", per=("emotionLabel",), order=(("polarityValue", True),))
    found = {(e, w, float(v)) for e, w, v in _rows(endpoint, extreme)}
    assert found == {row for row in listed if row[2] == best[row[0]]}
    assert {e for e, _, _ in found} == set(best)  # one extreme per emotion, not one overall


def test_a_per_word_count_is_averaged_per_key_and_a_bound_on_the_keys_drops_the_small_ones(endpoint):
    per_lemma = Plan(joins=(Join("parmigiano"),), columns=("lemma", "pos"))
    counts = _rows(endpoint, per_lemma.with_block(operator="group", aggregates=_COUNT))
    by_pos: dict[str, list[int]] = defaultdict(list)
    for _, pos, n in counts:
        by_pos[pos].append(int(n))
    average = per_lemma.with_block(operator="average_groups", per=("pos",), aggregates=_COUNT)
    found = {pos: float(avg) for pos, avg in _rows(endpoint, average)}
    assert found.keys() == by_pos.keys()
    assert all(found[p] == pytest.approx(mean(ns)) for p, ns in by_pos.items())
    bounded = average.with_block(having=Filter("groups", "value", 100, ">="))
    kept = {pos for pos, _ in _rows(endpoint, bounded)}
    assert kept == {p for p, ns in by_pos.items() if len(ns) >= 100} and kept < set(by_pos)


def test_a_nested_plan_reads_back_as_words_and_keeps_its_keys_through_json():
    plan = Plan(words=Words(pos=("noun",), every_pos=True), joins=(Join("elita"),), operator="extreme",
                columns=("emotionLabel", "italianWord"), per=("emotionLabel",), order=(("polarityValue", True),))
    assert plan_from_json(plan_to_json(plan)) == plan
    assert "per emotionLabel" in plan.text()
    assert "per ogni emozione" in verbalize(plan, "it") and "for each emotion" in verbalize(plan, "en")


@pytest.mark.parametrize("question", [
    "Qual è il nome con più traduzioni siciliane? Se ce n'è più di uno a pari merito, voglio tutti.",
    "Which noun has the most Sicilian translations? Include ties."])
def test_ties_are_read_as_asked_and_name_no_word_or_threshold(question):
    s = read_signals(question)
    assert {"ties", "top"} <= s.operators and s.numbers == () and s.comparison is None
    assert not {"pari", "merito"} & set(s.forms)


def test_the_mean_number_names_no_compl_it_and_the_first_key_named_comes_first():
    s = read_signals("The mean number of emotions per ELITA word, by emotion and then by polarity class.")
    assert "complit" not in s.resources and "average" in s.operators
    assert s.keys[:2] == ("emotionLabel", "polarity")


def test_the_enumerator_offers_the_tied_top_groups_and_the_mean_per_part_of_speech(enumerated):
    texts = [c.plan.text() for c in enumerated("Qual è il verbo con più traduzioni parmigiane? Pari merito inclusi.")]
    assert any("at the extreme count distinct(parmigiano" in t for t in texts)
    texts = [c.plan.text() for c in enumerated(
        "Quante traduzioni parmigiane ha in media una parola italiana, per parte del discorso?")]
    assert any("average over groups by lemma, pos per pos" in t for t in texts)


def test_two_per_word_counts_are_compared_in_having(endpoint):
    both = Plan(joins=(Join("sicilian"), Join("parmigiano")), operator="group", columns=("italianWord",),
                aggregates=(Aggregate("count", "sicilianLemma", "sicilian", distinct=True),
                            Aggregate("count", "parmigianoLemma", "parmigiano", distinct=True)))
    counts = {w: (int(a), int(b)) for w, a, b in _rows(endpoint, both)}
    kept = both.with_block(having=Filter("sicilian", "compare", "parmigiano", ">"))
    assert "HAVING (COUNT(DISTINCT ?sicilianLemma) > COUNT(DISTINCT ?parmigianoLemma))" in compile_plan(kept)
    found = {w: (int(a), int(b)) for w, a, b in _rows(endpoint, kept)}
    assert found == {w: c for w, c in counts.items() if c[0] > c[1]} and 0 < len(found) < len(counts)
    assert "Sicilian translations is > that of Parmigiano translations" in verbalize(kept, "en")


@pytest.mark.parametrize("question, compared", [
    ("Quali parole hanno più traduzioni siciliane che parmigiane? Dammi i due numeri.",
     "sicilianLemma>parmigianoLemma"),
    ("Which ELITA words have fewer emotions than CompL-it definitions?", "emotion<definition")])
def test_one_count_read_against_another(question, compared):
    assert compared in read_signals(question).computed


def test_the_enumerator_offers_both_counts_where_one_is_above_the_other(enumerated):
    texts = [c.plan.text() for c in enumerated(
        "Quali parole italiane hanno più traduzioni siciliane che parmigiane? Riporta entrambi i numeri.")]
    assert any(t.endswith("having sicilianLemmaCount > parmigianoLemmaCount") for t in texts)


@pytest.mark.parametrize("question", ["In ciascuna emozione di ELITA, quale parola ha il valore di polarità più basso?",
                                      "Within each ELITA emotion, which word does Sentix rate most negatively?"])
def test_the_extreme_word_per_emotion_is_offered_before_the_counts(enumerated, question):
    texts = [c.plan.text() for c in enumerated(question)]
    extreme = next(i for i, t in enumerate(texts) if "at the extreme per emotionLabel" in t)
    assert extreme < next((i for i, t in enumerate(texts) if "count distinct" in t), len(texts))


def test_the_highest_value_per_key_is_a_maximum_and_no_polarity_class():
    s = read_signals("For each emotion, which adjective has the highest polarity value?")
    assert "max" in s.operators and s.polarity == () and s.keys[0] == "emotionLabel"
    s = read_signals("Qual è il valore di polarità ELITA più alto per ogni emozione?")
    assert "max" in s.operators and s.keys[0] == "emotionLabel"  # the key after "per ogni", before "polarità"


@pytest.mark.parametrize("question, op", [("Quali emozioni superano le 40 parole?", ">"),
                                          ("Le parole che non superano le 6 lettere", "<=")])
def test_exceeding_a_number_is_a_bound(question, op):
    s = read_signals(question)
    assert s.comparison is not None and s.comparison.startswith(op[0])


def test_the_parser_reads_back_an_average_per_key_and_a_count_compared_with_another(endpoint):
    from nl2sparql.data.plans.parse import parse_plan

    averaged = Plan(joins=(Join("parmigiano"),), operator="average_groups", columns=("lemma", "pos"), per=("pos",),
                    aggregates=_COUNT, having=Filter("groups", "value", 100, ">="))
    assert parse_plan(compile_plan(averaged)) == averaged
    compared = Plan(joins=(Join("sicilian"), Join("parmigiano")), operator="group", columns=("italianWord",),
                    aggregates=(Aggregate("count", "sicilianLemma", "sicilian", distinct=True),
                                Aggregate("count", "parmigianoLemma", "parmigiano", distinct=True)),
                    having=Filter("sicilian", "compare", "parmigiano", ">"))
    read = parse_plan(compile_plan(compared))
    assert read.having == compared.having and set(read.aggregates) == set(compared.aggregates)
    rows = {r[0]: sorted(r[1:]) for r in _rows(endpoint, read)}  # its columns in another order, the same answer
    assert rows == {r[0]: sorted(r[1:]) for r in _rows(endpoint, compared)} and rows
