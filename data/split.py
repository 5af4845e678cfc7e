"""Fixed-seed splits, stratified by main pattern, stored in the dataset files (never recomputed on load)."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import replace

from nl2sparql.data.check import structure
from nl2sparql.data.dataset import SPLITS, Record

DEFAULT_SEED = 13


def assign_splits(records: list[Record], seed: int = DEFAULT_SEED, reassign: bool = False) -> list[Record]:
    """Give every unassigned record ('auto') a train/dev/test split; generalization records stay.

    Records sharing a structure with a generalization record never go to train, so the
    generalization split keeps structures train has never seen. An ASK record's twin goes where its original goes.
    """
    held_out = {structure(r) for r in records if r.split == "generalization"}
    pending = [r for r in records if not r.twin and (r.split == "auto" or (reassign and r.split in ("train", "dev",
                                                                                                    "test")))]
    by_pattern: dict[str, list[Record]] = defaultdict(list)
    for record in sorted(pending, key=lambda r: r.id):
        by_pattern[record.patterns[0]].append(record)
    rng = random.Random(seed)
    assigned: dict[str, str] = {}
    for pattern in sorted(by_pattern):
        group = by_pattern[pattern]
        rng.shuffle(group)
        for position, record in enumerate(group):
            split = _split_at(position)
            if split == "train" and structure(record) in held_out:
                split = "test" if position % 2 else "dev"
            assigned[record.id] = split
    splits = {r.id: assigned.get(r.id, r.split) for r in records}
    for record in records:
        if record.twin and splits.get(record.twin) in SPLITS:
            assigned[record.id] = splits[record.twin]
    return [replace(r, split=assigned[r.id]) if r.id in assigned else r for r in records]


def _split_at(position: int) -> str:
    # Interleave so every pattern with 3+ records reaches dev and test: positions cycle
    # through a 20-slot pattern of 14 train, 3 dev, 3 test.
    slot = position % 20
    if slot in (3, 10, 17):
        return "dev"
    if slot in (6, 13, 19):
        return "test"
    return "train"
