"""What `artifacts list` shows: one row per compiled version (the shipped one first), as data and as a table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nl2sparql.artifacts.store import SHIPPED, artifact_root, open_shipped, open_version, read_tags, versions
from nl2sparql.errors import ArtifactError


def version_rows(root: Path | None = None) -> list[dict[str, Any]]:
    """Every version with its tags, parent, date, optimizer, LM and dev accuracy (the shipped one first)."""
    tags = read_tags(root)
    found = [(name, open_version(name, root).manifest) for name in versions(root)]
    try:
        found.insert(0, (SHIPPED, open_shipped().manifest))
    except ArtifactError:
        pass  # an installation without a shipped version
    return [{"version": name, "tags": sorted(t for t, v in tags.items() if v == name),
             "parent": manifest.get("parent"), "created_at": manifest.get("created_at"),
             "optimizer": manifest.get("optimizer"), "lm": manifest.get("lm"),
             "dev_accuracy": (manifest.get("dev_scores") or {}).get("execution_accuracy")}
            for name, manifest in found]


def versions_table(rows: list[dict[str, Any]], root: Path | None = None):
    from rich.table import Table

    table = Table("version", "tags", "parent", "created", "optimizer", "lm", "dev acc",
                  title=f"versions in {root or artifact_root()} (and the shipped one)")
    for r in rows:
        acc = "" if r["dev_accuracy"] is None else f"{r['dev_accuracy']:.3f}"
        table.add_row(r["version"], ", ".join(r["tags"]), str(r["parent"] or ""), str(r["created_at"] or ""),
                      str(r["optimizer"] or ""), str(r["lm"] or ""), acc)
    return table
