"""A fine-tune that starts from an earlier version's adapter (`optimize run --optimizer finetune --from vN`): the
adapter GGUF read back into peft, the start refused when it does not fit, and checkpoints tied to their start."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace

import pytest
from test_finetune import FAST, _adapter_version, tiny_examples, tiny_model

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.optimize.finetune.gguf_lora import (from_peft_state, gguf_name, peft_name, read_adapter,
                                                    to_peft_state, write_adapter)
from nl2sparql.optimize.finetune.lora import train_lora, training_fingerprint
from nl2sparql.paths import ARTIFACTS_ENV


def test_peft_and_llama_cpp_names_map_both_ways():
    for name in ("base_model.model.model.layers.3.mlp.up_proj.lora_A.weight",
                 "base_model.model.model.layers.11.self_attn.o_proj.lora_B.weight"):
        assert peft_name(gguf_name(name)) == name
    with pytest.raises(ValueError):
        peft_name("output.weight.lora_a")


def test_an_adapter_read_back_is_the_one_written(tmp_path):
    import torch

    trained = train_lora(tiny_model(), tiny_examples() * 2, FAST, tmp_path / "work").state
    path = write_adapter(from_peft_state(trained, FAST.alpha, FAST.rank), tmp_path / "adapter.gguf",
                         base_model="qwen-0.5b")
    adapter, base = read_adapter(path)
    assert base == "qwen-0.5b" and adapter.rank == FAST.rank and adapter.alpha == pytest.approx(FAST.alpha)
    state = to_peft_state(adapter)
    assert set(state) == set(trained)
    for name, tensor in trained.items():
        assert state[name].shape == tensor.shape, name
        assert torch.allclose(state[name], tensor, atol=2e-3), name  # stored as float16
    assert any(float(t.abs().max()) > 0 for n, t in state.items() if "lora_B" in n)  # trained, not peft's zeros


def test_training_starts_from_the_given_weights(tmp_path):
    import torch

    first = train_lora(tiny_model(), tiny_examples() * 3, FAST, tmp_path / "a")
    # Continued with a vanishing learning rate, the adapter stays where it started; from scratch, B stays zero.
    still = replace(FAST, learning_rate=1e-12, init_adapter="from-first")
    warm = train_lora(tiny_model(), tiny_examples(), still, tmp_path / "b", init_state=first.state)
    cold = train_lora(tiny_model(), tiny_examples(), replace(still, init_adapter=""), tmp_path / "c")
    for name, tensor in first.state.items():
        assert torch.allclose(warm.state[name], tensor, atol=1e-6), name
    assert all(float(t.abs().max()) < 1e-6 for n, t in cold.state.items() if "lora_B" in n)
    assert warm.losses[0] < cold.losses[0]  # the first step already has what the first run learnt


def test_a_start_of_another_rank_is_refused_in_one_line(tmp_path):
    first = train_lora(tiny_model(), tiny_examples(), FAST, tmp_path / "a")
    with pytest.raises(Nl2SparqlError, match="rank 4, this run rank 2") as err:
        train_lora(tiny_model(), tiny_examples(), replace(FAST, rank=2, alpha=4), tmp_path / "b",
                   init_state=first.state)
    assert "\n" not in str(err.value)


def test_a_file_that_is_no_adapter_is_refused_in_one_line(tmp_path):
    path = tmp_path / "adapter.gguf"
    path.write_bytes(b"not a gguf at all")
    with pytest.raises(Nl2SparqlError, match="cannot read the adapter|not a LoRA adapter") as err:
        read_adapter(path)
    assert "\n" not in str(err.value)


def test_a_checkpoint_resumes_only_onto_the_same_start():
    examples = tiny_examples()
    plain = training_fingerprint(examples, FAST)
    assert training_fingerprint(examples, replace(FAST, init_adapter="abc")) != plain
    # Checkpoints written before runs could start from an adapter keep their fingerprint (the field is left out).
    settings = {k: v for k, v in asdict(FAST).items() if k not in ("threads", "checkpoint_every", "device",
                                                                    "init_adapter")}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for example in examples:
        digest.update(f"{example.prompt_len}:{','.join(map(str, example.input_ids))};".encode())
    assert plain == digest.hexdigest()[:16]


def test_from_a_version_checks_its_adapter_and_base_model(tmp_path, monkeypatch):
    from nl2sparql.optimize.finetune.job import starting_adapter
    from nl2sparql.optimize.finetune.lora import LoraSettings
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    version = _adapter_version(root, tmp_path)
    config = FinetuneConfig(lm="local/qwen-0.5b", lora=LoraSettings(rank=4, alpha=8), init_from="latest")
    path, started = starting_adapter(config, root)
    assert path == version.path / "adapter.gguf"
    assert started.init_from == version.name
    assert started.lora.init_adapter == version.manifest["adapter"]["sha256"]
    with pytest.raises(Nl2SparqlError, match="fine-tuned for local/qwen-0.5b, not local/qwen-1.5b"):
        starting_adapter(replace(config, lm="local/qwen-1.5b"), root)
    (version.path / "adapter.gguf").write_bytes(b"changed")
    with pytest.raises(Nl2SparqlError, match="checksum"):
        starting_adapter(config, root)


def test_from_a_version_without_an_adapter_is_a_one_line_error(tmp_path, monkeypatch):
    from nl2sparql.artifacts.store import write_version
    from nl2sparql.modules.program import NL2SPARQL
    from nl2sparql.optimize.finetune.job import starting_adapter
    from nl2sparql.optimize.finetune.run import FinetuneConfig

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    manifest = {"parent": None, "created_at": "2026-11-25T00:00:00+00:00", "optimizer": "bootstrap",
                "lm": "local/qwen-0.5b", "dataset_hash": "x", "program_settings": {}}
    version = write_version(NL2SPARQL(), manifest, root)
    with pytest.raises(Nl2SparqlError, match=f"{version.name} has no adapter to start from") as err:
        starting_adapter(FinetuneConfig(lm="local/qwen-0.5b", init_from=version.name), root)
    assert "\n" not in str(err.value)
