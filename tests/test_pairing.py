"""Paired versions (`nl2sparql artifacts pair`): one version answers questions asked alone and first turns, another
one's adapter writes the follow-ups; both adapters checked, one base model, nothing retrained."""

from __future__ import annotations

import json

import dspy
import pytest
from click.testing import CliRunner
from dspy.utils.dummies import DummyLM

from nl2sparql.artifacts.load import load_from_folder
from nl2sparql.artifacts.pairing import pair_versions
from nl2sparql.artifacts.store import open_version, versions, write_version
from nl2sparql.errors import ArtifactError
from nl2sparql.modules.adapter import ADAPTER_FILE, FOLLOWUP_ADAPTER_FILE, file_sha256
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime
from nl2sparql.paths import ARTIFACTS_ENV

from test_conversation import SADNESS, SADNESS_COUNT

SETTINGS = {"compact_prompt": True, "use_examples": False, "followup_mode": "rewrite"}


def fine_tuned(root, tmp_path, payload: bytes, base: str = "qwen-1.5b", instructions: str = "Write LiITA SPARQL.",
               settings: dict = SETTINGS):
    """A version the way a fine-tune writes one: program, manifest with its adapter entry, the adapter file."""
    source = tmp_path / f"adapter-{payload.hex()[:8]}.gguf"
    source.write_bytes(payload)
    program = NL2SPARQL(runtime=Runtime())
    program.generate.predict.signature = program.generate.predict.signature.with_instructions(instructions)
    manifest = {"parent": None, "created_at": "2026-11-27T06:00:00+00:00", "optimizer": "finetune",
                "lm": f"local/{base}", "dataset_hash": "abc", "program_settings": settings, "mlflow_run_id": "run",
                "adapter": {"file": ADAPTER_FILE, "sha256": file_sha256(source), "base_model": base,
                            "format": "gguf-lora"}}
    return write_version(program, manifest, root, {ADAPTER_FILE: source})


def test_a_pair_holds_the_first_program_and_adapter_and_the_second_adapter_for_follow_ups(tmp_path):
    root = tmp_path / "artifacts"
    first = fine_tuned(root, tmp_path, b"first adapter", instructions="first")
    second = fine_tuned(root, tmp_path, b"chat adapter", instructions="second")
    paired = pair_versions("v1", "v2", root)
    assert paired.name == "v3" and versions(root) == ["v1", "v2", "v3"]
    manifest = open_version("v3", root).manifest
    assert manifest["parent"] == "v1" and manifest["paired"] == {"first": "v1", "followup": "v2"}
    assert manifest["program_settings"] == {**SETTINGS, "followup_mode": "chat"}
    assert manifest["adapter"] == first.manifest["adapter"] and manifest["mlflow_run_id"] is None
    assert manifest["followup_adapter"]["sha256"] == second.manifest["adapter"]["sha256"]
    assert manifest["followup_adapter"]["file"] == FOLLOWUP_ADAPTER_FILE and "v2's adapter" in manifest["note"]
    assert (paired.path / ADAPTER_FILE).read_bytes() == b"first adapter"
    assert (paired.path / FOLLOWUP_ADAPTER_FILE).read_bytes() == b"chat adapter"
    assert json.loads(paired.program_file.read_text()) == json.loads(first.program_file.read_text())
    # Loaded for the local model, each adapter gets its own engine; nothing loads before the first question.
    program = load_from_folder(paired.path, runtime=Runtime())
    assert program.generate.predict.lm.model == f"local/qwen-1.5b+lora-{manifest['adapter']['sha256'][:8]}"
    assert program.followup_lm.model == f"local/qwen-1.5b+lora-{manifest['followup_adapter']['sha256'][:8]}"
    assert program.settings.followup_mode == "chat"
    # A fake LM passed on purpose is used as it is, for every turn.
    fake = DummyLM([{"sparql": SADNESS}])
    assert load_from_folder(paired.path, runtime=Runtime(), lm_object=fake).followup_lm is None


def test_pairing_refuses_what_would_not_run_and_writes_nothing(tmp_path):
    root = tmp_path / "artifacts"
    fine_tuned(root, tmp_path, b"one")
    fine_tuned(root, tmp_path, b"small", base="qwen-0.5b")
    write_version(NL2SPARQL(runtime=Runtime()), {"parent": None, "created_at": "2026-11-27", "optimizer": "none",
                                                 "lm": "local/qwen-1.5b", "dataset_hash": "abc"}, root)
    with pytest.raises(ArtifactError, match="one base model"):
        pair_versions("v1", "v2", root)
    with pytest.raises(ArtifactError, match="v3 has no adapter"):
        pair_versions("v1", "v3", root)
    with pytest.raises(ArtifactError, match="unknown version 'v9'"):
        pair_versions("v1", "v9", root)
    (root / "v1" / ADAPTER_FILE).write_bytes(b"edited")
    with pytest.raises(ArtifactError, match="checksum"):
        pair_versions("v3", "v1", root)
    assert versions(root) == ["v1", "v2", "v3"] and not [p for p in root.iterdir() if p.name.startswith(".")]


def test_the_follow_up_lm_writes_and_repairs_follow_ups_and_nothing_else(endpoint):
    own = DummyLM([{"sparql": SADNESS}])
    dspy.configure(lm=own)
    settings = ProgramSettings(examples_k=0, ontology_k=0, ground_entities=False, followup_mode="chat",
                               compact_prompt=True)
    program = NL2SPARQL(settings, Runtime(endpoint=endpoint))
    program.followup_lm = DummyLM([{"sparql": "SELECT ?n WHERE {"}, {"sparql": SADNESS_COUNT}])
    chat = program.conversation()
    first = chat.ask("Quali parole ELITA esprimono tristezza?")
    second = chat.ask("E quante sono?")
    assert first.rows and second.rows == [("66",)] and second.built_on == 0
    assert [a.step for a in second.attempts] == ["generate", "repair"]  # both by the follow-up LM
    assert len(own.history) == 1 and len(program.followup_lm.history) == 2
    assert [m["role"] for m in program.followup_lm.history[0]["messages"]] == ["system", "user", "assistant", "user"]


def test_artifacts_pair_on_the_command_line(tmp_path, monkeypatch):
    from nl2sparql.cli import main

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    fine_tuned(root, tmp_path, b"one")
    fine_tuned(root, tmp_path, b"two")
    out = CliRunner().invoke(main, ["artifacts", "pair", "v1", "v2"])
    assert out.exit_code == 0 and out.output.startswith("v3: v1 for questions asked alone, v2's adapter")
    out = CliRunner().invoke(main, ["artifacts", "pair", "v1", "v7", "--json"])
    assert out.exit_code == 2 and "unknown version 'v7'" in out.output and versions(root) == ["v1", "v2", "v3"]


def test_followup_mode_none_trains_single_questions_only(monkeypatch):
    """`--followup-mode none` builds a fine-tune with no follow-up examples (the version to pair with another's
    follow-up adapter); the program it writes keeps the rewrite default."""
    from nl2sparql.cli import main
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.optimize.finetune import job

    seen = []

    def stop(config, **_):
        seen.append(config)
        raise Nl2SparqlError("stopped before training")

    monkeypatch.setattr(job, "run_finetune", stop)
    args = ["optimize", "run", "--optimizer", "finetune", "--lm", "local/qwen-0.5b", "--followup-mode"]
    assert "stopped before training" in CliRunner().invoke(main, [*args, "none"]).output
    assert "stopped before training" in CliRunner().invoke(main, [*args, "chat"]).output
    assert [(c.followups, c.followup_mode) for c in seen] == [(False, "rewrite"), (True, "chat")]
