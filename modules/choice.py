"""Execution-guided choice: among queries that ran, the answer most of them agree on (MBR over results).

When the first query fails or returns nothing, the program may sample a few more candidates instead of
spending its budget on sequential repair; each is executed, and queries whose results are the same multiset
of rows (or the same ASK boolean) vote together. The largest group wins, the earliest on a tie, and its first
query is the answer. Queries that did not run, or ran empty, do not vote.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence


def result_key(attempt) -> tuple | None:
    """What two attempts must share to agree: the ASK boolean, or the rows as a multiset; None for no answer."""
    result = attempt.result
    if result is None or attempt.outcome not in ("ok", "lint"):
        return None
    if result.boolean is not None:
        return ("ask", result.boolean)
    return ("rows", tuple(sorted(Counter(tuple(row) for row in result.values()).items())))


def choose_by_execution(attempts: Sequence) -> object | None:
    """The first attempt of the largest group of agreeing executed answers; None when none ran with rows."""
    keyed = [(result_key(a), a) for a in attempts]
    votes = Counter(key for key, _ in keyed if key is not None)
    if not votes:
        return None
    best = max(votes.values())
    for key, attempt in keyed:
        if key is not None and votes[key] == best:
            return attempt
    return None
