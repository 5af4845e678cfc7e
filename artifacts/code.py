"""The program code that made an artifact: a hash of the source and data files that decide the program's answers and
their scores. An eval journal written by other code is not resumed and two reports by different code are not
compared without saying so (`eval`); the ranker's training lists are kept per code (`optimize`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

# What decides the answers and their scores: a journal written by other code is not resumed. The dataset is in
# too: its train records are the examples the program retrieves, and its ASK twins pair the scores.
_BEHAVIOUR = ("kb/**/*.py", "retrieval/*.py", "signatures/*.py", "modules/*.py", "data/constraints/*", "data/plans/*",
              "data/*.json", "data/dataset/*.jsonl", "artifacts/store/**/*.json", "eval/scoring/*.py")


# What makes the ranker's training lists: the program's behaviour less its LM side and versions (none of the list
# code imports `modules/` or `signatures/`: the LM engines, the ranker's features, the choice), plus the list builder
# itself. A change on the LM side leaves every list as it was, so new features and a new engine train on the lists
# already built.
_PROGRAM_ONLY = ("signatures/*.py", "modules/*.py", "artifacts/store/**/*.json")
_LISTS = (*(p for p in _BEHAVIOUR if p not in _PROGRAM_ONLY), "optimize/ranker/examples.py",
          "optimize/ranker/negatives.py")


def code_fingerprint(root: Path | None = None) -> str:
    """A hash of the source and data files that decide the program's answers and their scores."""
    return _fingerprint(root or Path(__file__).resolve().parent.parent)


def lists_fingerprint(root: Path | None = None) -> str:
    """A hash of the code that makes the ranker's training lists (`_LISTS`)."""
    return _fingerprint(root or Path(__file__).resolve().parent.parent, _LISTS)


def _fingerprint(root: Path, patterns: tuple[str, ...] = _BEHAVIOUR) -> str:
    digest = hashlib.sha256()
    for path in sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()}):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]
