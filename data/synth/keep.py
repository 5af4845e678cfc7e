"""Which executed candidates are kept: they ran within the limits, answered (rows, or a yes/no kept in balance),
a person can read the answer, and no kept pair already has the same query or the same answer."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from nl2sparql.data.check import normalise_sparql
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kb.endpoint import Endpoint
from nl2sparql.kb.guard import check
from nl2sparql.kb.lint import lint
from nl2sparql.kb.results import QueryResult
from nl2sparql.data.synth.rules import Candidate
from nl2sparql.data.synth.text import keeps_slots

LIST_CAP = 50  # the most rows of a list a person reads through; counts and groups have their own cap
GROUP_CAP = 60


def result_fingerprint(result: QueryResult) -> str:
    """The answer's identity: ASK's boolean, or the sorted rows as strings (column names left out)."""
    if result.boolean is not None:
        return f"ask:{result.boolean}"
    rows = sorted(json.dumps(row, ensure_ascii=False) for row in result.values())
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


@dataclass
class Keeper:
    """Decides, candidate by candidate, and remembers what it kept (queries, answers, yes/no balance)."""

    endpoint: Endpoint
    accepts: Callable[[str], bool] | None = None  # the fine-tuned model's SPARQL grammar, when the caller has it
    list_cap: int = LIST_CAP
    queries: set[str] = field(default_factory=set)
    answers: set[str] = field(default_factory=set)
    booleans: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)

    def judge(self, candidate: Candidate) -> tuple[QueryResult | None, str | None]:
        """The result and None when the candidate is kept, else the reason it is not."""
        reason, result = self._problem(candidate)
        if reason:
            self.rejected[reason] += 1
        return result, reason

    def _problem(self, candidate: Candidate) -> tuple[str | None, QueryResult | None]:
        if not (keeps_slots(candidate.question_it, list(candidate.slots))
                and keeps_slots(candidate.question_en, list(candidate.slots))):
            return "wording lost a slot value", None
        key = normalise_sparql(candidate.sparql)
        if key in self.queries:
            return "duplicate query", None
        try:
            check(candidate.sparql)
            if lint(candidate.sparql):
                return "lint finding", None
            if self.accepts is not None and not self.accepts(candidate.sparql):
                return "outside the model's grammar", None
            result = self.endpoint.execute(candidate.sparql)
        except Nl2SparqlError:
            return "error", None
        if result.timed_out:
            return "timeout", result
        if result.truncated:
            return "too many rows", result
        if result.boolean is not None:
            if self.booleans[result.boolean] > self.booleans[not result.boolean]:
                return f"ask {str(result.boolean).lower()} over balance", result
        elif not result.rows or all(v is None for row in result.values() for v in row):
            return "empty", result
        elif candidate.aggregates and not candidate.answer and _zero(result):
            return "zero count", result
        elif len(result.rows) > (GROUP_CAP if candidate.aggregates else self.list_cap):
            return "too many rows", result
        fingerprint = result_fingerprint(result)
        single_number = candidate.aggregates and not candidate.answer
        if fingerprint in self.answers and result.boolean is None and not single_number:
            return "duplicate answer", result
        self.queries.add(key)
        self.answers.add(fingerprint)
        if result.boolean is not None:
            self.booleans[result.boolean] += 1
        return None, result


def _zero(result: QueryResult) -> bool:
    return all(v in (None, "0") for row in result.values() for v in row)
