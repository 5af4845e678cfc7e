"""ASK questions mean what they ask: each has a contrastive twin, and only a version right on both is right."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from nl2sparql.data.check import check_dataset
from nl2sparql.data.dataset import load_dataset
from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric, examples
from nl2sparql.eval.scoring.gold import GoldCache
from nl2sparql.eval.scoring.program import score_question
from nl2sparql.eval.scoring.scored import summarise


@pytest.fixture(scope="module")
def pair():
    """sen-106 («spavento», a fear word with a Sicilian translation: yes) and its twin («tristezza»: no)."""
    by_id = {r.id: r for r in load_dataset()}
    return by_id["sen-106"], by_id["sen-106-twin"]


class Answering:
    """A program that answers every question with one query (the metric runs it)."""

    def __init__(self, sparql: str):
        self.sparql = sparql

    def __call__(self, question, exclude_ids=()):
        return SimpleNamespace(sparql=self.sparql, ok=True, result=None, attempts=[], seconds=0.1,
                               usage={"calls": 1, "prompt_tokens": 0, "completion_tokens": 0})


def scored(program, records, endpoint, tmp_path):
    metric = ExecutionMetric({r.id: r for r in records}, GoldCache(endpoint, tmp_path))
    return [score_question(program, metric, example) for example in examples(records)]


def test_a_constant_or_condition_dropping_ask_scores_zero_on_a_twin_pair(pair, endpoint, tmp_path):
    original, twin = pair
    # The emotion check attached to nothing: any fear word anywhere makes it true (as v4 answered sen-106).
    dropped = original.sparql.replace("?elitaEntry ontolex:canonicalForm ?lemma ;", "?elitaEntry")
    assert dropped != original.sparql
    for query in ("ASK { ?s ?p ?o }", dropped):
        questions = scored(Answering(query), list(pair), endpoint, tmp_path)
        assert [q.exact for q in questions] == [True, False]  # right on the original by luck
        assert [q.twin for q in questions] == [twin.id, original.id]
        summary = summarise(questions)
        assert summary["execution_accuracy"] == 0.0 and summary["execution_accuracy_per_record"] == 0.5


def test_answering_both_twins_right_counts_both(pair, endpoint, tmp_path):
    original, twin = pair
    right = scored(Answering(original.sparql), [original], endpoint, tmp_path)
    right += scored(Answering(twin.sparql), [twin], endpoint, tmp_path)
    assert summarise(right)["execution_accuracy"] == 1.0
    assert summarise(right[:1], among=right)["execution_accuracy"] == 1.0  # a per-language half sees its twin


def test_data_check_refuses_an_ask_record_without_its_twin_or_with_the_same_answer(pair, endpoint, kb_store,
                                                                                   tmp_path):
    from nl2sparql.cli import main

    original, twin = pair
    assert check_dataset(list(pair), endpoint).ok
    alone = check_dataset([original], endpoint)
    assert [(o.id, o.problem) for o in alone.offenders] == [
        ("sen-106", 'ASK record with 0 twins: add one ASK record with "twin": "sen-106" whose answer is the '
                    "other boolean")]
    same = check_dataset([original, replace(twin, sparql=original.sparql.replace("spavento", "paura"))], endpoint)
    assert [o.problem for o in same.offenders] == ["twin of sen-106 with the same answer (true): a twin's answer "
                                                   "is the other boolean"]
    moved = check_dataset([original, replace(twin, split="train")], endpoint)
    assert "keeps its original's split" in moved.offenders[0].problem
    folder = tmp_path / "dataset"
    folder.mkdir()
    (folder / "one.jsonl").write_text(json.dumps(original.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["data", "check", "--dataset", str(folder), "--store", str(kb_store),
                                       "--json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["offenders"][0]["id"] == "sen-106"


def test_every_ask_record_of_the_dataset_has_one_twin_in_its_split():
    records = load_dataset()
    twins = {r.twin: r for r in records if r.twin}
    asks = [r for r in records if "ask" in r.patterns and not r.twin]
    assert asks and all(r.id in twins and twins[r.id].split == r.split for r in asks)


def test_a_new_twin_goes_to_its_originals_split():
    from nl2sparql.data.split import assign_splits

    records = load_dataset()
    unassigned = [replace(r, split="auto") if r.twin else r for r in records]
    assert [r.split for r in assign_splits(unassigned)] == [r.split for r in records]
