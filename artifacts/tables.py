"""What `artifacts list` shows: one row per compiled version (the shipped one first), as data and as a table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nl2sparql.artifacts.store import SHIPPED, artifact_root, open_shipped, open_version, read_tags, versions
from nl2sparql.errors import ArtifactError


def version_rows(root: Path | None = None) -> list[dict[str, Any]]:
    """Every version with its tags, parent, date, optimizer, LM and dev accuracy (the shipped one first)."""
    tags = read_tags(root)
    found: list[tuple[str, dict[str, Any], str | None]] = []
    for name in versions(root):
        try:
            found.append((name, open_version(name, root).manifest, None))
        except ArtifactError as error:  # one corrupt version is listed as such, not hiding the others
            found.append((name, {}, str(error)))
    try:
        found.insert(0, (SHIPPED, open_shipped().manifest, None))
    except ArtifactError:
        pass  # an installation without a shipped version
    return [{"version": name, "tags": sorted(t for t, v in tags.items() if v == name),
             "parent": manifest.get("parent"), "created_at": manifest.get("created_at"),
             "optimizer": manifest.get("optimizer"), "lm": manifest.get("lm"),
             "dev_accuracy": _accuracy(manifest), "error": error}
            for name, manifest, error in found]


def _accuracy(manifest: dict[str, Any]) -> float | None:
    scores = manifest.get("dev_scores")
    value = scores.get("execution_accuracy") if isinstance(scores, dict) else None
    return value if isinstance(value, (int, float)) else None


def versions_table(rows: list[dict[str, Any]], root: Path | None = None):
    from rich.table import Table
    from rich.text import Text

    table = Table("version", "tags", "parent", "created", "optimizer", "lm", "dev acc",
                  title=f"versions in {root or artifact_root()} (and the shipped one)")
    for r in rows:
        if r.get("error"):
            table.add_row(r["version"], ", ".join(r["tags"]), "", "", Text("corrupt", style="red"),
                          Text(r["error"], style="red"), "")
            continue
        acc = "" if r["dev_accuracy"] is None else f"{r['dev_accuracy']:.3f}"
        table.add_row(r["version"], ", ".join(r["tags"]), str(r["parent"] or ""), str(r["created_at"] or ""),
                      str(r["optimizer"] or ""), str(r["lm"] or ""), acc)
    return table
