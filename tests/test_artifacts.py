"""Versioned artifacts: atomic writes, name resolution, tags, removal, and clear errors."""

import json
import re
from pathlib import Path

import pytest

from nl2sparql.artifacts.store import (
    SHIPPED_ROOT, open_version, remove_version, resolve_name, resolve_program_file, tag_version, versions,
    write_version,
)
from nl2sparql.errors import ArtifactError
from nl2sparql.modules.program import NL2SPARQL
from nl2sparql.modules.runtime import Runtime

CHANGELOG = Path(__file__).resolve().parents[1] / "data" / "CHANGELOG.md"

MANIFEST = {"parent": None, "created_at": "2026-11-23T12:00:00Z", "optimizer": "bootstrap", "lm": "dummy",
            "dataset_hash": "abc"}


def program(instructions="Write LiITA SPARQL."):
    prog = NL2SPARQL(runtime=Runtime())
    prog.generate.predict.signature = prog.generate.predict.signature.with_instructions(instructions)
    return prog


def test_versions_are_numbered_and_resolve(tmp_path):
    first = write_version(program("one"), MANIFEST, tmp_path)
    second = write_version(program("two"), {**MANIFEST, "parent": "v1"}, tmp_path)
    assert (first.name, second.name) == ("v1", "v2") and versions(tmp_path) == ["v1", "v2"]
    assert resolve_name("latest", tmp_path) == "v2"
    manifest = json.loads((tmp_path / "v2" / "manifest.json").read_text())
    assert manifest["version"] == "v2" and manifest["parent"] == "v1" and manifest["program_format"] == 1
    loaded = NL2SPARQL(runtime=Runtime())
    loaded.load(str(resolve_program_file("v1", tmp_path)))
    assert loaded.generate.predict.signature.instructions == "one"


def test_interrupted_write_leaves_nothing(tmp_path):
    class Broken:
        def save(self, path):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_version(Broken(), MANIFEST, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_tags_resolve_and_protect_from_removal(tmp_path):
    write_version(program(), MANIFEST, tmp_path)
    write_version(program(), MANIFEST, tmp_path)
    assert tag_version("v1", "best", tmp_path) == "v1"
    assert resolve_name("best", tmp_path) == "v1"
    with pytest.raises(ArtifactError, match="tagged best"):
        remove_version("best", tmp_path)
    assert remove_version("v2", tmp_path) == "v2" and versions(tmp_path) == ["v1"]
    with pytest.raises(ArtifactError, match="cannot be a tag"):
        tag_version("v1", "v7", tmp_path)


def test_unknown_corrupt_and_incompatible_versions_are_clear_errors(tmp_path):
    with pytest.raises(ArtifactError, match="unknown version 'v3'"):
        open_version("v3", tmp_path)
    # Nothing compiled yet: "latest" is the version the package ships.
    assert resolve_program_file("latest", tmp_path) == SHIPPED_ROOT / "v37" / "program.json"
    version = write_version(program(), MANIFEST, tmp_path)
    manifest = version.path / "manifest.json"
    manifest.write_text("{not json")
    with pytest.raises(ArtifactError, match="does not parse"):
        open_version("v1", tmp_path)
    manifest.write_text(json.dumps({**MANIFEST, "version": "v1", "program_format": 99}))
    with pytest.raises(ArtifactError, match="program format 99"):
        open_version("v1", tmp_path)
    manifest.write_text(json.dumps({"version": "v1"}))
    with pytest.raises(ArtifactError, match="lacks"):
        open_version("v1", tmp_path)


def test_shipped_version_is_complete_and_loads_into_the_current_program(tmp_path, monkeypatch):
    from nl2sparql.artifacts.store import effective_name, open_shipped
    from nl2sparql.data.dataset import dataset_hash, load_dataset
    from nl2sparql.modules.program import NL2SPARQL

    shipped = open_shipped()
    assert shipped.manifest["lm"] == "local/qwen-1.5b"  # compiled for the default local LM
    # Fine-tuned on today's dataset, or on one the gold changelog records as an earlier state of it (an audit edits
    # the gold after a version ships; the version keeps the hash it was built on).
    known = {dataset_hash(load_dataset())} | set(re.findall(r"`([0-9a-f]{16})`", CHANGELOG.read_text(encoding="utf-8")))
    assert shipped.manifest["dataset_hash"] in known
    assert effective_name("latest", tmp_path) == "shipped" and effective_name("uncompiled", tmp_path) == "uncompiled"
    state = json.loads(shipped.program_file.read_text())
    current = NL2SPARQL()
    # Every predictor of today's program is saved (the relevance and follow-up steps too).
    assert sorted(k for k in state if k != "metadata") == sorted(n for n, _ in current.named_predictors())
    current.load(str(shipped.program_file))
    assert current.scope.predict.demos == []
    # The shipped version is fine-tuned: its adapter is whole (checksum), small, and for the default local model.
    from nl2sparql.modules.adapter import LoraAdapter

    adapter = LoraAdapter.from_manifest(shipped.path, shipped.manifest)
    adapter.verify()
    assert adapter.base_model == "qwen-1.5b" and adapter.path.stat().st_size < 20_000_000
    write_version(program(), MANIFEST, tmp_path)
    assert effective_name("latest", tmp_path) == "v1"  # a compile of your own comes first
    monkeypatch.setattr("nl2sparql.artifacts.store.SHIPPED_ROOT", tmp_path / "none")
    assert effective_name("latest", tmp_path / "empty") == "uncompiled"
    with pytest.raises(ArtifactError, match="ships no compiled version"):
        open_shipped()
