"""Why an answer is wrong: every scored question falls in one outcome, and a report counts them.

The classes follow the execution metric (`eval.metric.compare`): a question is right, partly right,
or wrong for one reason a maintainer can act on (the query does not run, it has the wrong form, it
misses an answer column, it answers nothing, or it answers other rows).
"""

from __future__ import annotations

import re
from typing import Any

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

# The starts of the reasons `eval.metric.compare` gives for a zero score.
_MISSING_COLUMN = "no predicted column matches"
_QUERY_FORM = ("gold is an ASK query", "the prediction is an ASK query")
_PROLOGUE = re.compile(r"^\s*(?:#[^\n]*\n\s*|(?:PREFIX\s+[^\s:]*:|BASE)\s*<[^>]*>\s*)*", re.IGNORECASE)


def is_ask(sparql: str) -> bool:
    """Whether a query is an ASK query (its form after the PREFIX/BASE prologue)."""
    return sparql[_PROLOGUE.match(sparql).end():].lstrip().upper().startswith("ASK")


def outcome(question: dict[str, Any]) -> str:
    """The outcome of one scored question (a row of `Report.questions`)."""
    if question["exact"]:
        return "exact"
    if not question["valid"]:
        return "invalid"
    error = question.get("error", "")
    if error.startswith(_MISSING_COLUMN):
        return "missing_column"
    if error.startswith(_QUERY_FORM):
        return "query_form"
    if error:
        return "failed"
    if question["f1"] > 0:
        return "partial"
    if question["rows"] == 0 and not is_ask(question.get("gold_sparql", "")):
        return "empty"
    return "wrong_answer"


def count_outcomes(questions: list[dict[str, Any]]) -> dict[str, int]:
    """How many questions fall in each outcome, in the order of `OUTCOMES` (all keys present)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for question in questions:
        counts[outcome(question)] += 1
    return counts
