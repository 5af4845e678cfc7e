"""The ranker over enumerated plans: it trains on lists built on the test KB and then prefers the gold plan over a
one-block negative; the choice answers with a plan only above its thresholds and falls back to the generator
otherwise; a version with a ranker saves, loads, and refuses a tampered ranker."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.data.plans.model import Aggregate, Join, Plan, Words
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.rank_features import pair_features
from nl2sparql.modules.ranker import Ranker
from nl2sparql.modules.runtime import Runtime
from nl2sparql.paths import ARTIFACTS_ENV
from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons
from nl2sparql.retrieval.signals import read_signals, signals_from_json, signals_to_json

from conftest import PREFIXES

SADNESS_VERBS = Plan(words=Words(pos=("verb",)), joins=(Join("elita", emotions=("Tristezza",)),), columns=(),
                     operator="count", aggregates=(Aggregate("count", "lemma", "count", distinct=True),))
LIST_INSTEAD = dataclasses.replace(SADNESS_VERBS, operator="list", columns=("italianWord",), aggregates=())


@pytest.fixture(scope="module")
def lexicons(endpoint):
    return Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)


@pytest.fixture(scope="module")
def trained_lists(kb_store, endpoint, lexicons):
    """Lists for a few questions whose answers are counts or lists, made by the real enumerator on the test KB."""
    from nl2sparql.data.dataset import AnswerVariables
    from nl2sparql.optimize.ranker.examples import Question, build_list
    from nl2sparql.optimize.ranker.train import featurize
    from nl2sparql.retrieval.enumerate import enumeration_endpoint
    from nl2sparql.data.plans.compile import compile_plan

    asks = [("Quanti nomi esprimono gioia in ELITA?", Plan(words=Words(pos=("noun",)), joins=(
        Join("elita", emotions=("Gioia",)),), columns=(), operator="count",
        aggregates=(Aggregate("count", "lemma", "count", distinct=True),)), ("count",)),
        ("Quali aggettivi esprimono paura in ELITA?", Plan(words=Words(pos=("adjective",)), joins=(
            Join("elita", emotions=("Paura",)),)), ("italianWord",)),
        ("Quanti verbi esprimono rabbia in ELITA?", Plan(words=Words(pos=("verb",)), joins=(
            Join("elita", emotions=("Rabbia",)),), columns=(), operator="count",
            aggregates=(Aggregate("count", "lemma", "count", distinct=True),)), ("count",)),
        ("Quali nomi esprimono tristezza in ELITA?", Plan(words=Words(pos=("noun",)), joins=(
            Join("elita", emotions=("Tristezza",)),)), ("italianWord",))]
    lists = []
    with enumeration_endpoint(kb_store) as fast:
        for i, (text, gold, answer) in enumerate(asks):
            q = Question(f"t{i}:it", "train", text, compile_plan(gold), AnswerVariables(answer=answer))
            lists.append(featurize(build_list(q, endpoint, fast, *lexicons)))
    return lists


def test_the_ranker_learns_to_prefer_the_gold_plan_over_a_one_block_negative(trained_lists, lexicons):
    from nl2sparql.optimize.ranker.train import TrainConfig, trainable, train

    assert len(trainable(trained_lists)) >= 3  # each list has the gold's answer and some other
    question = "Quanti verbi esprimono tristezza in ELITA?"
    signals = read_signals(question, *lexicons)
    gold, negative = (pair_features(question, signals, p, rank=r, rows=1 if p is SADNESS_VERBS else 9, boolean=None)
                      for p, r in ((SADNESS_VERBS, 1), (LIST_INSTEAD, 0)))
    untrained = Ranker.zeros().scores([gold, negative])
    assert untrained[0] == untrained[1]
    ranker = train(trained_lists, TrainConfig(epochs=6, learning_rate=0.1))
    scores = ranker.scores([gold, negative])
    assert scores[0] > scores[1], scores  # the count the question asks for, though the enumerator listed first
    assert ranker.none is not None and ranker.probabilities(scores * 0).sum() < 1.0  # "none of these" has a share


def test_none_of_these_leaves_a_list_of_wrong_candidates_unsure(trained_lists):
    from nl2sparql.optimize.ranker.train import TrainConfig, train

    wrong_only = [dataclasses.replace(x, features=[f for f, y in zip(x.features, x.labels) if not y],
                                      labels=x.labels[x.labels == 0]) for x in trained_lists]
    assert all(x.none_right for x in wrong_only) and any(x.features for x in wrong_only)
    ranker = train(wrong_only, TrainConfig(epochs=6, learning_rate=0.1))
    for x in wrong_only:
        if x.features:
            assert ranker.probabilities(ranker.scores(x.features)).max() < 0.5  # the generator would answer


def test_an_ensemble_scores_the_mean_of_its_members_and_checkpoints_each(trained_lists, tmp_path):
    import numpy as np

    from nl2sparql.optimize.ranker.train import TrainConfig, train, train_ensemble

    config = TrainConfig(epochs=3, learning_rate=0.1, seed=13)
    members = [train(trained_lists, dataclasses.replace(config, seed=s)) for s in (13, 7)]
    assert not np.array_equal(members[0].sparse, members[1].sparse)  # the seeds' shuffles differ
    checkpoint = tmp_path / "checkpoint-13.pt"
    ensemble = train_ensemble(trained_lists, config, (7,), checkpoint)
    assert checkpoint.is_file() and (tmp_path / "checkpoint-13-s7.pt").is_file()
    assert ensemble.info["members"] == 2 and ensemble.info["seeds"] == [13, 7]
    for x in trained_lists:
        mean = (members[0].scores(x.features) + members[1].scores(x.features)) / 2
        assert np.allclose(ensemble.scores(x.features), mean, atol=1e-5)
    assert ensemble.none == pytest.approx((members[0].none + members[1].none) / 2, abs=1e-6)
    assert Ranker.from_bytes(ensemble.to_bytes()).info["seeds"] == [13, 7]  # the version's file says so
    assert train_ensemble(trained_lists, config).info.get("members") is None  # no seeds: one ranker, as before


def test_signals_and_plans_survive_json(lexicons):
    from nl2sparql.data.plans.codec import plan_from_json, plan_to_json

    s = read_signals("Quali aggettivi che finiscono in -oso esprimono paura?", *lexicons)
    assert signals_from_json(json.loads(json.dumps(signals_to_json(s)))) == s
    assert plan_from_json(json.loads(json.dumps(plan_to_json(SADNESS_VERBS)))) == SADNESS_VERBS


def _program(endpoint, answers, **settings):
    lm = DummyLM([{"sparql": a} for a in answers])
    dspy.configure(lm=lm)
    options = {"examples_k": 0, "ontology_k": 0, "ground_entities": False, "check_scope": False, "rank": True,
               **settings}
    program = NL2SPARQL(ProgramSettings(**options), Runtime(endpoint=endpoint))
    program.ranker = Ranker.zeros()  # every candidate equally likely: the thresholds decide
    return program, lm


GENERATED = PREFIXES + ('SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } '
                        '}')
QUESTION = "Quanti verbi esprimono tristezza in ELITA?"


def test_a_plan_answers_without_the_generator_when_it_clears_the_accept_threshold(endpoint):
    program, lm = _program(endpoint, [GENERATED], rank_accept=0.0)
    out = program(QUESTION)
    assert lm.history == [] and out.choice["answered_by"] == "plan" and out.choice["reason"] == "confident"
    assert out.ok and out.attempts[-1].step == "plan" and out.sparql == next(
        c["sparql"] for c in out.candidates if c["chosen"])
    assert out.choice["reading"]


def test_the_generator_answers_when_no_candidate_clears_the_threshold(endpoint):
    program, lm = _program(endpoint, [GENERATED], rank_accept=1.01, rank_fallback=1.01)
    out = program(QUESTION)
    assert len(lm.history) == 1 and out.choice["answered_by"] == "generator" and out.choice["reason"] == "generator"
    assert "casa" in out.sparql and not any(c["chosen"] for c in out.candidates) and len(out.candidates) > 1


def test_a_candidate_the_generator_agrees_with_answers(endpoint):
    from nl2sparql.data.plans.compile import compile_plan

    program, lm = _program(endpoint, [compile_plan(SADNESS_VERBS)], rank_accept=1.01, rank_fallback=1.01)
    out = program(QUESTION)
    assert len(lm.history) == 1 and out.choice == {**out.choice, "answered_by": "plan", "reason": "generator agrees"}
    chosen = next(c for c in out.candidates if c["chosen"])
    assert "count" in chosen["text"] and "Tristezza" in chosen["text"] and len(out.rows) == 1


def test_the_best_candidate_answers_when_the_generator_gives_no_answer(endpoint):
    broken = PREFIXES + "SELECT ?lemma WHERE { ?lemma ontolex:writtenRep "  # does not parse, nor does its repair
    program, lm = _program(endpoint, [broken] * 4, rank_accept=1.01, rank_fallback=1.01)
    out = program(QUESTION)
    assert lm.history and out.choice == {**out.choice, "answered_by": "plan", "reason": "generator failed"}
    assert out.ok and out.sparql == next(c["sparql"] for c in out.candidates if c["chosen"])


def _ranker_version(root, ranker_bytes):
    from nl2sparql.artifacts.store import open_shipped, write_version

    shipped = open_shipped()
    staged = root.parent / "ranker.npz"
    staged.write_bytes(ranker_bytes)
    manifest = {**shipped.manifest, "parent": shipped.name, "optimizer": "ranker",
                "program_settings": {**shipped.manifest["program_settings"], "rank": True, "rank_accept": 0.7},
                "ranker": {"file": "ranker.npz", "sha256": hashlib.sha256(ranker_bytes).hexdigest()}}
    files = {"program.json": shipped.path / "program.json", "ranker.npz": staged}
    manifest.pop("adapter", None)
    manifest.pop("followup_adapter", None)
    return write_version(None, manifest, root, files=files)


def test_a_version_with_a_ranker_loads_it_and_refuses_a_tampered_one(kb_store, tmp_path, monkeypatch):
    import nl2sparql
    from nl2sparql.errors import ArtifactError

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    ranker = Ranker.zeros()
    ranker.sparse[7] = 1.5
    version = _ranker_version(root, ranker.to_bytes())
    with nl2sparql.load(version.name, store=kb_store, lm_object=DummyLM([])) as program:
        assert program.ranker is not None and program.ranker.sparse[7] == 1.5
        assert program.settings.rank and program.settings.rank_accept == 0.7
    path = version.path / "ranker.npz"
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="checksum"):
        nl2sparql.load(version.name, store=kb_store, lm_object=DummyLM([]))
    path.unlink()
    with pytest.raises(ArtifactError, match="missing"):
        nl2sparql.load(version.name, store=kb_store, lm_object=DummyLM([]))


def test_optimize_run_ranker_writes_a_version_that_ranks_and_resumes_from_its_lists(kb_store, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from nl2sparql.artifacts.code import lists_fingerprint
    from nl2sparql.cli import main
    from nl2sparql.paths import HOME_ENV

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path / "artifacts"))
    args = ["optimize", "run", "--optimizer", "ranker", "--from", "latest", "--train-limit", "3", "--dev-limit", "2",
            "--epochs", "2", "--negatives", "--store", str(kb_store), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.output[result.output.index("{"):])
    assert manifest["optimizer"] == "ranker" and manifest["parent"] == "v37" and manifest["program_settings"]["rank"]
    folder = tmp_path / "artifacts" / manifest["version"]
    assert hashlib.sha256((folder / "ranker.npz").read_bytes()).hexdigest() == manifest["ranker"]["sha256"]
    assert (folder / "adapter.gguf").is_file() and manifest["ranker"]["training"]["lists"] == {"train": 6, "dev": 2}
    lists = next((tmp_path / "home" / "ranker").iterdir())
    made = {name: (lists / f"{name}.jsonl").read_text() for name in ("train", "dev")}
    assert len(made["train"].splitlines()) == 6 and all("negatives" in json.loads(line)
                                                         for line in made["train"].splitlines())
    again = CliRunner().invoke(main, [*args, "--resume"])
    assert again.exit_code == 0, again.output
    assert {name: (lists / f"{name}.jsonl").read_text() for name in ("train", "dev")} == made  # lists reused
    assert json.loads(again.output[again.output.index("{"):])["version"] != manifest["version"]
    assert lists.name.endswith(lists_fingerprint())  # lists are named by the code that enumerated them
    assert manifest["ranker"]["training"]["features_version"] == 2
    monkeypatch.setattr("nl2sparql.artifacts.code.lists_fingerprint", lambda: "another-enumerator")
    third = CliRunner().invoke(main, [*args, "--resume", "--dev-limit", "1", "--ensemble", "7"])
    assert third.exit_code == 0, third.output
    fresh = [p for p in (tmp_path / "home" / "ranker").iterdir() if p.name.endswith("-another-enumerator")]
    assert len(fresh) == 1 and len((fresh[0] / "train.jsonl").read_text().splitlines()) == 6  # built anew
    ensembled = json.loads(third.output[third.output.index("{"):])["ranker"]["training"]
    assert ensembled["ensemble"] == [7] and ensembled["seeds"] == [13, 7] and ensembled["members"] == 2
    assert (fresh[0] / "checkpoint-13-s7.pt").is_file()
    bad = CliRunner().invoke(main, [*args, "--ensemble", "7,x"])
    assert bad.exit_code == 2 and "comma-separated" in bad.output


def test_thresholds_replay_the_choice_and_prefer_the_faster_of_equals():
    import numpy as np

    from nl2sparql.optimize.ranker.thresholds import DevQuestion, choose, replay

    sure_right = DevQuestion(np.array([0.95, 0.01]), np.array([1, 0]), generator_right=False, agreeing=None)
    sure_wrong = DevQuestion(np.array([0.92, 0.01]), np.array([0, 1]), generator_right=True, agreeing=None)
    agrees = DevQuestion(np.array([0.5, 0.3]), np.array([0, 1]), generator_right=True, agreeing=1)
    unsure = DevQuestion(np.array([0.45, 0.2]), np.array([1, 0]), generator_right=False, agreeing=None)
    questions = [sure_right, sure_wrong, agrees, unsure]
    assert replay(questions, 1.01, 1.01) == (0.5, 0.0)  # the generator alone: right on two
    assert replay(questions, 0.9, 0.9) == (0.5, 0.5)  # one sure candidate right, one wrong, both skip it
    assert replay(questions, 0.95, 0.4) == (0.75, 0.25)  # the sure wrong one now answers after the generator
    assert replay(questions, 0.95, 0.95) == (0.75, 0.25)  # the unsure right one is left to the generator
    failed = DevQuestion(np.array([0.45, 0.2]), np.array([1, 0]), generator_right=False, agreeing=None,
                         generator_failed=True)
    assert replay([unsure, failed], 0.95, 0.95) == (0.5, 0.0)  # a generator with no answer leaves it to the top
    accept, fallback, right, skipped = choose(questions * 4)  # 16 questions: "within one" is within 1/16
    assert (right, skipped) == (0.75, 0.5) and accept <= 0.9 and fallback <= 0.45  # as right, and faster
    # Asked to answer at least three in four from plans alone, it gives up a question's worth of accuracy for it.
    accept, fallback, right, skipped = choose(questions * 4, plan_share=0.75)
    assert skipped >= 0.75 and right == 0.5 and accept <= 0.5
    never_sure = DevQuestion(np.array([0.2, 0.1]), np.array([1, 0]), generator_right=True, agreeing=None)
    # No pair reaches the share (a question no threshold of the grid accepts): the rule falls back to every pair.
    assert choose([*questions, never_sure] * 4, plan_share=1.0)[:2] == choose([*questions, never_sure] * 4)[:2]


def test_paraphrase_lists_keep_their_record_gold_and_a_key_of_their_own():
    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.optimize.ranker.examples import paraphrase_questions, questions_of

    records = [r for r in load_dataset() if r.split == "train" and r.paraphrases][:5]
    assert records, "train has curated paraphrases"
    asked = paraphrase_questions(records, "paraphrases")
    assert len(asked) == sum(len(texts) for r in records for texts in r.paraphrases.values())
    by_id = {r.id: r for r in records}
    for q in asked:
        record_id, lang, _ = q.key.split(":")
        assert q.sparql == by_id[record_id].sparql and q.question in by_id[record_id].paraphrases[lang]
    assert not {q.key for q in asked} & {q.key for q in questions_of(records, "train")}


def test_outside_pairs_split_in_two_stable_halves_and_only_the_design_half_trains(kb_store, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from nl2sparql.cli import main
    from nl2sparql.data.outside import outside_half, read_outside
    from nl2sparql.paths import HOME_ENV

    source = Path(__file__).resolve().parent.parent / "bench" / "outside" / "round4"
    records = read_outside(source, "all")
    design, check = read_outside(source, "design"), read_outside(source, "check")
    assert len(design) + len(check) == len(records) and design and check
    assert {r.id for r in design}.isdisjoint({r.id for r in check})
    assert all(outside_half(r.id) == "design" for r in design)  # the half is a property of the id alone
    lines = [line for file in sorted(source.glob("*.jsonl")) for line in file.read_text().splitlines()[:2]]
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(lines) + "\n")
    wanted = {json.loads(line)["id"] for line in lines if outside_half(json.loads(line)["id"]) == "design"}
    assert wanted and len(wanted) < len(lines)
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path / "artifacts"))
    result = CliRunner().invoke(main, ["optimize", "run", "--optimizer", "ranker", "--from", "latest",
                                       "--train-limit", "1", "--dev-limit", "1", "--epochs", "1", "--outside",
                                       str(small), "--store", str(kb_store), "--json"])
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.output[result.output.index("{"):])
    assert manifest["ranker"]["training"]["lists"]["outside"] == 2 * len(wanted)  # Italian and English
    built = next((tmp_path / "home" / "ranker").iterdir()) / "outside.jsonl"
    assert {json.loads(line)["key"].split(":")[0] for line in built.read_text().splitlines()} == wanted
    missing = CliRunner().invoke(main, ["optimize", "run", "--optimizer", "ranker", "--outside",
                                        str(tmp_path / "nowhere.jsonl")])
    assert missing.exit_code != 0 and "nowhere.jsonl" in missing.output



def test_thresholds_chosen_with_the_check_half_ask_the_generator_where_others_wordings_need_it():
    import numpy as np

    from nl2sparql.optimize.ranker.thresholds import DevQuestion, choose

    # Dev: the sure candidate is right, the generator wrong. The check half: as sure, wrong, and the generator's
    # answer is another candidate's (it agrees with the right one).
    dev = [DevQuestion(np.array([0.95, 0.01]), np.array([1, 0]), generator_right=False, agreeing=None)] * 8
    check = [DevQuestion(np.array([0.95, 0.01]), np.array([0, 1]), generator_right=True, agreeing=1)] * 6
    accept, _, right, skipped = choose(dev)
    assert accept <= 0.95 and right == 1.0 and skipped == 1.0  # on dev alone the sure candidate answers alone
    accept, _, right, skipped = choose([*dev, *check])
    assert accept == 1.01 and right == 1.0 and skipped == 0.0  # with the check half the generator is always asked


def test_optimize_run_ranker_chooses_thresholds_on_a_report_of_the_outside_check_half(kb_store, tmp_path,
                                                                                      monkeypatch):
    from click.testing import CliRunner

    from nl2sparql.cli import main
    from nl2sparql.data.outside import outside_half
    from nl2sparql.paths import HOME_ENV

    root = Path(__file__).resolve().parent.parent
    lines = [line for line in (root / "bench" / "outside" / "round4" / "absence.jsonl").read_text().splitlines()]
    records = [json.loads(line) for line in lines]
    check = [r for r in records if outside_half(r["id"]) == "check"][:2]
    design = next(r for r in records if outside_half(r["id"]) == "design")
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(json.dumps(r) for r in [*check, design]) + "\n")
    report = tmp_path / "check-report.json"
    report.write_text(json.dumps({"split": str(tmp_path / "check.jsonl"), "questions": [
        {"id": check[0]["id"], "language": "it", "exact": True, "valid": True, "sparql": check[0]["sparql"]},
        {"id": check[1]["id"], "language": "en", "exact": False, "valid": False, "sparql": ""}]}))
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path / "artifacts"))
    dev = root / "bench" / "eval-runs" / "v14" / "reports" / "dev-local-qwen-1.5b-lora-9d9696e8-ad886cbe2b.json"
    args = ["optimize", "run", "--optimizer", "ranker", "--from", "latest", "--train-limit", "1", "--dev-limit", "2",
            "--epochs", "1", "--dev-report", str(dev), "--store", str(kb_store), "--json"]
    result = CliRunner().invoke(main, [*args, "--outside", str(small), "--check-report", str(report)])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output[result.output.index("{"):])["ranker"]["dev"]
    assert figures["check_questions"] == 2 and figures["check_parent_right"] == 0.5
    assert 0.0 <= figures["check_replayed"] <= 1.0
    built = next((tmp_path / "home" / "ranker").iterdir()) / "outside-check-eval.jsonl"
    assert {json.loads(line)["key"] for line in built.read_text().splitlines()} == {f"{check[0]['id']}:it",
                                                                                  f"{check[1]['id']}:en"}
    alone = CliRunner().invoke(main, [*args, "--check-report", str(report)])
    assert alone.exit_code != 0 and "--outside" in alone.output
    report.write_text(json.dumps({"split": "x.jsonl", "questions": [{"id": design["id"], "language": "it"}]}))
    wrong = CliRunner().invoke(main, [*args, "--outside", str(small), "--check-report", str(report)])
    assert wrong.exit_code != 0 and design["id"] in wrong.output
