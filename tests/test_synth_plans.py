"""Synthetic pairs drawn as query plans: each pair's query is its plan compiled, reads back into the same plan,
runs on the KB, and its questions are the plan's verbalization; the engine draws them among its generators."""

from __future__ import annotations

import random

import pytest

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.parse import parse_plan
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.data.synth.engine import synthesize
from nl2sparql.data.synth.plans import compose_plan, draw_plan, plan_candidate
from nl2sparql.data.synth.pools import open_pools
from nl2sparql.data.synth.rules import load_rules


@pytest.fixture(scope="module")
def pools(kb_store):
    return open_pools(kb_store)


def test_a_drawn_plan_compiles_reads_back_and_runs(pools, endpoint):
    rng, rules, cache, drawn = random.Random(3), load_rules(), {}, []
    while len(drawn) < 25:
        candidate = compose_plan(rules, pools, rng, cache)
        if candidate is not None:
            drawn.append(candidate)
    shapes = {c.shape for c in drawn}
    assert {"plan:list", "plan:count", "plan:ask"} <= shapes, shapes
    for candidate in drawn:
        result = endpoint.execute(candidate.sparql)
        assert result.boolean is not None or result.rows or candidate.shape != "plan:list"
        again = endpoint.execute(compile_plan(parse_plan(candidate.sparql)))  # the query reads back as a plan
        assert (again.boolean, sorted(again.values())) == (result.boolean, sorted(result.values()))


def test_a_pair_is_its_plan_compiled_and_verbalized(pools):
    rng = random.Random(9)
    witness = pools.words[pools.lemmas_with(("elita", "sicilian"))[0]]
    for operator in ("list", "count", "group", "ask", "top"):
        plan = draw_plan(witness, ("elita", "sicilian"), operator, rng)
        candidate = plan_candidate(plan, ("elita", "sicilian"))
        assert candidate.sparql == compile_plan(plan)
        assert candidate.question_it.rstrip(".?") == verbalize(plan, "it").rstrip(".?")
        assert candidate.question_en.rstrip(".?") == verbalize(plan, "en").rstrip(".?")
        assert "translation" in candidate.patterns and "emotion" in candidate.patterns


def test_a_plan_keeps_the_witness_word_in_its_set(pools, endpoint):
    rng = random.Random(5)
    witness = pools.words[pools.lemmas_with(("elita",))[0]]
    for _ in range(10):
        plan = draw_plan(witness, ("elita",), "ask", rng)
        assert endpoint.execute(compile_plan(plan)).boolean is True, plan.text()


def test_the_engine_draws_plan_pairs_among_its_generators(endpoint, pools, monkeypatch):
    from nl2sparql.data.synth import engine

    assert "plan" in [name for name, _, weight in engine.GENERATORS if weight > 0]
    monkeypatch.setattr(engine, "GENERATORS", (("plan", compose_plan, 1),))
    records = synthesize(endpoint, 6, seed=11, pools=pools).records
    assert len(records) == 6 and all(r["trace"]["shape"].startswith("plan:") for r in records)
    for record in records:
        parse_plan(record["sparql"])  # every one reads back as a plan
        assert record["question_it"] and record["question_en"] and record["split"] == "train"
