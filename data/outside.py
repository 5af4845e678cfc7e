"""Pairs written outside the project's design (`bench/outside`): authors who never saw the enumerator, its cues or
the curated data wrote them in the dataset's record format. A stable hash of each id puts it in the `design` half
(read its misses, design and train on it) or the `check` half (read only its counts)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def outside_half(record_id: str) -> str:
    """`design` or `check`: a stable half of the outside pairs, by the id's hash."""
    return "check" if int(hashlib.sha1(record_id.encode()).hexdigest(), 16) % 2 else "design"


def read_outside(paths: Path | list[Path], half: str) -> list:
    """The records of these files (a folder: every `*.jsonl` under it) in one half (`all`: both)."""
    from nl2sparql.data.dataset import read_jsonl

    paths = paths if isinstance(paths, list) else [paths]
    files = [f for p in paths for f in (sorted(p.rglob("*.jsonl")) if p.is_dir() else [p])]
    records = [record for file in files for record in read_jsonl(file)]
    return [r for r in records if half == "all" or outside_half(r.id) == half]
