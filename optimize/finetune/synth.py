"""Synthetic pairs (`nl2sparql data synth`) mixed into the fine-tune examples, the train-split rule kept: only
train pairs, and none whose query is a dev, test or generalization gold query."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from nl2sparql.data.check import normalise_sparql
from nl2sparql.data.dataset import Record, read_jsonl
from nl2sparql.data.synth.engine import CHAINS_FILE, MANIFEST_FILE, PAIRS_FILE
from nl2sparql.errors import DatasetError
from nl2sparql.optimize.finetune.examples import HELD_OUT_SPLITS

def synth_records(path: Path, records: list[Record], count: int) -> list[Record]:
    """The first `count` usable pairs of a synth folder (or its JSONL file), in the generator's order."""
    file = path / PAIRS_FILE if path.is_dir() else path
    if not file.is_file():
        raise DatasetError(f"no synthetic pairs at {file}: run 'nl2sparql data synth' first")
    held_out = _held_out(records)
    usable = [p for p in read_jsonl(file) if p.split == "train" and normalise_sparql(p.sparql) not in held_out]
    return usable[:count]


def one_language_each(pairs: list[Record]) -> Callable[[Record], list[tuple[str, str]]]:
    """The wordings of one language per pair, Italian and English in turn (the pair's paraphrases in that
    language too): for the tokens of one pair in both languages, two pairs, so twice the shapes."""
    language = {pair.id: ("it", "en")[index % 2] for index, pair in enumerate(pairs)}
    return lambda record: [(lang, text) for lang, text in record.questions() if lang == language[record.id]]


def synth_manifest(path: Path) -> dict:
    """What the fine-tune manifest records about the synthetic set: its manifest's seed, size and hash."""
    folder = path if path.is_dir() else path.parent
    try:
        data = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {"path": str(path)}
    return {"path": str(path), **{k: data.get(k) for k in ("seed", "kept", "hash", "kb_fingerprint")}}


def synth_chains(path: Path, records: list[Record]) -> list:
    """The follow-up chains of a synth folder (`data synth --chains N`), none with a turn whose query is a held-out
    gold query (a record's, or a dev or test chain turn's); [] when the folder has none."""
    from nl2sparql.data.chains import load_chains

    folder = path if path.is_dir() else path.parent
    if not (folder / CHAINS_FILE).is_file():
        return []
    held_out = _held_out(records) | {normalise_sparql(t.sparql) for c in load_chains() if c.split != "train"
                                     for t in c.turns}
    return [c for c in load_chains(folder / CHAINS_FILE)
            if c.split == "train" and not any(normalise_sparql(t.sparql) in held_out for t in c.turns)]


def _held_out(records: list[Record]) -> set[str]:
    return {normalise_sparql(r.sparql) for r in records if r.split in HELD_OUT_SPLITS}
