"""How much of the curated data plans can say: each gold query parsed into a plan, the plan compiled back, both run,
and the answers compared with the eval metric's exactness (`round_trip`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.parse import Unparsed, parse_plan


@dataclass(frozen=True)
class RoundTrip:
    id: str
    split: str
    pattern: str  # the record's main pattern
    parsed: bool
    round_trip: bool
    reason: str  # the missing block, or why the compiled plan answers otherwise
    plan: str  # the plan's text form ("" when not parsed)


def round_trip(record, endpoint) -> RoundTrip:
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.eval.scoring.metric import execution_score

    main = record.patterns[0] if record.patterns else ""
    try:
        plan = parse_plan(record.sparql)
    except Unparsed as missing:
        return RoundTrip(record.id, record.split, main, False, False, str(missing), "")
    try:
        score = execution_score(endpoint, record.sparql, record.answer_variables, compile_plan(plan))
    except Nl2SparqlError as error:
        return RoundTrip(record.id, record.split, main, True, False, f"the gold query failed: {error}", plan.text())
    reason = "" if score.exact else (score.error or f"other answer (F1 {score.f1:.2f})")
    return RoundTrip(record.id, record.split, main, True, score.exact, reason, plan.text())


def summarize(results: list[RoundTrip]) -> dict:
    """Counts (`total`, `parsed`, `round_trip`), the same per main pattern, and the missing blocks by frequency."""
    per_pattern: dict[str, Counter] = {}
    for r in results:
        counts = per_pattern.setdefault(r.pattern, Counter())
        counts["total"] += 1
        counts["parsed"] += r.parsed
        counts["round_trip"] += r.round_trip
    missing = Counter(r.reason for r in results if not r.parsed)
    wrong = Counter(r.reason for r in results if r.parsed and not r.round_trip)
    return {"total": len(results), "parsed": sum(r.parsed for r in results),
            "round_trip": sum(r.round_trip for r in results),
            "per_pattern": {k: dict(v) for k, v in sorted(per_pattern.items())},
            "missing_blocks": dict(missing.most_common()), "answer_differs": dict(wrong.most_common()),
            "records": [asdict(r) for r in results]}
