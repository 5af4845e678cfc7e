"""eval run on a follow-up split with DummyLM: every turn scored, first turns and follow-ups apart, in the gold,
own-history and naive (asked alone) modes; eval compare works on the reports."""

from __future__ import annotations

import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.data.chains import chains_of_split
from nl2sparql.errors import DatasetError
from nl2sparql.eval.comparison import compare_reports
from nl2sparql.eval.followup import followup_examples
from nl2sparql.eval.runner import run_eval
from nl2sparql.modules.program import ProgramSettings
from nl2sparql.paths import HOME_ENV


@pytest.fixture
def chain_run(kb_store, tmp_path, monkeypatch):
    """The first test chain, a DummyLM that rewrites each follow-up to its gold standalone question and
    answers each standalone question with its gold query, and run_eval's options."""
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    chain = chains_of_split("followup-test")[0]
    answers = {}
    for turn in chain.turns[1:]:
        answers[f"]]\n{turn.question}\n"] = {"standalone_question": turn.standalone}
    for turn in chain.turns:
        answers[f"]]\n{turn.standalone}\n"] = {"sparql": turn.sparql}
    lm = DummyLM(answers)
    options = dict(lm_object=lm, store=kb_store, root=tmp_path / "artifacts", limit=len(chain.turns), track=False,
                   settings=ProgramSettings(examples_k=0, ontology_k=0, max_repairs=0, ground_entities=False))
    return chain, lm, options


def test_gold_history_scores_every_turn_and_reports_follow_ups_apart(chain_run):
    chain, lm, options = chain_run
    report, _, _ = run_eval("static-rag", "followup-test", **options)
    assert [q.id for q in report.questions] == [chain.turn_id(i) for i in range(len(chain.turns))]
    assert all(q.exact for q in report.questions)
    groups = report.per_pattern()
    assert groups["turn:first"]["questions"] == 1 and groups["turn:follow-up"]["questions"] == len(chain.turns) - 1
    assert "turn:follow-up" in report.to_markdown()


def test_asked_alone_the_follow_ups_fail_and_compare_says_so(chain_run):
    chain, lm, options = chain_run
    gold, _, _ = run_eval("static-rag", "followup-test", **options)
    alone, _, _ = run_eval("zero-shot", "followup-test:alone", **options)
    assert [q.exact for q in alone.questions] == [True] + [False] * (len(chain.turns) - 1)
    comparison = compare_reports([alone, gold], allow_mismatch=True)
    assert comparison.per_pattern["turn:follow-up"] == {"zero-shot": 0.0, "static-rag": 1.0}
    assert len(comparison.tests[0].won) == len(chain.turns) - 1


def test_own_history_feeds_the_systems_own_turns(chain_run):
    chain, lm, options = chain_run
    report, path, _ = run_eval("static-rag", "followup-test:own", **options)
    assert all(q.exact for q in report.questions) and "followup-test-own" in path.name
    rewrite_prompts = [h["messages"][-1]["content"] for h in lm.history if "standalone_question" in
                       h["messages"][0]["content"]]
    assert len(rewrite_prompts) == len(chain.turns) - 1
    previous = [line for line in chain.turns[-2].sparql.splitlines() if len(line) > 20 and "PREFIX" not in line]
    assert previous and all(line in rewrite_prompts[-1] for line in previous)  # its own last query


def test_examples_carry_the_gold_history_and_unknown_modes_are_refused():
    examples = followup_examples("followup-dev")
    assert examples[0].history == () and len(examples[1].history) == 1
    with pytest.raises(DatasetError, match="history mode"):
        followup_examples("followup-dev:psychic")


def test_compare_keeps_one_version_in_two_modes_apart(chain_run):
    chain, lm, options = chain_run
    gold, _, _ = run_eval("static-rag", "followup-test", **options)
    alone, _, _ = run_eval("static-rag", "followup-test:alone", **options)
    comparison = compare_reports([gold, alone], allow_mismatch=True)
    names = [f"static-rag {gold.split}", f"static-rag {alone.split}"]  # the split as run: [:N] with a limit
    assert comparison.versions == names
    assert comparison.per_pattern["turn:follow-up"] == {names[0]: 1.0, names[1]: 0.0}
    assert comparison.overall[names[0]]["execution_accuracy"] == 1.0
    assert comparison.overall[names[1]]["execution_accuracy"] < 1.0
    assert len(comparison.tests[0].lost) == len(chain.turns) - 1 and not comparison.tests[0].won
    assert f"| pattern | {names[0]} | {names[1]} |" in comparison.to_markdown()
