"""Compile with DummyLM answering gold queries: a loadable version, a complete manifest, an MLflow run."""

from __future__ import annotations

import json

import pytest
from dspy.utils.dummies import DummyLM

from nl2sparql.artifacts.store import open_version, versions
from nl2sparql.data.dataset import load_dataset
from nl2sparql.modules.program import ProgramSettings
from nl2sparql.optimize.compile import CompileConfig
from nl2sparql.optimize.run import PENDING, run_compile
from nl2sparql.paths import ARTIFACTS_ENV, HOME_ENV

FAST = ProgramSettings(examples_k=0, ontology_k=0)


def _gold_lm(records) -> DummyLM:
    answers = {}
    for r in records:
        answers[r.question_it] = {"sparql": r.sparql}
        answers[r.question_en] = {"sparql": r.sparql}
    return DummyLM(answers)


@pytest.fixture
def small(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    records = load_dataset()
    train = [r for r in records if r.split == "train" and "lemma_lookup" in r.patterns][:3]
    dev = [r for r in records if r.split == "dev" and "lemma_lookup" in r.patterns][:2]
    return train + dev


def test_compile_writes_a_loadable_version_with_a_complete_manifest(small, kb_store, tmp_path, monkeypatch):
    lm = _gold_lm(small)
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path / "artifacts"))
    config = CompileConfig(optimizer="bootstrap", budget="light", train_limit=None, dev_limit=2)
    root = tmp_path / "artifacts"
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    only = {r.id for r in small}
    import nl2sparql.optimize.compile as compile_module

    monkeypatch.setattr(compile_module, "load_dataset", lambda d=None: [r for r in load_dataset(d) if r.id in only])
    version, result = run_compile(config, store=kb_store, tracking_uri=uri, lm_object=lm, root=root,
                                  program_settings=FAST)
    assert versions(root) == ["v1"] and not (root / PENDING).exists()
    manifest = open_version("v1", root).manifest
    for key in ("version", "parent", "created_at", "optimizer", "optimizer_config", "lm", "dataset_hash",
                "split_sizes", "retriever", "kb_fingerprint", "code_version", "dev_scores", "mlflow_run_id"):
        assert manifest.get(key) is not None or key == "parent", key
    assert manifest["dev_scores"]["execution_accuracy"] == 1.0  # the dummy answers gold queries
    demos = result.program.generate.predict.demos
    assert len(demos) == 1 and set(dict(demos[0])) <= {"question", "analysis", "sparql"}
    saved = json.loads((version.path / "program.json").read_text())
    assert any(v.get("demos") for v in saved.values() if isinstance(v, dict))

    import mlflow

    mlflow.set_tracking_uri(uri)
    runs = mlflow.search_runs(experiment_names=["nl2sparql"])
    assert list(runs["run_id"]) == [manifest["mlflow_run_id"]]
    assert runs.iloc[0]["metrics.dev_execution_accuracy"] == 1.0
    assert runs.iloc[0]["artifact_uri"].startswith((tmp_path / "mlruns").resolve().as_uri())

    import nl2sparql

    loaded = nl2sparql.load("latest", store=kb_store, lm_object=lm, settings=FAST)
    try:
        assert len(loaded.generate.predict.demos) == 1
    finally:
        loaded.close()


def test_bad_budget_and_empty_split_are_clear_errors(kb_store, tmp_path):
    from nl2sparql.errors import DatasetError, Nl2SparqlError

    with pytest.raises(Nl2SparqlError, match="--budget"):
        CompileConfig(budget="lots").budget_level()
    config = CompileConfig(train_split="nonexistent")
    with pytest.raises(DatasetError, match="empty split"):
        run_compile(config, store=kb_store, tracking_uri=f"sqlite:///{tmp_path / 'm.db'}",
                    lm_object=DummyLM([]), root=tmp_path / "artifacts", program_settings=FAST)
    assert versions(tmp_path / "artifacts") == []


def test_interrupted_compile_leaves_no_version_and_can_be_resumed(kb_store, tmp_path, monkeypatch):
    import nl2sparql.optimize.run as run_module
    from nl2sparql.optimize.run import pending_config

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "compile_program", interrupted)
    root = tmp_path / "artifacts"
    config = CompileConfig(optimizer="mipro", budget="medium", train_limit=5)
    with pytest.raises(KeyboardInterrupt):
        run_compile(config, store=kb_store, tracking_uri=f"sqlite:///{tmp_path / 'm.db'}", lm_object=DummyLM([]),
                    root=root, program_settings=FAST)
    assert versions(root) == []
    assert pending_config(root) == config


def test_mipro_selects_on_held_out_train_records_never_on_dev(small, kb_store, monkeypatch):
    import nl2sparql.optimize.compile as compile_module
    from nl2sparql.optimize.compile import compile_program

    seen = {}

    class Recording:
        def compile(self, student, **kwargs):
            seen.update(kwargs)
            return student

    only = {r.id for r in small}
    monkeypatch.setattr(compile_module, "load_dataset", lambda d=None: [r for r in load_dataset(d) if r.id in only])
    monkeypatch.setattr(compile_module, "_optimizer", lambda *args: (Recording(), {}))
    config = CompileConfig(optimizer="mipro", budget="6", train_limit=2, val_limit=5, dev_limit=2)
    result = compile_program(config, lm_object=_gold_lm(small), store=kb_store, program_settings=FAST)
    train = [r.id for r in small if r.split == "train"]
    dev = {r.id for r in small if r.split == "dev"}
    assert [e.record_id for e in seen["trainset"]] == train[:2]
    assert [e.record_id for e in seen["valset"]] == train[2:] and not dev & {e.record_id for e in seen["valset"]}
    assert seen["minibatch"] is False and seen["num_trials"] == 6
    assert {q.id for q in result.dev.questions} == dev and result.lm_calls is None  # DummyLM counts nothing
