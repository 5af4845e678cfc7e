"""One query tried: deterministic fixes, the read-only guard, the domain lint, then execution."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from nl2sparql.errors import EndpointError, QueryRejected, QuerySyntaxError
from nl2sparql.kb.endpoint import stop_by
from nl2sparql.kb.guard import check
from nl2sparql.kb.limits import QueryLimits
from nl2sparql.kb.lint import Finding, lint
from nl2sparql.kb.results import QueryResult
from nl2sparql.modules.fixes import PARSE_FIXES, SYNTAX_FIXES, apply_fixes


@dataclass
class Attempt:
    """One query tried: which step wrote it, what happened, and deterministic fixes applied on the way."""

    step: str
    sparql: str
    outcome: str  # ok | lint | empty | syntax | rejected | error
    detail: str = ""
    rows: int = 0
    fixes: list[str] = field(default_factory=list)
    result: QueryResult | None = field(default=None, repr=False)
    findings: list[Finding] = field(default_factory=list, repr=False)
    notes: list[str] = field(default_factory=list)  # what the guard added (standard prefixes declared)
    lm_seconds: float = 0.0  # the LM call that wrote the query (0 for a deterministic fix)
    exec_seconds: float = 0.0  # running it on the endpoint
    grammar_refused: int = 0  # choices the grammar turned down while the LM wrote it
    grammar_seconds: float = 0.0  # and the seconds spent finding an allowed token instead

    def spent(self, call) -> Attempt:
        """This attempt with what the LM call that wrote it spent (a `clock.LMCall`)."""
        self.lm_seconds = round(call.seconds, 3)
        self.grammar_refused = call.grammar_refused
        self.grammar_seconds = round(call.grammar_seconds, 3)
        return self

    @property
    def executed(self) -> bool:
        return self.result is not None

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("result")
        data["findings"] = [f.message for f in self.findings]
        return data


def run_query(step: str, sparql: str, endpoint, limits: QueryLimits | None = None,
              stop_at: float | None = None) -> Attempt:
    """Deterministic fixes, guard (with the endpoint's limits), lint, then execution on `endpoint`, ended by
    `stop_at` (a `time.perf_counter()` value, the question's deadline) when that comes before the endpoint's
    timeout; never executes what the guard refuses."""
    sparql, fixes = apply_fixes(sparql, SYNTAX_FIXES)
    names = [f.name for f in fixes]
    try:
        try:
            checked = check(sparql, limits)
        except QuerySyntaxError:
            repaired, more = apply_fixes(sparql, PARSE_FIXES)
            if not more:
                raise
            checked = check(repaired, limits)  # only a fix that makes the query parse is kept
            sparql, names = repaired, names + [f.name for f in more]
    except QueryRejected as error:
        return Attempt(step, sparql, "rejected", str(error), fixes=names)
    except QuerySyntaxError as error:
        return Attempt(step, sparql, "syntax", str(error), fixes=names)
    findings = lint(sparql)
    notes = [checked.note] if checked.note else []
    started = time.perf_counter()
    try:
        with stop_by(stop_at):
            result = endpoint.execute(sparql)
    except QuerySyntaxError as error:  # the store's parser is stricter than rdflib's (unbound SELECT vars)
        return Attempt(step, sparql, "syntax", str(error), fixes=names, findings=findings, notes=notes,
                       exec_seconds=round(time.perf_counter() - started, 3))
    except EndpointError as error:
        return Attempt(step, sparql, "error", str(error), fixes=names, findings=findings, notes=notes,
                       exec_seconds=round(time.perf_counter() - started, 3))
    seconds = round(time.perf_counter() - started, 3)
    empty = result.boolean is None and not result.rows
    if empty:
        outcome, detail = "empty", "the query ran and returned no rows"
    elif findings:
        outcome, detail = "lint", "; ".join(f.message for f in findings)
    else:
        outcome, detail = "ok", ""
    return Attempt(step, sparql, outcome, detail, len(result.rows), names, result, findings, notes,
                   exec_seconds=seconds)


def endpoint_limits(runtime) -> QueryLimits:
    """The guard's limits the endpoint is configured with (an endpoint handed in keeps its own)."""
    return getattr(getattr(runtime.endpoint, "config", None), "limits", None) or runtime.config.endpoint.limits
