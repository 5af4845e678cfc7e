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


# What reads the ranker's lists without making them: a change here leaves every list as it was.
_RANKER_ONLY = ("modules/rank_features.py", "modules/ranker.py", "modules/plan_choice.py")


def code_fingerprint(root: Path | None = None) -> str:
    """A hash of the source and data files that decide the program's answers and their scores."""
    return _fingerprint(root or Path(__file__).resolve().parent.parent, ())


def lists_fingerprint(root: Path | None = None) -> str:
    """The code that makes the ranker's training lists (the enumerator, the signals, the plans, the scoring): the
    program's code less the ranker's own features and choice, so new features train on the lists already built."""
    return _fingerprint(root or Path(__file__).resolve().parent.parent, _RANKER_ONLY)


def _fingerprint(root: Path, leave_out: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for path in sorted({p for pattern in _BEHAVIOUR for p in root.glob(pattern) if p.is_file()}):
        if path.relative_to(root).as_posix() in leave_out:
            continue
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]
