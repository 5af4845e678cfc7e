"""A version's LoRA adapter in peft's own form (`adapter_model.safetensors` + `adapter_config.json`), for LM servers
that load peft adapters (vLLM: `--enable-lora --lora-modules NAME=DIR`).

The GGUF adapter is read back (`gguf_lora.read_adapter`), its tensors renamed to peft's names and written with the
LoRA config the fine-tune trained with (rank, alpha, the seven projection modules of every Qwen2 layer). The base
model is named by its Hugging Face id, so a server loads the same weights the GGUF was quantised from.
"""

from __future__ import annotations

import json
from pathlib import Path

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.optimize.finetune.gguf_lora import LAYER_TENSORS, read_adapter, to_peft_state

# The Hugging Face repositories our local GGUFs were quantised from.
HF_BASE_MODELS = {"qwen-0.5b": "Qwen/Qwen2.5-Coder-0.5B-Instruct", "qwen-1.5b": "Qwen/Qwen2.5-Coder-1.5B-Instruct"}
PEFT_DIR = "peft"  # a fine-tuned version's folder holds its adapter in peft's form here
CONFIG_FILE = "adapter_config.json"
WEIGHTS_FILE = "adapter_model.safetensors"


def peft_config(rank: int, alpha: float, base_model: str) -> dict:
    """peft's LoraConfig for our adapters, as `adapter_config.json` holds it."""
    if base_model not in HF_BASE_MODELS:
        raise Nl2SparqlError(f"no Hugging Face base model is known for local/{base_model}")
    return {"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": HF_BASE_MODELS[base_model],
            "r": rank, "lora_alpha": alpha, "lora_dropout": 0.0, "bias": "none", "fan_in_fan_out": False,
            "target_modules": sorted(module.split(".")[-1] for module in LAYER_TENSORS), "inference_mode": True,
            "use_rslora": False, "use_dora": False}


def export_peft(adapter_gguf: Path, out: Path, base_model: str) -> Path:
    """Write the adapter at `adapter_gguf` to the folder `out` in peft's form (atomically: a folder beside it,
    renamed into place); returns `out`."""
    import shutil

    from safetensors.torch import save_file

    adapter, named_base = read_adapter(adapter_gguf)
    if named_base and named_base != base_model:
        raise Nl2SparqlError(f"{adapter_gguf} was trained on local/{named_base}, not local/{base_model}")
    if out.exists() and any(out.iterdir()):
        raise Nl2SparqlError(f"{out} is not empty: choose a new folder")
    state = {name: tensor.contiguous() for name, tensor in to_peft_state(adapter).items()}
    staging = out.with_name(f".{out.name}.writing")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        save_file(state, str(staging / WEIGHTS_FILE), metadata={"format": "pt"})
        (staging / CONFIG_FILE).write_text(json.dumps(peft_config(adapter.rank, adapter.alpha, base_model),
                                                      indent=2) + "\n", encoding="utf-8")
        if out.exists():
            out.rmdir()
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out
