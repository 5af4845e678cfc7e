"""Follow-up chains: the real ones pass the check (every gold runs and answers), meet the size targets, and
never straddle splits; broken chains are refused or reported."""

import json
from collections import Counter

import pytest

from nl2sparql.data.chains import (KINDS, chains_of_split, default_chains_path, kind_counts, load_chains,
                                   turn_record)
from nl2sparql.data.check import check_chains
from nl2sparql.errors import DatasetError


@pytest.fixture(scope="module")
def chains():
    return load_chains()


def test_real_chains_pass_the_check(chains, endpoint):
    assert check_chains(chains, endpoint) == []


def test_real_chains_meet_the_size_targets(chains):
    follow_ups = [t for c in chains for t in c.turns[1:]]
    assert len(follow_ups) >= 100
    assert {c.language for c in chains} == {"it", "en"}
    assert set(Counter(t.kind for t in follow_ups)) == set(KINDS[1:])
    assert all(t.standalone != t.question for t in follow_ups)


def test_a_chain_is_wholly_in_one_split(chains):
    by_split = {s: {c.id for c in chains_of_split(f"followup-{s}")} for s in ("train", "dev", "test")}
    assert not (by_split["train"] & by_split["dev"] or by_split["train"] & by_split["test"]
                or by_split["dev"] & by_split["test"])
    assert sum(map(len, by_split.values())) == len(chains)
    for chain in chains_of_split("followup-test"):
        assert {turn_record(chain, i).split for i in range(len(chain.turns))} == {"followup-test"}


def test_turn_records_say_first_or_follow_up(chains):
    chain = chains[0]
    assert turn_record(chain, 0).patterns == ("turn:first",)
    assert turn_record(chain, 1).patterns == ("turn:follow-up", f"kind:{chain.turns[1].kind}")


def _write(tmp_path, chain: dict):
    path = tmp_path / "chains.jsonl"
    path.write_text(json.dumps(chain) + "\n", encoding="utf-8")
    return path


def test_a_chain_with_an_empty_gold_answer_is_reported(tmp_path, endpoint):
    data = json.loads(default_chains_path().read_text(encoding="utf-8").splitlines()[0])
    data["turns"][0]["sparql"] = data["turns"][0]["sparql"].replace("elita:Tristezza", "elita:Nessuna")
    problems = check_chains(load_chains(_write(tmp_path, data)), endpoint)
    assert [p.id for p in problems] == [f"{data['id']}#0"] and "no rows" in problems[0].problem


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(turns=d["turns"][:1]), "has 1 turns"),
    (lambda d: d["turns"][1].update(kind="first"), "turn kinds"),
    (lambda d: d.update(language="fr"), "language"),
])
def test_malformed_chains_are_refused_on_load(tmp_path, edit, message):
    data = {"id": "x", "language": "it", "split": "train", "turns": [
        {"question": "Quali?", "kind": "first", "sparql": "ASK {}", "answer_variables": {}},
        {"question": "E quanti?", "kind": "count", "sparql": "ASK {}", "answer_variables": {}}]}
    edit(data)
    with pytest.raises(DatasetError, match=message):
        load_chains(_write(tmp_path, data))


def test_kind_counts_add_up(chains):
    counts = kind_counts(chains)
    assert sum(counts["chains"].values()) == len(chains)
    assert sum(sum(row.values()) for kind, row in counts.items() if kind != "chains") == sum(len(c.turns)
                                                                                          for c in chains)
