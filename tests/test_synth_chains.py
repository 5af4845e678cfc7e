"""Synthetic follow-up chains: two turns from one word set, both run on the KB, in the curated chains' format,
reproducible from the seed, never a held-out gold query, and teaching the follow-up step only."""

from __future__ import annotations

import json

import pytest

from nl2sparql.data.chains import load_chains, parse_chain
from nl2sparql.data.check import normalise_sparql
from nl2sparql.data.synth.engine import synthesize_chains
from nl2sparql.data.synth.pools import open_pools
from nl2sparql.data.synth.text import keeps_slots


@pytest.fixture(scope="module")
def chains(endpoint, kb_store):
    found, _ = synthesize_chains(endpoint, 8, seed=3, pools=open_pools(kb_store))
    return found


def test_chains_have_two_turns_that_run_and_the_follow_up_builds_on_the_first(endpoint, chains):
    assert len(chains) == 8
    for data in chains:
        chain = parse_chain(data, "synth")  # the curated chains' format and checks
        first, second = chain.turns
        assert chain.split == "train" and first.kind == "first" and second.kind in ("count", "restrict", "order")
        for turn in chain.turns:
            result = endpoint.execute(turn.sparql)
            assert result.rows, turn.sparql
        assert second.standalone != second.question and len(second.question.split()) <= 10
        # The follow-up keeps the first turn's set: its query is the first's WHERE with one change.
        assert first.sparql.split("WHERE {")[1].split("\n")[1] in second.sparql
        if "LIMIT" in second.sparql:
            k = second.sparql.rsplit("LIMIT", 1)[1].split()[0]
            assert keeps_slots(second.question, [k])


def test_the_same_seed_gives_the_same_chains(endpoint, kb_store, chains):
    again, _ = synthesize_chains(endpoint, 8, seed=3, pools=open_pools(kb_store))
    assert again == chains


def test_a_chain_with_a_held_out_query_never_reaches_the_fine_tune(chains, tmp_path):
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.optimize.finetune.synth import synth_chains

    [test_chain] = [c for c in load_chains() if c.split == "test"][:1]
    leaked = {"id": "syc-leak", "language": test_chain.language, "split": "train",
              "turns": [{"question": t.question, "kind": t.kind, "sparql": t.sparql, "standalone": t.standalone,
                         "answer_variables": {"answer": list(t.answer_variables.answer)}} for t in test_chain.turns]}
    lines = [json.dumps(c, ensure_ascii=False) for c in [*chains, leaked]]
    (tmp_path / "chains.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    kept = synth_chains(tmp_path, load_dataset())
    assert [c.id for c in kept] == [c["id"] for c in chains]
    held_out = {normalise_sparql(t.sparql) for c in load_chains() if c.split != "train" for t in c.turns}
    assert not [t for c in kept for t in c.turns if normalise_sparql(t.sparql) in held_out]
    (tmp_path / "pairs-only").mkdir()
    assert synth_chains(tmp_path / "pairs-only", load_dataset()) == []  # a synth folder without chains


def test_synthetic_chains_give_follow_up_examples_only(endpoint, chains, tmp_path):
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.modules.program import NL2SPARQL, without_prefix_lines
    from nl2sparql.modules.runtime import Runtime
    from nl2sparql.optimize.finetune.followups import chain_examples
    from nl2sparql.optimize.finetune.run import FinetuneConfig
    from nl2sparql.optimize.finetune.synth import synth_chains

    (tmp_path / "chains.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chains[:3]), encoding="utf-8")
    program = NL2SPARQL(FinetuneConfig(compact_prompt=True).program_settings(), Runtime(endpoint=endpoint))
    examples = chain_examples(program, synth_chains(tmp_path, load_dataset()), answer_sparql=without_prefix_lines,
                              mode="both", standalone=False)
    assert sorted(e.source for e in examples) == ["followup"] * 3 + ["followup-chat"] * 3
