"""A peft LoRA adapter written as llama.cpp reads one: a GGUF of type `adapter` with `.lora_a`/`.lora_b` tensors.

llama.cpp names a Qwen2 layer's weights `blk.N.attn_q.weight` and so on; the adapter's tensors take those names
with `.lora_a` (rank × in) and `.lora_b` (out × rank) appended, in numpy's row-major order, which GGUF stores
reversed, so they line up with the model tensor's `ne[0]` (in) and `ne[1]` (out). llama.cpp scales the product
by alpha / rank, as peft does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import Nl2SparqlError, first_line

# Hugging Face module path (inside `model.layers.N.`) → llama.cpp tensor name (inside `blk.N.`).
LAYER_TENSORS = {
    "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
_PEFT_NAME = re.compile(r"(?:base_model\.model\.)?model\.layers\.(\d+)\.(.+)\.lora_([AB])(?:\.default)?\.weight$")
_GGUF_NAME = re.compile(r"blk\.(\d+)\.(\w+)\.weight\.lora_([ab])$")
_HF_MODULES = {tensor: module for module, tensor in LAYER_TENSORS.items()}
BASE_MODEL_KEY = "nl2sparql.base_model"
BASE_SHA_KEY = "nl2sparql.base_sha256"


@dataclass(frozen=True)
class AdapterTensors:
    """LoRA matrices by llama.cpp name (`blk.0.attn_q.weight.lora_a` …) as float arrays, and their alpha."""

    tensors: dict
    alpha: float
    rank: int


def gguf_name(peft_name: str) -> str:
    """`base_model.model.model.layers.3.mlp.up_proj.lora_A.weight` → `blk.3.ffn_up.weight.lora_a`."""
    match = _PEFT_NAME.match(peft_name)
    if not match or match.group(2) not in LAYER_TENSORS:
        raise ValueError(f"no llama.cpp tensor for LoRA weight {peft_name}")
    layer, module, which = match.groups()
    return f"blk.{layer}.{LAYER_TENSORS[module]}.weight.lora_{which.lower()}"


def peft_name(gguf_tensor: str) -> str:
    """`blk.3.ffn_up.weight.lora_a` → `base_model.model.model.layers.3.mlp.up_proj.lora_A.weight` (gguf_name's
    inverse, in the names peft's state dict uses)."""
    match = _GGUF_NAME.match(gguf_tensor)
    if not match or match.group(2) not in _HF_MODULES:
        raise ValueError(f"not a LoRA tensor of a Qwen2 layer: {gguf_tensor}")
    layer, tensor, which = match.groups()
    return f"base_model.model.model.layers.{layer}.{_HF_MODULES[tensor]}.lora_{which.upper()}.weight"


def from_peft_state(state: dict, alpha: float, rank: int) -> AdapterTensors:
    """The LoRA weights of a peft state dict (torch tensors), renamed for llama.cpp."""
    return AdapterTensors({gguf_name(name): tensor.detach().float().cpu().numpy()
                           for name, tensor in state.items() if ".lora_" in name}, float(alpha), rank)


def write_adapter(adapter: AdapterTensors, path: Path, *, arch: str = "qwen2", base_model: str = "",
                  base_sha256: str = "", dtype: str = "f16") -> Path:
    """Write the adapter GGUF atomically; `base_model`/`base_sha256` say which weights it was trained on."""
    import gguf
    import numpy as np

    # GGUFWriter opens the path itself: write beside the target, then rename into place.
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.writing")
    try:
        writer = gguf.GGUFWriter(str(temp), arch)
        writer.add_type(gguf.GGUFType.ADAPTER)
        writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
        writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, adapter.alpha)
        writer.add_string(BASE_MODEL_KEY, base_model)
        writer.add_string(BASE_SHA_KEY, base_sha256)
        numpy_type = np.float16 if dtype == "f16" else np.float32
        for name in sorted(adapter.tensors, key=_tensor_order):
            writer.add_tensor(name, np.ascontiguousarray(adapter.tensors[name], dtype=numpy_type))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        temp.replace(path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return path


def read_adapter(path: Path) -> tuple[AdapterTensors, str]:
    """An adapter GGUF written by `write_adapter` (float arrays by llama.cpp name, alpha, rank) and the base model
    it names; a one-line error when the file is not such an adapter."""
    import gguf
    import numpy as np

    try:
        reader = gguf.GGUFReader(str(path))
    except (OSError, ValueError) as error:
        raise Nl2SparqlError(f"cannot read the adapter {path}: {first_line(error)}") from None

    def text(key: str) -> str:
        field = reader.fields.get(key)
        return bytes(field.parts[field.data[0]]).decode("utf-8") if field else ""

    alpha_field = reader.fields.get(gguf.Keys.Adapter.LORA_ALPHA)
    tensors = {t.name: np.asarray(t.data, dtype=np.float32) for t in reader.tensors}
    if text(gguf.Keys.Adapter.TYPE) != "lora" or alpha_field is None or not tensors:
        raise Nl2SparqlError(f"{path} is not a LoRA adapter GGUF")
    ranks = {array.shape[0] for name, array in tensors.items() if name.endswith(".lora_a")}
    if len(ranks) != 1:
        raise Nl2SparqlError(f"{path} mixes LoRA ranks {sorted(ranks)}")
    alpha = float(alpha_field.parts[alpha_field.data[0]][0])
    return AdapterTensors(tensors, alpha, ranks.pop()), text(BASE_MODEL_KEY)


def to_peft_state(adapter: AdapterTensors) -> dict:
    """The adapter's matrices as a peft state dict (torch tensors), ready for `set_peft_model_state_dict`."""
    import torch

    return {peft_name(name): torch.from_numpy(array.copy()) for name, array in adapter.tensors.items()}


def _tensor_order(name: str) -> tuple[int, str]:
    return int(name.split(".")[1]), name
