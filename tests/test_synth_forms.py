"""The generator's word-set forms: lists show what they join as our records do, per-word counts, length
statistics and ranges, frequent endings and shares run on the KB and answer what they ask."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from nl2sparql.data.synth.compose import LIST_FORMS, PER_WORD_FORMS, compose_set
from nl2sparql.data.synth.keep import Keeper
from nl2sparql.data.synth.pools import open_pools
from nl2sparql.data.synth.rules import Candidate, load_rules
from nl2sparql.data.synth.text import keeps_slots
from nl2sparql.kb.guard import check
from nl2sparql.kb.lint import lint

NEW_FORMS = (*PER_WORD_FORMS, "length_stat", "group_length", "length_range", "ending_top", "share")


@pytest.fixture(scope="module")
def candidates(kb_store) -> dict[str, list[Candidate]]:
    """Word-set candidates by form, composed from the test KB's pools (not run)."""
    rules, pools, rng, cache = load_rules(), open_pools(kb_store), random.Random(5), {}
    found: dict[str, list[Candidate]] = {}
    for _ in range(3000):
        candidate = compose_set(rules, pools, rng, cache)
        if candidate is not None:
            found.setdefault(candidate.shape.split(":")[1], []).append(candidate)
    return found


def test_a_list_shows_the_translation_and_polarity_of_every_resource_it_joins(candidates):
    rules, checked = load_rules(), 0
    for form in LIST_FORMS:
        for candidate in candidates.get(form, []):
            joined = candidate.resources[:-1] if form in ("absent", "absent_minus") else candidate.resources
            for resource in joined:
                if rules.resources[resource].get("shown_in_lists"):
                    column = rules.resources[resource]["column"]
                    assert column in candidate.answer, (form, resource, candidate.sparql)
                    assert f"?{column}" in candidate.sparql.split("WHERE")[0]
                    checked += 1
    assert checked >= 20
    # ELITA with one emotion named in the question is not a column: the question already says it.
    fixed = [c for form in LIST_FORMS for c in candidates.get(form, []) if "elita:HasEmotion elita:" in c.sparql]
    assert fixed and all("emotionLabel" not in c.answer for c in fixed)


def test_per_word_counts_and_length_statistics_are_composed_and_keep_their_values(candidates):
    for form in NEW_FORMS:
        assert len(candidates.get(form, [])) >= 5, form
        for candidate in candidates[form]:
            assert check(candidate.sparql).form == candidate.form and lint(candidate.sparql) == [], candidate.sparql
            assert "counting_grouping" in candidate.patterns
            for question in (candidate.question_it, candidate.question_en):
                assert keeps_slots(question, list(candidate.slots)), question
    for candidate in candidates["per_word_avg"]:
        assert "GROUP BY ?lemma" in candidate.sparql and candidate.sparql.count("SELECT") == 2
    assert {c.form for c in candidates["per_word_ask"]} == {"ASK"}
    ones = [c for c in candidates["per_word_exact"] if "= 1)" in c.sparql]
    assert ones and all("1" not in c.slots for c in ones)  # "una sola traduzione": the number is in words


def _per_word_counts(endpoint, candidate: Candidate) -> tuple[str, int, list[int]]:
    """The per-word counts the candidate's HAVING filters, read with a query of their own: (op, k, counts)."""
    var, op, k = re.search(r"HAVING\(COUNT\(DISTINCT \?(\w+)\) ([=>]) (\d+)\)", candidate.sparql).groups()
    inner = candidate.sparql.split("SELECT ?lemma WHERE {", 1)[1].rsplit("GROUP BY ?lemma", 1)[0]
    prefixes = candidate.sparql.split("SELECT", 1)[0].split("ASK", 1)[0]
    query = f"{prefixes}SELECT ?lemma (COUNT(DISTINCT ?{var}) AS ?n) WHERE {{{inner}GROUP BY ?lemma"
    return op, int(k), [int(row[1].value) for row in endpoint.execute(query).rows]


def test_per_word_counts_and_length_statistics_answer_what_they_ask(endpoint, candidates):
    keeper, kept = Keeper(endpoint, None), Counter()
    for form in NEW_FORMS:
        for candidate in candidates[form][:12]:
            result, reason = keeper.judge(candidate)
            if reason is not None:
                continue
            kept[form] += 1
            if form == "per_word_top":  # the words with the most come first, at most k of them
                counts = [int(row[1].value) for row in result.rows]
                assert counts == sorted(counts, reverse=True) and min(counts) >= 1
            if form == "per_word_avg":  # the average of per-word counts: at least one, since every word has one
                assert float(result.rows[0][0].value) >= 1.0
            if form == "group_length":  # one row per part of speech (or emotion, polarity class)
                keys = [row[0].value for row in result.rows]
                assert len(keys) == len(set(keys))
            if form == "length_stat" and "MIN(" in candidate.sparql:
                assert int(result.rows[0][0].value) >= 1
            if form == "length_range":  # the shortest and the longest, in one row
                assert 1 <= int(result.rows[0][0].value) <= int(result.rows[0][1].value)
            if form == "ending_top":  # the commonest endings of n letters first, each named once
                n = 1 + int(candidate.sparql.split("STRLEN(STR(?italianWord)) - ")[1].split(")")[0])
                endings, counts = [r[0].value for r in result.rows], [int(r[1].value) for r in result.rows]
                assert all(len(e) == n for e in endings) and len(set(endings)) == len(endings)
                assert counts == sorted(counts, reverse=True) and candidate.answer == ("ending",)
            if form in ("per_word_exact", "per_word_ask"):  # what HAVING keeps, checked against the counts
                op, k, counts = _per_word_counts(endpoint, candidate)
                if op == "=":
                    assert int(result.rows[0][0].value) == sum(n == k for n in counts), candidate.sparql
                else:
                    assert result.boolean == any(n > k for n in counts), candidate.sparql
            if form == "share":  # a percentage of the set, counting the words that also have the extra resource
                assert 0 <= float(result.rows[0][0].value) <= 100 and "BIND(?lemma AS ?covered)" in candidate.sparql
    assert set(kept) == set(NEW_FORMS), kept
