"""Adapter soup: a new version whose adapter is the weighted mean of several fine-tuned versions' weight updates.

A LoRA adapter adds ΔW = (alpha / r) · B A to a base weight. The weighted mean Σ w_i ΔW_i of several adapters
trained on one base model is itself a LoRA adapter, of rank Σ r_i: the A matrices stacked, the B matrices side
by side, each B scaled by w_i · alpha_i / r_i, and alpha set to the new rank so that llama.cpp's alpha / rank is 1.
The sum is exact, nothing is retrained, and a question costs what it cost with one adapter (the extra rank is a
few small matrix products). Fine-tunes of one base model on different synthetic sets learn different shapes;
their mean keeps what they share and damps what each one learned alone (weight averaging, "model soups").

The new version holds the first version's program, settings and follow-up adapter, and the soup as its adapter.
"""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path
from typing import Sequence

from nl2sparql.artifacts.store import PROGRAM_FILE, Version, artifact_root, resolve_version, write_version
from nl2sparql.errors import ArtifactError
from nl2sparql.modules.adapter import ADAPTER_FILE, FOLLOWUP_ADAPTER_FILE, LoraAdapter, file_sha256
from nl2sparql.optimize.finetune.gguf_lora import AdapterTensors, read_adapter, write_adapter


def soup_tensors(adapters: Sequence[AdapterTensors], weights: Sequence[float]) -> AdapterTensors:
    """One LoRA adapter whose update is Σ w_i · (alpha_i / r_i) · B_i A_i, exactly (rank Σ r_i, alpha = rank)."""
    import numpy as np

    if len(adapters) != len(weights) or len(adapters) < 2:
        raise ArtifactError("a soup needs two adapters or more, and one weight for each")
    names = set(adapters[0].tensors)
    if any(set(a.tensors) != names for a in adapters[1:]):
        raise ArtifactError("the adapters adapt different layers: a soup needs adapters of one shape")
    rank = sum(a.rank for a in adapters)
    tensors = {}
    for name in names:
        parts = [a.tensors[name] for a in adapters]
        if name.endswith(".lora_a"):
            tensors[name] = np.concatenate(parts, axis=0)
        else:
            tensors[name] = np.concatenate([p * (w * a.alpha / a.rank) for p, w, a in zip(parts, weights, adapters)],
                                           axis=1)
    return AdapterTensors(tensors, float(rank), rank)


def describe_soup(mixed: list[dict]) -> str:
    """A manifest's `soup` entry in words: `v11 × 0.5 + v16 × 0.5`."""
    return " + ".join(f"{m['version']} × {m['weight']:g}" for m in mixed)


def parse_weights(text: str | None, count: int) -> list[float]:
    """`0.5,0.5` → [0.5, 0.5]; none given: equal weights. They must be positive and sum to 1."""
    if not text:
        return [1.0 / count] * count
    try:
        weights = [float(part) for part in text.split(",")]
    except ValueError:
        raise ArtifactError(f"--weights takes numbers separated by commas, not {text!r}") from None
    if len(weights) != count or any(w <= 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-6:
        raise ArtifactError(f"--weights needs {count} positive numbers that sum to 1, got {text!r}")
    return weights


def _adapter_of(name: str, root: Path) -> tuple[Version, LoraAdapter]:
    version = resolve_version(name, root)
    adapter = LoraAdapter.from_manifest(version.path, version.manifest) if version is not None else None
    if adapter is None:
        raise ArtifactError(f"{version.name if version else 'the uncompiled program'} has no adapter: a soup "
                            "mixes fine-tuned versions (`nl2sparql optimize run --optimizer finetune`)")
    adapter.verify()
    return version, adapter


def _prompt(version: Version) -> bool:
    return bool((version.manifest.get("program_settings") or {}).get("compact_prompt"))


def soup_manifest(first: Version, adapter_entry: dict, mixed: list[dict], note: str | None) -> dict:
    """FIRST's manifest with the soup as its adapter (`write_version` gives it its own name)."""
    default_note = (f"adapter soup {describe_soup(mixed)}: the weighted mean of their LoRA updates as one adapter "
                    f"of rank {adapter_entry['rank']}; {first.name}'s program and settings. "
                    f"dev_scores are {first.name}'s.")
    manifest = {**first.manifest, "parent": first.name, "adapter": adapter_entry, "soup": mixed,
                "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "mlflow_run_id": None, "note": note or default_note}
    manifest.pop("settings_tried", None)
    return manifest


def soup_versions(names: Sequence[str], weights: Sequence[float] | None = None, root: Path | None = None,
                  note: str | None = None) -> Version:
    """A new version: the first version's program with the weighted mean of all the versions' adapters."""
    root = root or artifact_root()
    if len(names) < 2 or len(set(names)) != len(names):
        raise ArtifactError("a soup mixes two different versions or more")
    weights = list(weights) if weights is not None else parse_weights(None, len(names))
    opened = [_adapter_of(name, root) for name in names]
    (first, own), others = opened[0], opened[1:]
    for version, adapter in others:
        if adapter.base_model != own.base_model:
            raise ArtifactError(f"{first.name} is fine-tuned for local/{own.base_model} and {version.name} for "
                                f"local/{adapter.base_model}: a soup shares one base model")
        if _prompt(version) != _prompt(first):
            raise ArtifactError(f"{first.name} and {version.name} were trained with different prompts "
                                "(compact_prompt): their adapters answer different inputs")
    tensors, base_names = zip(*(read_adapter(adapter.path) for _, adapter in opened))
    souped = soup_tensors(tensors, weights)
    entry = first.manifest["adapter"]
    with tempfile.TemporaryDirectory(prefix=".soup-", dir=root) as scratch:
        path = write_adapter(souped, Path(scratch) / ADAPTER_FILE, base_model=base_names[0],
                             base_sha256=entry.get("base_sha256", ""))
        adapter_entry = {key: value for key, value in entry.items() if key != "training"}
        adapter_entry.update(sha256=file_sha256(path), size=path.stat().st_size, rank=souped.rank,
                             alpha=souped.alpha)
        mixed = [{"version": v.name, "weight": w, "sha256": a.sha256} for (v, a), w in zip(opened, weights)]
        files = {PROGRAM_FILE: first.program_file, ADAPTER_FILE: path}
        if first.manifest.get("followup_adapter"):
            files[FOLLOWUP_ADAPTER_FILE] = first.path / first.manifest["followup_adapter"]["file"]
        return write_version(None, soup_manifest(first, adapter_entry, mixed, note), root, files)
