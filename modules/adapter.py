"""A LoRA adapter of a fine-tuned version: its GGUF file, checksum and the base model it was trained on.

The manifest names them; before the engine loads the adapter its checksum is checked, so a truncated or edited
file is a one-line error, not a crash inside llama.cpp, and an adapter never runs on a model it was not
trained for.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import ArtifactError

ADAPTER_FILE = "adapter.gguf"
# A version may answer follow-ups with an adapter of their own (`nl2sparql artifacts pair`): the manifest's
# `followup_adapter` entry, same fields as `adapter`.
FOLLOWUP_ADAPTER_FILE = "followup_adapter.gguf"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class LoraAdapter:
    path: Path
    sha256: str
    base_model: str  # a local model name (LOCAL_MODELS), e.g. qwen-0.5b
    version: str = ""

    @classmethod
    def from_manifest(cls, folder: Path, manifest: dict, key: str = "adapter") -> LoraAdapter | None:
        """The adapter the manifest's `key` entry names ("adapter", or "followup_adapter"); None without one."""
        entry = manifest.get(key)
        if not entry:
            return None
        name = manifest.get("version", folder.name)
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("file", "sha256",
                                                                                       "base_model")):
            raise ArtifactError(f"version {name} is corrupt: its manifest's {key} entry lacks file, sha256 "
                                "or base_model")
        if Path(entry["file"]).name != entry["file"]:
            raise ArtifactError(f"version {name} is corrupt: adapter file {entry['file']!r} is not in its folder")
        return cls(folder / entry["file"], entry["sha256"], entry["base_model"], name)

    @property
    def lm_id(self) -> str:
        """The model string of base + adapter (DSPy's cache and the eval reports tell them apart by it)."""
        return f"local/{self.base_model}+lora-{self.sha256[:8]}"

    def verify(self) -> None:
        """The file is there and is the one the manifest names; a one-line ArtifactError otherwise."""
        if not self.path.is_file():
            raise ArtifactError(f"version {self.version} is corrupt: its adapter {self.path.name} is missing")
        actual = file_sha256(self.path)
        if actual != self.sha256:
            raise ArtifactError(f"version {self.version} is corrupt: adapter {self.path.name} has checksum "
                                f"{actual[:12]}…, the manifest says {self.sha256[:12]}…; recompile it with "
                                "`nl2sparql optimize run --optimizer finetune`")

    def check_base(self, lm: str | None) -> None:
        """A version with an adapter runs on the base model it was trained on, and no other."""
        if lm is not None and lm != f"local/{self.base_model}":
            raise ArtifactError(f"version {self.version} is fine-tuned for local/{self.base_model}; it cannot run "
                                f"on {lm} (leave out --lm, or pass --lm local/{self.base_model})")
