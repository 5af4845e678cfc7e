"""The generator as one voice among the candidates: its query, parsed into a plan where a plan says it, compiled in
our conventions and run, with the plan's one-block neighbours (`data/plans/neighbours.py`) run beside it.

A generator that wrote the right structure with one block wrong (a relation's direction, a required resource made
optional, another part of speech, a column more, a count of lemmas for one of written forms) is one step from the
answer; the enumerator may not have built that structure at all. Each neighbour runs on the enumerator's endpoint
(its short per-query stop); empty, failed and duplicate answers are dropped, as the enumerator drops them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from nl2sparql.retrieval.enumerate import Candidate


_UNWRITABLE = (ValueError, TypeError, KeyError, AttributeError, IndexError)


@dataclass
class GeneratorPlans:
    plan_text: str | None = None  # the generator's query as a plan (None: no plan says it)
    why_not: str = ""  # the block missing when it does not parse
    candidates: list[Candidate] = field(default_factory=list)  # the plan itself first, then its neighbours
    tried: int = 0
    seconds: float = 0.0


def generator_candidates(sparql: str, endpoint, budget_s: float = 1.0, max_neighbours: int = 40,
                         known: frozenset[str] = frozenset()) -> GeneratorPlans:
    """The executed plans around the generator's query; `known` fingerprints (the enumerator's answers) are not
    repeated. No neighbour starts after `budget_s`."""
    from nl2sparql.data.plans.neighbours import neighbours
    from nl2sparql.data.plans.parse import Unparsed, parse_plan
    from nl2sparql.retrieval.enumerate import _run

    started = time.perf_counter()
    try:
        plan = parse_plan(sparql)
    except (Unparsed, ValueError, TypeError, KeyError, AttributeError) as error:  # a query no plan says
        return GeneratorPlans(why_not=str(error)[:120] or type(error).__name__, seconds=time.perf_counter() - started)
    out = GeneratorPlans(plan_text=plan.text())
    seen = set(known)
    for candidate_plan in [plan, *neighbours(plan)[:max_neighbours]]:
        if time.perf_counter() - started > budget_s:
            break
        out.tried += 1
        try:
            found = _run(candidate_plan, endpoint)
        except _UNWRITABLE:  # a changed block the compiler cannot write (an order on a role no longer shown)
            found = None
        if found is None or found.fingerprint in seen:
            continue
        seen.add(found.fingerprint)
        out.candidates.append(found)
    out.seconds = time.perf_counter() - started
    return out
