"""LoRA training with peft on transformers, on the CPU by default: base weights from the engine's own GGUF.

Plain loop, batch 1: each example is the generate step's prompt followed by its answer, and the loss counts the
answer tokens only. A checkpoint (adapter, optimizer, scheduler, step, losses) is written atomically every few
steps and when the run is interrupted, so `resume=True` continues where it stopped, on the same example order.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from nl2sparql.errors import Nl2SparqlError

CHECKPOINT_FILE = "checkpoint.pt"
TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class LoraSettings:
    rank: int = 16
    alpha: int = 32
    dropout: float = 0.0
    learning_rate: float = 3e-4
    epochs: int = 1
    warmup_steps: int = 10
    max_tokens: int = 1024  # longer examples are left out (and counted)
    seed: int = 13
    device: str = "cpu"
    bf16: bool = True  # base weights in bfloat16 and bfloat16 autocast; the adapter stays float32
    threads: int | None = None
    checkpoint_every: int = 25
    init_adapter: str = ""  # SHA-256 of the adapter training starts from ("" : from scratch, peft's zero B)


@dataclass(frozen=True)
class TokenizedExample:
    """Prompt and answer token ids, concatenated; the loss covers the tokens from `prompt_len` on."""

    input_ids: tuple[int, ...]
    prompt_len: int


@dataclass
class TrainProgress:
    step: int
    total: int
    loss: float
    seconds: float


@dataclass
class TrainResult:
    state: dict  # the adapter's weights (peft names → tensors)
    steps: int
    skipped: int  # examples over max_tokens
    seconds: float  # training time, summed over resumed runs
    losses: list[float] = field(default_factory=list)
    tokens: int = 0

    @property
    def examples_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def require_training_packages() -> None:
    """A one-line error naming the extra to install when peft, transformers or gguf is missing."""
    import importlib.util

    missing = [name for name in ("transformers", "peft", "gguf") if importlib.util.find_spec(name) is None]
    if missing:
        raise Nl2SparqlError(f"fine-tuning needs {', '.join(missing)}: pip install 'nl2sparql[finetune]'")


def load_base_model(gguf_path: Path, settings: LoraSettings):
    """The causal LM de-quantised from a GGUF by transformers (the `gguf` package reads it; no hub)."""
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name,
                                                 dtype=torch.float32, local_files_only=True)
    return model


def training_fingerprint(examples: list[TokenizedExample], settings: LoraSettings) -> str:
    """What a checkpoint must match to be resumed: the examples and every setting that changes the result."""
    # init_adapter counts only when set, so checkpoints written before it existed still resume
    digest = hashlib.sha256(json.dumps({k: v for k, v in asdict(settings).items()
                                        if k not in ("threads", "checkpoint_every", "device")
                                        and not (k == "init_adapter" and not v)},
                                       sort_keys=True).encode())
    for example in examples:
        digest.update(f"{example.prompt_len}:{','.join(map(str, example.input_ids))};".encode())
    return digest.hexdigest()[:16]


def example_order(count: int, epochs: int, seed: int) -> list[int]:
    """Indices of the examples in training order: a fresh seeded shuffle for each epoch."""
    import random

    order: list[int] = []
    for epoch in range(epochs):
        indices = list(range(count))
        random.Random(seed * 1000 + epoch).shuffle(indices)
        order += indices
    return order


def train_lora(model, examples: list[TokenizedExample], settings: LoraSettings, checkpoint_dir: Path, *,
               resume: bool = False, on_step: Callable[[TrainProgress], None] | None = None,
               init_state: dict | None = None) -> TrainResult:
    """Train a LoRA adapter on `model` (modified in place: peft wraps its linear layers), from `init_state` (a
    peft state dict of the same rank, `settings.init_adapter` naming it) or from peft's initialisation."""
    import torch
    from peft import LoraConfig, get_peft_model

    if settings.threads:
        torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    kept = [e for e in examples if len(e.input_ids) <= settings.max_tokens and e.prompt_len < len(e.input_ids)]
    if not kept:
        raise Nl2SparqlError(f"no training example fits in {settings.max_tokens} tokens")
    fingerprint = training_fingerprint(kept, settings)
    if settings.bf16:
        model.to(torch.bfloat16)
    config = LoraConfig(r=settings.rank, lora_alpha=settings.alpha, lora_dropout=settings.dropout,
                        target_modules=list(TARGET_MODULES), task_type="CAUSAL_LM")
    model = get_peft_model(model, config)
    if init_state is not None:
        _start_from(model, init_state, settings.rank)
    model.to(settings.device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate, weight_decay=0.0)
    order = example_order(len(kept), settings.epochs, settings.seed)
    total = len(order)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _linear_warmup(settings.warmup_steps, total))
    start, losses, seconds, tokens = 0, [], 0.0, 0
    path = checkpoint_dir / CHECKPOINT_FILE
    if resume:
        start, losses, seconds, tokens = _restore(path, fingerprint, model, optimizer, scheduler)
    model.train()
    began = time.perf_counter()
    try:
        for step in range(start, total):
            example = kept[order[step]]
            ids = torch.tensor([example.input_ids], device=settings.device)
            labels = ids.clone()
            labels[0, : example.prompt_len] = -100
            with torch.autocast(device_type=_device_type(settings.device), dtype=torch.bfloat16,
                                enabled=settings.bf16):
                loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
            tokens += len(example.input_ids)
            if on_step:
                on_step(TrainProgress(step + 1, total, losses[-1], seconds + time.perf_counter() - began))
            if (step + 1) % settings.checkpoint_every == 0 and step + 1 < total:
                _save(path, fingerprint, step + 1, model, optimizer, scheduler, losses,
                      seconds + time.perf_counter() - began, tokens)
    except BaseException:
        done = len(losses)  # steps finished, including those restored
        if done > start:
            _save(path, fingerprint, done, model, optimizer, scheduler, losses,
                  seconds + time.perf_counter() - began, tokens)
        raise
    seconds += time.perf_counter() - began
    state = {name: tensor.detach().cpu().float() for name, tensor in _lora_state(model).items()}
    return TrainResult(state, total, len(examples) - len(kept), seconds, losses, tokens)


def discard_checkpoint(checkpoint_dir: Path) -> None:
    (checkpoint_dir / CHECKPOINT_FILE).unlink(missing_ok=True)


def _device_type(device: str) -> str:
    return device.split(":", 1)[0]


def _linear_warmup(warmup: int, total: int) -> Callable[[int], float]:
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))
    return factor


def _start_from(model, state: dict, rank: int) -> None:
    """Load an earlier adapter's weights into the fresh peft model: every LoRA matrix, with the same shapes."""
    from peft import set_peft_model_state_dict

    expected = _lora_state(model)
    if set(state) != set(expected):
        missing = sorted(set(expected) - set(state))[:1] or sorted(set(state) - set(expected))[:1]
        raise Nl2SparqlError(f"the adapter to start from does not fit this model (first mismatch: {missing[0]})")
    for name, tensor in state.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise Nl2SparqlError(f"the adapter to start from has rank {min(tensor.shape)}, this run rank {rank}: "
                                 "pass the same --rank")
    set_peft_model_state_dict(model, state)


def _lora_state(model) -> dict:
    from peft import get_peft_model_state_dict

    return get_peft_model_state_dict(model)


def _save(path: Path, fingerprint: str, step: int, model, optimizer, scheduler, losses: list[float],
          seconds: float, tokens: int) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save({"fingerprint": fingerprint, "step": step, "adapter": _lora_state(model),
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "losses": losses,
                "seconds": seconds, "tokens": tokens}, temp)
    os.replace(temp, path)


def _restore(path: Path, fingerprint: str, model, optimizer, scheduler) -> tuple[int, list[float], float, int]:
    import torch
    from peft import set_peft_model_state_dict

    if not path.exists():
        raise Nl2SparqlError(f"nothing to resume: no training checkpoint at {path}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:
        raise Nl2SparqlError(f"the training checkpoint {path} cannot be read ({type(error).__name__}); "
                             "start again without --resume") from None
    if data.get("fingerprint") != fingerprint:
        raise Nl2SparqlError(f"the training checkpoint {path} is for other examples or settings; "
                             "start again without --resume")
    set_peft_model_state_dict(model, data["adapter"])
    optimizer.load_state_dict(data["optimizer"])
    scheduler.load_state_dict(data["scheduler"])
    return data["step"], list(data["losses"]), float(data["seconds"]), int(data.get("tokens", 0))
