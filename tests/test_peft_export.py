"""A version's adapter exported in peft's form (for vLLM's `--lora-modules`) loads with peft on the base model in
transformers on CPU and decodes greedily as the GGUF adapter does in llama.cpp."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nl2sparql.cli import main
from nl2sparql.paths import ARTIFACTS_ENV
from nl2sparql.modules.llama_load import AMX_FLAGS as _AMX
from nl2sparql.modules.llama_load import cpu_flags as _cpu_flags

from test_lm_server import small_adapter_version

PROMPTS = ["PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nSELECT ?lemma WHERE {",
           "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n"]
NEW_TOKENS = 8


@pytest.mark.slow
@pytest.mark.xfail(condition=bool(_AMX & _cpu_flags()), strict=False,
                   reason="on a CPU with AMX the PEFT model (torch) and llama.cpp (extra buffer types off) gave "
                          "different greedy tokens from the first one on 2026-11-29; not yet understood")
def test_the_peft_export_decodes_as_the_gguf_adapter(tmp_path, monkeypatch):
    import torch
    from peft import PeftModel

    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.optimize.finetune.lora import LoraSettings, load_base_model

    root = tmp_path / "artifacts"
    monkeypatch.setenv(ARTIFACTS_ENV, str(root))
    version = small_adapter_version(root, tmp_path / "made", scale=0.03)  # enough to change the answer
    out = tmp_path / "exported"
    result = CliRunner().invoke(main, ["artifacts", "export", version.name, "--peft", str(out)])
    assert result.exit_code == 0, result.output
    sha = version.manifest["adapter"]["sha256"]
    assert result.output.strip() == f"{version.name}-answer-{sha[:16]}={out / 'answer'}"
    config = json.loads((out / "answer" / "adapter_config.json").read_text())
    assert (config["r"], config["lora_alpha"], config["base_model_name_or_path"]) == (
        4, 8.0, "Qwen/Qwen2.5-Coder-0.5B-Instruct")
    again = CliRunner().invoke(main, ["artifacts", "export", version.name, "--peft", str(out)])
    assert again.exit_code == 2 and "is not empty" in again.output  # nothing overwritten

    gguf = assemble(LOCAL_MODELS["qwen-0.5b"])
    adapted = _llama_tokens(gguf, str(version.path / "adapter.gguf"))
    plain = _llama_tokens(gguf, None)
    model = PeftModel.from_pretrained(load_base_model(gguf, LoraSettings()), str(out / "answer"))
    model.eval()
    for prompt, (ids, by_llama) in adapted.items():
        with torch.no_grad():
            generated = model.generate(torch.tensor([ids]), max_new_tokens=NEW_TOKENS, do_sample=False)
        assert generated[0, len(ids):].tolist() == by_llama, prompt  # the same greedy tokens both ways
    assert any(adapted[p][1] != plain[p][1] for p in PROMPTS)  # and the adapter changed what the model writes


def _llama_tokens(gguf, lora: str | None) -> dict:
    """Each prompt's token ids and the first greedy tokens llama.cpp writes after it (with the adapter, if any)."""
    from nl2sparql.modules.llama_load import load_params, open_llama

    llama = open_llama(str(gguf), load_params(), n_ctx=512, seed=0, verbose=False, lora_path=lora)
    out = {}
    try:
        for prompt in PROMPTS:
            ids = llama.tokenize(prompt.encode(), add_bos=False, special=True)
            llama.reset()
            tokens = []
            for token in llama.generate(ids, temp=0.0, top_k=1):
                tokens.append(token)
                if len(tokens) == NEW_TOKENS:
                    break
            out[prompt] = (ids, tokens)
    finally:
        llama.close()
    return out
