"""Where compiled versions live (the artifact root) and how a version name resolves to a program file."""

from __future__ import annotations

import os
import re
from pathlib import Path

from nl2sparql.errors import ArtifactError
from nl2sparql.kb.endpoint import default_home

_VERSION = re.compile(r"^v(\d+)$")


def artifact_root() -> Path:
    return Path(os.environ.get("NL2SPARQL_ARTIFACTS", default_home() / "artifacts"))


def versions(root: Path | None = None) -> list[str]:
    root = root or artifact_root()
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if p.is_dir() and _VERSION.match(p.name)]
    return sorted(found, key=lambda name: int(name[1:]))


def resolve_program_file(version: str, root: Path | None = None) -> Path | None:
    """The saved program of a version; None for the uncompiled program ("uncompiled", or "latest" when
    nothing has been compiled yet). Unknown names are a one-line error."""
    root = root or artifact_root()
    if version == "uncompiled":
        return None
    known = versions(root)
    if version == "latest":
        if not known:
            return None
        version = known[-1]
    if version not in known:
        choices = ", ".join(["latest", "uncompiled", *known])
        raise ArtifactError(f"unknown version '{version}': choose one of {choices}")
    program = root / version / "program.json"
    if not program.is_file():
        raise ArtifactError(f"version {version} is corrupt: {program} is missing")
    return program
