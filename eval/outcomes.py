"""Why an answer is wrong: every scored question falls in one outcome, and a report counts them.

The classes follow the execution metric (`eval.metric.compare`): a question is right, partly right,
or wrong for one reason a maintainer can act on (the query does not run, it has the wrong form, it
misses an answer column, it answers nothing, or it answers other rows).
"""

from __future__ import annotations

from typing import Any

from nl2sparql.eval.scoring.metric import GOLD_IS_ASK, NO_MATCHING_COLUMN, PREDICTION_IS_ASK
from nl2sparql.kb.guard import check

OUTCOMES: dict[str, str] = {
    "exact": "the gold answer",
    "partial": "some gold rows (0 < F1 < 1)",
    "missing_column": "no column for a gold answer variable",
    "query_form": "SELECT where gold is ASK, or ASK where gold is SELECT",
    "empty": "valid, no rows where gold has some",
    "wrong_answer": "valid, an answer, none of it gold (other rows, or the other ASK boolean)",
    "invalid": "no valid query after repair",
    "failed": "the query or its scoring failed (timeout, endpoint error)",
}



def _gold_is_ask(question: dict[str, Any]) -> bool:
    """The gold query's form, as the read-only guard parses it (gold queries pass the guard to be scored)."""
    gold = question.get("gold_sparql", "")
    return bool(gold.strip()) and check(gold).form == "ASK"


def outcome(question: dict[str, Any]) -> str:
    """The outcome of one scored question (a row of `Report.questions`)."""
    if question["exact"]:
        return "exact"
    if not question["valid"]:
        return "invalid"
    error = question.get("error", "")
    if error.startswith(NO_MATCHING_COLUMN):
        return "missing_column"
    if error in (GOLD_IS_ASK, PREDICTION_IS_ASK):
        return "query_form"
    if error:
        return "failed"
    if question["f1"] > 0:
        return "partial"
    if question["rows"] == 0 and not _gold_is_ask(question):
        return "empty"
    return "wrong_answer"


def count_outcomes(questions: list[dict[str, Any]]) -> dict[str, int]:
    """How many questions fall in each outcome, in the order of `OUTCOMES` (all keys present)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for question in questions:
        counts[outcome(question)] += 1
    return counts
