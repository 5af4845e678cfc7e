"""Adapter soups (`nl2sparql optimize soup`): the weighted mean of fine-tuned versions' LoRA updates, written as one
adapter of their summed rank; the first version's program; refusals write nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from nl2sparql.artifacts.store import open_version, versions, write_version
from nl2sparql.errors import ArtifactError
from nl2sparql.modules.adapter import ADAPTER_FILE, file_sha256
from nl2sparql.modules.program import NL2SPARQL
from nl2sparql.modules.runtime import Runtime
from nl2sparql.optimize.finetune.gguf_lora import AdapterTensors, read_adapter, write_adapter
from nl2sparql.optimize.finetune.soup import parse_weights, soup_tensors, soup_versions
from nl2sparql.paths import ARTIFACTS_ENV

LAYERS = ("blk.0.attn_q.weight", "blk.1.ffn_down.weight")


def update(adapter: AdapterTensors, layer: str) -> np.ndarray:
    """ΔW as llama.cpp applies it: alpha / rank · B A."""
    return adapter.alpha / adapter.rank * adapter.tensors[f"{layer}.lora_b"] @ adapter.tensors[f"{layer}.lora_a"]


def random_adapter(seed: int, rank: int, alpha: float) -> AdapterTensors:
    rng = np.random.default_rng(seed)
    tensors = {}
    for layer in LAYERS:
        tensors[f"{layer}.lora_a"] = rng.normal(size=(rank, 6)).astype(np.float32)
        tensors[f"{layer}.lora_b"] = rng.normal(size=(5, rank)).astype(np.float32)
    return AdapterTensors(tensors, alpha, rank)


def test_the_soup_applies_the_weighted_mean_of_the_updates():
    one, two, three = random_adapter(1, 2, 4.0), random_adapter(2, 3, 3.0), random_adapter(3, 1, 2.0)
    souped = soup_tensors([one, two, three], [0.5, 0.3, 0.2])
    assert souped.rank == 6 and souped.alpha == 6.0
    for layer in LAYERS:
        expected = 0.5 * update(one, layer) + 0.3 * update(two, layer) + 0.2 * update(three, layer)
        np.testing.assert_allclose(update(souped, layer), expected, rtol=1e-5, atol=1e-6)
    # Weights matter: the mean is not either adapter alone.
    assert not np.allclose(update(souped, LAYERS[0]), update(one, LAYERS[0]))


def test_adapters_of_other_layers_or_a_lone_adapter_make_no_soup():
    one = random_adapter(1, 2, 4.0)
    other = AdapterTensors({k.replace("blk.1", "blk.2"): v for k, v in one.tensors.items()}, 4.0, 2)
    with pytest.raises(ArtifactError, match="different layers"):
        soup_tensors([one, other], [0.5, 0.5])
    with pytest.raises(ArtifactError, match="two adapters or more"):
        soup_tensors([one], [1.0])


def test_weights_are_parsed_and_checked():
    assert parse_weights(None, 4) == [0.25] * 4
    assert parse_weights("0.7,0.3", 2) == [0.7, 0.3]
    for bad in ("0.5", "0.6,0.6", "1.5,-0.5", "half,half"):
        with pytest.raises(ArtifactError, match="--weights"):
            parse_weights(bad, 2)


def fine_tuned(root, tmp_path, seed: int, base: str = "qwen-1.5b", compact: bool = True, instructions: str = ""):
    """A version the way a fine-tune writes one, with a real (tiny) LoRA GGUF."""
    source = write_adapter(random_adapter(seed, 2, 4.0), tmp_path / f"adapter-{seed}.gguf", base_model=base,
                           dtype="f32")
    program = NL2SPARQL(runtime=Runtime())
    program.generate.predict.signature = program.generate.predict.signature.with_instructions(
        instructions or f"version {seed}")
    settings = {"compact_prompt": compact, "use_examples": False}
    manifest = {"parent": None, "created_at": "2026-11-27T06:00:00+00:00", "optimizer": "finetune",
                "lm": f"local/{base}", "dataset_hash": "abc", "program_settings": settings, "mlflow_run_id": "run",
                "settings_tried": {"without_demos": {"execution_accuracy": 0.5}},
                "adapter": {"file": ADAPTER_FILE, "sha256": file_sha256(source), "base_model": base,
                            "format": "gguf-lora", "training": {"examples": 3}}}
    return write_version(program, manifest, root, {ADAPTER_FILE: source})


def test_a_soup_version_holds_the_first_program_and_the_mean_adapter(tmp_path):
    root = tmp_path / "artifacts"
    first, second = fine_tuned(root, tmp_path, 1), fine_tuned(root, tmp_path, 2)
    souped = soup_versions(["v1", "v2"], [0.75, 0.25], root)
    assert souped.name == "v3" and versions(root) == ["v1", "v2", "v3"]
    manifest = open_version("v3", root).manifest
    assert manifest["parent"] == "v1" and manifest["mlflow_run_id"] is None and "settings_tried" not in manifest
    assert [(m["version"], m["weight"]) for m in manifest["soup"]] == [("v1", 0.75), ("v2", 0.25)]
    assert manifest["soup"][1]["sha256"] == second.manifest["adapter"]["sha256"]
    assert manifest["adapter"]["rank"] == 4 and "training" not in manifest["adapter"]
    assert manifest["adapter"]["sha256"] == file_sha256(souped.path / ADAPTER_FILE)
    assert manifest["program_settings"] == first.manifest["program_settings"] and "v1 × 0.75" in manifest["note"]
    assert json.loads(souped.program_file.read_text()) == json.loads(first.program_file.read_text())
    mean, base = read_adapter(souped.path / ADAPTER_FILE)
    ones, twos = (read_adapter(v.path / ADAPTER_FILE)[0] for v in (first, second))
    assert base == "qwen-1.5b"
    for layer in LAYERS:  # written as f16: equal to f16 precision
        expected = 0.75 * update(ones, layer) + 0.25 * update(twos, layer)
        np.testing.assert_allclose(update(mean, layer), expected, rtol=2e-2, atol=2e-2)


def test_a_soup_refuses_what_would_not_run_and_writes_nothing(tmp_path):
    root = tmp_path / "artifacts"
    fine_tuned(root, tmp_path, 1)
    fine_tuned(root, tmp_path, 2, base="qwen-0.5b")
    fine_tuned(root, tmp_path, 3, compact=False)
    write_version(NL2SPARQL(runtime=Runtime()), {"parent": None, "created_at": "2026-11-27", "optimizer": "none",
                                                 "lm": "local/qwen-1.5b", "dataset_hash": "abc"}, root)
    with pytest.raises(ArtifactError, match="one base model"):
        soup_versions(["v1", "v2"], root=root)
    with pytest.raises(ArtifactError, match="different prompts"):
        soup_versions(["v1", "v3"], root=root)
    with pytest.raises(ArtifactError, match="v4 has no adapter"):
        soup_versions(["v1", "v4"], root=root)
    with pytest.raises(ArtifactError, match="unknown version 'v9'"):
        soup_versions(["v1", "v9"], root=root)
    with pytest.raises(ArtifactError, match="two different versions"):
        soup_versions(["v1", "v1"], root=root)
    (root / "v3" / ADAPTER_FILE).write_bytes(b"edited")
    with pytest.raises(ArtifactError, match="checksum"):
        soup_versions(["v1", "v3"], root=root)
    assert versions(root) == ["v1", "v2", "v3", "v4"] and not [p for p in root.iterdir() if p.name.startswith(".")]


def test_the_command_writes_a_soup_and_says_so(tmp_path, monkeypatch):
    from nl2sparql.cli import main

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    fine_tuned(root, tmp_path, 1)
    fine_tuned(root, tmp_path, 2)
    out = CliRunner().invoke(main, ["optimize", "soup", "v1", "v2"])
    assert out.exit_code == 0 and out.output.startswith("v3: adapter soup v1 × 0.5 + v2 × 0.5, rank 4")
    out = CliRunner().invoke(main, ["optimize", "soup", "v1", "v2", "--weights", "0.9,0.3", "--json"])
    assert out.exit_code != 0 and "--weights needs 2 positive numbers" in out.output
    out = CliRunner().invoke(main, ["optimize", "soup", "v2", "v1", "--weights", "0.4,0.6", "--json"])
    assert out.exit_code == 0 and json.loads(out.output)["soup"][0] == {
        "version": "v2", "weight": 0.4, "sha256": open_version("v2", root).manifest["adapter"]["sha256"]}
    assert versions(root) == ["v1", "v2", "v3", "v4"]
