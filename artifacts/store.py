"""Compiled versions on disk: an artifact root of immutable `vN/` folders, tags, and name resolution.

Each version holds `program.json` (DSPy's own save: instructions and demos) and `manifest.json`.
A version appears only complete: it is written into a hidden temporary folder and renamed into place.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nl2sparql.files import write_text_atomic
from nl2sparql.errors import ArtifactError, first_line
from nl2sparql.paths import resolve

_VERSION = re.compile(r"^v(\d+)$")
_TAG = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,63}$")
PROGRAM_FILE = "program.json"
MANIFEST_FILE = "manifest.json"
TAGS_FILE = "tags.json"
# Bumped when a saved program can no longer be loaded by this code (signature fields renamed, …).
PROGRAM_FORMAT = 1
REQUIRED = ("version", "parent", "created_at", "optimizer", "lm", "dataset_hash", "program_format")


# The compiled version that comes with the package (made by `nl2sparql optimize run` with the default local
# LM): what "latest" means until a first compile of your own, and always reachable as "shipped".
SHIPPED = "shipped"
SHIPPED_ROOT = Path(__file__).resolve().parent / "store"


def artifact_root() -> Path:
    return resolve().artifacts


def effective_name(name: str, root: Path | None = None) -> str:
    """'uncompiled', 'shipped', or the vN a name stands for in the artifact root."""
    root = root or artifact_root()
    if name in ("uncompiled", SHIPPED):
        return name
    if name == "latest" and not versions(root):
        return SHIPPED if versions(SHIPPED_ROOT) else "uncompiled"
    return resolve_name(name, root)


@dataclass(frozen=True)
class Version:
    name: str
    path: Path
    manifest: dict[str, Any]

    @property
    def program_file(self) -> Path:
        return self.path / PROGRAM_FILE


def versions(root: Path | None = None) -> list[str]:
    root = root or artifact_root()
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if p.is_dir() and _VERSION.match(p.name)]
    return sorted(found, key=lambda name: int(name[1:]))


def read_tags(root: Path | None = None) -> dict[str, str]:
    path = (root or artifact_root()) / TAGS_FILE
    if not path.exists():
        return {}
    try:
        tags = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArtifactError(f"corrupt tags file {path}: {first_line(error)}; fix or delete it") from None
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise ArtifactError(f"corrupt tags file {path}: expected an object of tag → version; fix or delete it")
    return {str(k): v for k, v in tags.items()}


def _read_json(path: Path, resolved: str) -> Any:
    """A version file's JSON, or a one-line ArtifactError saying which version is corrupt and how."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArtifactError(f"version {resolved} is corrupt: {path} is missing") from None
    except UnicodeDecodeError:
        raise ArtifactError(f"version {resolved} is corrupt: {path.name} is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ArtifactError(f"version {resolved} is corrupt: {path.name} does not parse ({error})") from None
    except OSError as error:
        raise ArtifactError(f"version {resolved} cannot be read: {path.name}: {first_line(error)}") from None


def _write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n")


def resolve_name(name: str, root: Path | None = None) -> str:
    """'latest', a tag, or 'vN' → 'vN'; anything else is a one-line error listing the choices."""
    root = root or artifact_root()
    known = versions(root)
    tags = read_tags(root)
    if name == "latest" and known:
        return known[-1]
    if name in tags:
        name = tags[name]
    if name not in known:
        choices = ", ".join(["latest", "uncompiled", SHIPPED, *known, *sorted(tags)])
        raise ArtifactError(f"unknown version '{name}': choose one of {choices}")
    return name


def open_version(name: str, root: Path | None = None) -> Version:
    root = root or artifact_root()
    resolved = resolve_name(name, root)
    path = root / resolved
    manifest = _read_json(path / MANIFEST_FILE, resolved)
    if not isinstance(manifest, dict):
        raise ArtifactError(f"version {resolved} is corrupt: manifest.json is not a JSON object")
    missing = [key for key in REQUIRED if key not in manifest]
    if missing:
        raise ArtifactError(f"version {resolved} is corrupt: manifest.json lacks {', '.join(missing)}")
    if manifest["program_format"] != PROGRAM_FORMAT:
        raise ArtifactError(f"version {resolved} was saved in program format {manifest['program_format']}; this "
                            f"nl2sparql reads format {PROGRAM_FORMAT}: recompile it with `nl2sparql optimize run`")
    if not isinstance(_read_json(path / PROGRAM_FILE, resolved), dict):  # a truncated save fails here, not in ask
        raise ArtifactError(f"version {resolved} is corrupt: {PROGRAM_FILE} is not a JSON object")
    return Version(resolved, path, manifest)


def open_shipped() -> Version:
    if not versions(SHIPPED_ROOT):
        raise ArtifactError(f"this installation ships no compiled version ({SHIPPED_ROOT} is empty)")
    return open_version("latest", SHIPPED_ROOT)


def resolve_version(version: str, root: Path | None = None) -> Version | None:
    """The version a name stands for; None for the uncompiled program. "latest" with nothing compiled in the
    artifact root is the shipped version (or the uncompiled program if none is shipped)."""
    name = effective_name(version, root)
    if name == "uncompiled":
        return None
    if name == SHIPPED:
        return open_shipped()
    return open_version(name, root)


def resolve_program_file(version: str, root: Path | None = None) -> Path | None:
    """The saved program of a version; None for the uncompiled program."""
    found = resolve_version(version, root)
    return found.program_file if found else None


def write_version(program, manifest: dict[str, Any], root: Path | None = None,
                  files: dict[str, Path] | None = None) -> Version:
    """Save a compiled program as the next version, atomically (temp folder + rename); `files` are copied in
    under their names (a fine-tuned version's adapter). With `program` None, `files` brings the saved program."""
    if program is None and PROGRAM_FILE not in (files or {}):
        raise ArtifactError(f"a version needs a program: none given and no {PROGRAM_FILE} among its files")
    root = root or artifact_root()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    try:
        if program is not None:
            _save_without_lms(program, tmp / PROGRAM_FILE)
        for name, source in (files or {}).items():
            shutil.copyfile(source, tmp / name)
        for attempt in range(100):
            number = int(versions(root)[-1][1:]) + 1 if versions(root) else 1
            name = f"v{number}"
            data = {**manifest, "version": name, "program_format": PROGRAM_FORMAT}
            _write_json_atomic(tmp / MANIFEST_FILE, data)
            try:
                os.rename(tmp, root / name)
            except OSError:
                if (root / name).exists():
                    continue  # another compile took this number first
                raise
            return Version(name, root / name, data)
        raise ArtifactError("could not claim a version number")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _save_without_lms(program, path: Path) -> None:
    """The LM is chosen when a version is loaded (the manifest names the one it was compiled for)."""
    predictors = [p for _, p in program.named_predictors()] if hasattr(program, "named_predictors") else []
    kept = [(p, p.lm) for p in predictors]
    for p in predictors:
        p.lm = None
    try:
        program.save(str(path))
    finally:
        for p, lm in kept:
            p.lm = lm


def tag_version(name: str, tag: str, root: Path | None = None) -> str:
    root = root or artifact_root()
    if tag in ("latest", "uncompiled", SHIPPED) or _VERSION.match(tag):
        raise ArtifactError(f"{tag!r} cannot be a tag: it reads as a version name")
    if not _TAG.fullmatch(tag):
        raise ArtifactError(f"{tag!r} cannot be a tag: use letters, digits, '-', '_' and '.', starting with a letter "
                            "(64 characters at most)")
    resolved = open_version(name, root).name
    tags = read_tags(root)
    tags[tag] = resolved
    _write_json_atomic(root / TAGS_FILE, tags)
    return resolved


def remove_version(name: str, root: Path | None = None) -> str:
    """Delete a version that no tag points at (move aside, then delete: no half-removed folder stays)."""
    root = root or artifact_root()
    resolved = resolve_name(name, root)
    holders = sorted(tag for tag, target in read_tags(root).items() if target == resolved)
    if holders:
        raise ArtifactError(f"{resolved} is tagged {', '.join(holders)}: untag it first (a tagged version is kept)")
    trash = root / f".removing-{resolved}"
    os.rename(root / resolved, trash)
    shutil.rmtree(trash)
    return resolved
