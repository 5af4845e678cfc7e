"""Why an answer is wrong: every scored question falls in one outcome, and a report counts them.

The classes follow the execution metric (`scoring.metric.compare`): a question is right, partly right, or
wrong for one reason a maintainer can act on (the query does not run, it has the wrong form, it misses an
answer column, it answers nothing, or it answers other rows).
"""

from __future__ import annotations

from enum import Enum

from nl2sparql.eval.scoring.metric import (
    GOLD_IS_ASK,
    NO_MATCHING_COLUMN,
    PREDICTION_IS_ASK,
)
from nl2sparql.kb.guard import check


class Outcome(str, Enum):
    EXACT = "exact"
    PARTIAL = "partial"
    MISSING_COLUMN = "missing_column"
    QUERY_FORM = "query_form"
    EMPTY = "empty"
    WRONG_ANSWER = "wrong_answer"
    INVALID = "invalid"
    FAILED = "failed"

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]


_MEANINGS: dict[Outcome, str] = {
    Outcome.EXACT: "the gold answer",
    Outcome.PARTIAL: "some gold rows (0 < F1 < 1)",
    Outcome.MISSING_COLUMN: "no column for a gold answer variable",
    Outcome.QUERY_FORM: "SELECT where gold is ASK, or ASK where gold is SELECT",
    Outcome.EMPTY: "valid, no rows where gold has some",
    Outcome.WRONG_ANSWER: "valid, an answer, none of it gold (other rows, or the other ASK boolean)",
    Outcome.INVALID: "no valid query after repair",
    Outcome.FAILED: "the query or its scoring failed (timeout, endpoint error)",
}


def _gold_is_ask(gold_sparql: str) -> bool:
    """The gold query's form, as the read-only guard parses it (gold queries pass the guard to be scored)."""
    return bool(gold_sparql.strip()) and check(gold_sparql).form == "ASK"


def classify(*, exact: bool, valid: bool, error: str, f1: float, rows: int, gold_sparql: str) -> Outcome:
    """The outcome of one scored answer."""
    if exact:
        return Outcome.EXACT
    if not valid:
        return Outcome.INVALID
    if error.startswith(NO_MATCHING_COLUMN):
        return Outcome.MISSING_COLUMN
    if error in (GOLD_IS_ASK, PREDICTION_IS_ASK):
        return Outcome.QUERY_FORM
    if error:
        return Outcome.FAILED
    if f1 > 0:
        return Outcome.PARTIAL
    if rows == 0 and not _gold_is_ask(gold_sparql):
        return Outcome.EMPTY
    return Outcome.WRONG_ANSWER
