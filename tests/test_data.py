"""The curated dataset: the real one passes `data check` and meets its size targets; broken copies fail."""

import json
from dataclasses import replace

import pytest

from nl2sparql.data.check import check_dataset, find_duplicates, structure
from nl2sparql.data.dataset import PATTERNS, default_dataset_dir, load_dataset
from nl2sparql.data.split import assign_splits
from nl2sparql.errors import DatasetError


@pytest.fixture(scope="module")
def records():
    return load_dataset()


def test_real_dataset_passes_data_check(records, endpoint):
    report = check_dataset(records, endpoint)
    assert report.offenders == [] and report.duplicates == []


def test_real_dataset_meets_the_size_targets(records):
    assert len(records) >= 400
    counts = {p: sum(p in r.patterns for r in records) for p in PATTERNS}
    assert min(counts.values()) >= 15, counts
    assert sum(len(r.patterns) > 1 for r in records) >= 0.25 * len(records)
    for split in ("train", "dev", "test", "generalization"):
        assert any(r.split == split for r in records), split


def test_generalization_structures_never_appear_in_train(records):
    train = {structure(r) for r in records if r.split == "train"}
    assert all(structure(r) not in train for r in records if r.split == "generalization")


def _broken_copy(tmp_path, edit, keep=6):
    """A small copy (the first `keep` records of one shard) with its first record edited."""
    copy = tmp_path / "dataset"
    copy.mkdir()
    source = sorted(default_dataset_dir().glob("*.jsonl"))[0]
    first = copy / source.name
    lines = source.read_text(encoding="utf-8").splitlines()[:keep]
    data = json.loads(lines[0])
    edit(data)
    lines[0] = json.dumps(data, ensure_ascii=False)
    first.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy, data["id"]


@pytest.mark.parametrize("edit,problem", [
    (lambda d: d.update(sparql=d["sparql"].replace("SELECT", "SELEC", 1).replace("ASK", "ASX", 1)), "malformed"),
    (lambda d: d.update(sparql="SELECT ?answer WHERE { ?answer <http://example.org/none> ?x }",
                        answer_variables={"answer": ["answer"]}), "no rows"),
    (lambda d: d.update(sparql="SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", answer_variables={"answer": ["word"]}),
     "not in the SELECT"),
    (lambda d: d.update(sparql="DROP ALL"), "read-only"),
])
def test_data_check_fails_on_a_broken_record(tmp_path, endpoint, edit, problem):
    copy, broken_id = _broken_copy(tmp_path, edit)
    report = check_dataset(load_dataset(copy), endpoint)
    assert not report.ok
    assert [o.id for o in report.offenders] == [broken_id]
    assert problem in report.offenders[0].problem


def test_unknown_pattern_is_refused_on_load(tmp_path):
    copy, _ = _broken_copy(tmp_path, lambda d: d.update(patterns=["telepathy"]))
    with pytest.raises(DatasetError, match="unknown patterns"):
        load_dataset(copy)


def test_duplicates_are_found(records):
    twin = replace(records[1], id="twin", question_it=records[0].question_it.upper() + " ?")
    assert ("twin" in {b for _, b, _ in find_duplicates([records[0], twin])})


def test_splits_are_stable_and_keep_held_out_structures_out_of_train(records):
    auto = [replace(r, split="auto") if r.split != "generalization" else r for r in records]
    once, twice = assign_splits(auto, seed=13), assign_splits(auto, seed=13)
    assert [r.split for r in once] == [r.split for r in twice]
    held_out = {structure(r) for r in once if r.split == "generalization"}
    assert not any(structure(r) in held_out for r in once if r.split == "train")
    assert {r.split for r in once} == {"train", "dev", "test", "generalization"}
