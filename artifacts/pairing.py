"""Paired versions: one version answers questions asked alone (and first turns), another's adapter writes the
follow-ups of a conversation.

A fine-tune on follow-ups as chat turns teaches the generate step to read earlier turns, but it can cost
questions asked alone; pairing keeps the first version for those and lends the second one's adapter to
follow-ups only (`ProgramSettings.followup_mode = "chat"`). Nothing is retrained: the new version holds the
first one's program, settings and adapter, and the second one's adapter as `followup_adapter.gguf`.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from nl2sparql.artifacts.store import PROGRAM_FILE, Version, artifact_root, resolve_version, write_version
from nl2sparql.errors import ArtifactError
from nl2sparql.modules.adapter import FOLLOWUP_ADAPTER_FILE, LoraAdapter


def _opened(name: str, root: Path) -> Version:
    found = resolve_version(name, root)
    if found is None:
        raise ArtifactError("the uncompiled program has no adapter: pair two compiled versions")
    return found


def _lent_key(manifest: dict) -> str:
    """The manifest entry of the adapter a version lends to follow-ups: a paired version's follow-up one, else its own."""
    return "followup_adapter" if manifest.get("followup_adapter") else "adapter"


def follow_up_adapter(version: Version) -> LoraAdapter:
    """The adapter a version lends to follow-ups, checked."""
    adapter = LoraAdapter.from_manifest(version.path, version.manifest, _lent_key(version.manifest))
    if adapter is None:
        raise ArtifactError(f"{version.name} has no adapter to answer follow-ups with: pair a fine-tuned version "
                            "(`nl2sparql optimize run --optimizer finetune --followup-mode chat`)")
    adapter.verify()
    return adapter


def paired_manifest(first: Version, followup: Version, note: str | None = None) -> dict:
    """FIRST's manifest, with FOLLOWUP's adapter entry as `followup_adapter` and the chat mode for follow-ups
    (`write_version` gives it its own name)."""
    entry = {**followup.manifest[_lent_key(followup.manifest)], "file": FOLLOWUP_ADAPTER_FILE,
             "version": followup.name}
    settings = {**(first.manifest.get("program_settings") or {}), "followup_mode": "chat"}
    default_note = (f"{first.name}'s program, settings and adapter for every question asked alone and every first "
                    f"turn; {followup.name}'s adapter writes the follow-ups, read as chat turns (followup_mode = "
                    f"chat). dev_scores are {first.name}'s.")
    return {**first.manifest, "parent": first.name, "program_settings": settings, "followup_adapter": entry,
            "paired": {"first": first.name, "followup": followup.name},
            "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "mlflow_run_id": None, "note": note or default_note}


def pair_versions(first: str, followup: str, root: Path | None = None, note: str | None = None) -> Version:
    """A new version: `first` for questions asked alone, `followup`'s adapter for follow-ups; both checked and
    trained on the same base model."""
    root = root or artifact_root()
    one, two = _opened(first, root), _opened(followup, root)
    lent = follow_up_adapter(two)
    own = LoraAdapter.from_manifest(one.path, one.manifest)
    if own is not None:
        own.verify()
    base = own.base_model if own is not None else str(one.manifest.get("lm", "")).removeprefix("local/")
    if base != lent.base_model:
        raise ArtifactError(f"{one.name} runs on {base or one.manifest.get('lm')} and {two.name}'s adapter on "
                            f"local/{lent.base_model}: a pair shares one base model")
    files = {PROGRAM_FILE: one.program_file, FOLLOWUP_ADAPTER_FILE: lent.path}
    if own is not None:
        files[own.path.name] = own.path
    return write_version(None, paired_manifest(one, two, note), root, files)
