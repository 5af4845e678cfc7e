"""The ranker's features by version: version 2 reads the executed answer's size and the enumerator's later signals,
version 1 stays what the shipped rankers were trained on, a ranker keeps and declares its version, and the training
lists are keyed by the code that makes them, not by the ranker's features."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nl2sparql.data.plans.model import Aggregate, Filter, Join, Plan, Words
from nl2sparql.errors import ArtifactError
from nl2sparql.modules.rank_features import (FEATURES_VERSION, _index, answer_size, later_agreement_tokens,
                                             pair_features)
from nl2sparql.modules.ranker import Ranker
from nl2sparql.retrieval.signals import Signals

FEAR = Plan(words=Words(pos=("noun",)), joins=(Join("elita", emotions=("Paura",)),))
FEAR_NOT_SICILIAN = dataclasses.replace(FEAR, joins=(*FEAR.joins, Join("sicilian", mode="absent")))
FEAR_AND_SICILIAN = dataclasses.replace(FEAR, joins=(*FEAR.joins, Join("sicilian")))


def _features(plan, signals, version, rows=3, question="Quali nomi esprimono paura in ELITA?"):
    return pair_features(question, signals, plan, rank=0, rows=rows, boolean=None, version=version)


def test_the_answer_size_is_a_token_of_version_2_only():
    signals = Signals(pos=("noun",), emotions=("Paura",), resources=("elita",))
    few, many = _features(FEAR, signals, 2, rows=2), _features(FEAR, signals, 2, rows=523)
    assert set(few.sparse) != set(many.sparse)
    assert _index("rows:2-5") in few.sparse and _index("rows:201+") in many.sparse
    assert _index("q|quali|rows:2-5") in few.sparse  # crossed with the question's words
    old_few, old_many = _features(FEAR, signals, 1, rows=2), _features(FEAR, signals, 1, rows=523)
    assert set(old_few.sparse) == set(old_many.sparse)  # version 1 saw rows only as dense features
    assert set(old_few.sparse) < set(few.sparse) and old_few.dense == few.dense
    assert [answer_size(r, None) for r in (0, 1, 5, 30, 200, 201)] == \
        ["rows:0", "rows:1", "rows:2-5", "rows:6-30", "rows:31-200", "rows:201+"]
    assert answer_size(0, False) == "rows:ask"


def test_a_negated_resource_agrees_with_a_plan_that_leaves_it_out():
    signals = Signals(pos=("noun",), emotions=("Paura",), resources=("elita", "sicilian"), lacking=("sicilian",))
    assert "agree:lacking:all" in later_agreement_tokens(FEAR_NOT_SICILIAN, signals)
    assert "agree:lacking:none" in later_agreement_tokens(FEAR_AND_SICILIAN, signals)
    question = "Quali nomi di paura non hanno traduzione siciliana?"
    right, wrong = (_features(p, signals, 2, question=question) for p in (FEAR_NOT_SICILIAN, FEAR_AND_SICILIAN))
    assert _index("a|agree:lacking:all") in right.sparse and _index("a|agree:lacking:all") not in wrong.sparse


def test_an_inclusive_bound_is_told_from_a_strict_one():
    counted = Plan(words=Words(pos=("verb",)), joins=(Join("parmigiano"),), columns=("italianWord",),
                   operator="group", aggregates=(Aggregate("count", "parmigianoEntry", "count", distinct=True),),
                   having=Filter("count", "number", 5, op=">"))
    at_least = dataclasses.replace(counted, having=Filter("count", "number", 5, op=">="))
    signals = Signals(pos=("verb",), resources=("parmigiano",), numbers=(5.0,), comparison=">=", inclusive=True)
    assert "agree:inclusive:True:strict" in later_agreement_tokens(counted, signals)
    assert "agree:inclusive:True:inclusive" in later_agreement_tokens(at_least, signals)


def test_a_ranker_keeps_its_features_version_and_an_unknown_one_is_refused():
    assert FEATURES_VERSION == 2
    trained_on_1 = dataclasses.replace(Ranker.zeros(), features_version=1, none=0.5)
    again = Ranker.from_bytes(trained_on_1.to_bytes())
    assert again.features_version == 1 and again.none == pytest.approx(0.5)
    assert Ranker.from_bytes(Ranker.zeros().to_bytes()).features_version == FEATURES_VERSION
    unknown = dataclasses.replace(Ranker.zeros(), features_version=99)
    with pytest.raises(ArtifactError, match="other features"):
        Ranker.from_bytes(unknown.to_bytes())


def test_a_ranker_trained_on_version_2_scores_the_answer_size():
    from nl2sparql.optimize.ranker.train import FeaturedList, TrainConfig, train

    signals = Signals(pos=("noun",), emotions=("Paura",), resources=("elita",))
    # the same plan twice: only the answer's size tells the right one (two rows) from the wrong (five hundred)
    lists = [FeaturedList(f"k{i}", [_features(FEAR, signals, 2, rows=2), _features(FEAR, signals, 2, rows=523)],
                          np.array([1, 0]), [1, 0]) for i in range(8)]
    ranker = train(lists, TrainConfig(epochs=5, learning_rate=0.1))
    assert ranker.features_version == 2
    scores = ranker.scores(lists[0].features)
    assert scores[0] > scores[1], scores


def test_the_lists_are_keyed_by_the_code_that_makes_them(tmp_path):
    from nl2sparql.artifacts.code import code_fingerprint, lists_fingerprint

    (tmp_path / "modules").mkdir()
    (tmp_path / "retrieval").mkdir()
    (tmp_path / "modules" / "rank_features.py").write_text("V = 1\n")
    (tmp_path / "retrieval" / "enumerate.py").write_text("E = 1\n")
    code, lists = code_fingerprint(tmp_path), lists_fingerprint(tmp_path)
    (tmp_path / "modules" / "rank_features.py").write_text("V = 2\n")  # new features: the same lists
    assert lists_fingerprint(tmp_path) == lists and code_fingerprint(tmp_path) != code
    (tmp_path / "modules" / "local_lm.py").write_text("L = 2\n")  # another LM engine: the same lists
    assert lists_fingerprint(tmp_path) == lists and code_fingerprint(tmp_path) != code
    (tmp_path / "retrieval" / "enumerate.py").write_text("E = 2\n")  # another enumerator: other lists
    assert lists_fingerprint(tmp_path) != lists
    lists = lists_fingerprint(tmp_path)
    (tmp_path / "optimize" / "ranker").mkdir(parents=True)
    (tmp_path / "optimize" / "ranker" / "examples.py").write_text("B = 2\n")  # another list builder: other lists
    assert lists_fingerprint(tmp_path) != lists
