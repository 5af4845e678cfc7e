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


def code_fingerprint(root: Path | None = None) -> str:
    """A hash of the source and data files that decide the program's answers and their scores."""
    root = root or Path(__file__).resolve().parent.parent  # the package
    digest = hashlib.sha256()
    for path in sorted({p for pattern in _BEHAVIOUR for p in root.glob(pattern) if p.is_file()}):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]
