"""Propose executed query plans for a question, block by block (the search of Pangu, bounded for 2 cores).

Word sets come first, then joins and CompL-it senses, then filters: each set is asked of the endpoint once (ASK)
and an empty one is pruned before any operator is tried on it. The surviving sets are asked through the operators
the question's signals allow; every candidate runs, and candidates with the same answer are kept once (the first,
which used the fewest blocks). The read-only guard checks each query as it runs, like any other.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from itertools import product

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import Plan, Senses, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.retrieval.blocks import (catalog_plans, filter_sets, join_sets, operators, senses_options,
                                        word_sets)
from nl2sparql.retrieval.signals import Signals


@dataclass(frozen=True)
class EnumerationConfig:
    max_candidates: int = 60
    max_sets: int = 40
    budget_s: float = 1.6  # with the last query begun before it, p90 stays under 2 s on 2 cores
    query_timeout_s: float = 1.0  # the endpoint the enumerator is given should stop a query after this


def enumeration_endpoint(store=None, timeout_s: float = EnumerationConfig.query_timeout_s):
    """The embedded endpoint with the enumerator's short per-query limit (a slow candidate is dropped)."""
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig

    return EmbeddedEndpoint(EndpointConfig(store_path=store, timeout_s=timeout_s))


@dataclass(frozen=True)
class Candidate:
    plan: Plan
    sparql: str
    fingerprint: str  # of the answer: candidates with the same fingerprint answer the same
    rows: int
    boolean: bool | None
    seconds: float
    values: frozenset = frozenset()  # every cell value of the answer, or its boolean (what two answers agree on)

    def to_json(self) -> dict:
        return {"text": self.plan.text(), "it": verbalize(self.plan, "it"), "en": verbalize(self.plan, "en"),
                "sparql": self.sparql, "rows": self.rows, "boolean": self.boolean, "fingerprint": self.fingerprint,
                "seconds": round(self.seconds, 3)}


@dataclass
class Enumeration:
    candidates: list[Candidate] = field(default_factory=list)
    sets_tried: int = 0
    sets_pruned: int = 0
    seconds: float = 0.0
    stopped_early: bool = False


def fingerprint(result) -> str:
    if result.boolean is not None:
        return f"ask:{result.boolean}"
    rows = sorted(tuple(t.value if t is not None else "" for t in row) for row in result.rows)
    return hashlib.sha1(repr((len(result.variables), rows)).encode()).hexdigest()[:16]


def answer_values(result) -> frozenset | None:
    """Every cell value of an executed answer, or its boolean: what two answers must share to agree (the columns and
    their order aside); None when there is no answer to compare."""
    if result is None:
        return None
    if result.boolean is not None:
        return frozenset({("ask", result.boolean)})
    return frozenset(t.value for row in result.rows for t in row if t is not None) or None


def _word_role(plan: Plan) -> str:
    return f"{plan.words.bank}Word" if plan.words.bank != "italian" else "italianWord"


def _value_role(plan: Plan) -> str | None:
    return "polarityValue" if any(j.resource in ("elita", "sentix") for j in plan.joins) else None


def candidate_sets(s: Signals) -> list[Plan]:
    """Every word set × joins × CompL-it senses × filters the signals allow, smallest first."""
    sets = []
    for words, joins in product(word_sets(s), join_sets(s)):
        if words.bank != "italian" and joins and any(j.resource != words.bank for j in joins):
            continue
        if words.bank != "italian":
            joins = ()
        for senses in senses_options(s, joined=bool(joins)):
            if senses is not None and not senses.linked and (words.pos or words.kind or words.bank != "italian"):
                continue  # the lemma bank is not joined: its part of speech or type would say nothing
            base = Plan(words=words, joins=joins, senses=senses)
            for filters in filter_sets(s, _word_role(base), _value_role(base)):
                sets.append(base.with_block(filters=filters))
    if "ask" in s.operators and len(s.forms) > 1:  # "is X a hypernym of Y?": one named word on each side
        for relation in s.relations[:1]:
            for word, related in ((s.forms[1], s.forms[0]), (s.forms[0], s.forms[1])):
                sets.append(Plan(words=Words(forms=(word,)), senses=Senses(relation=relation, related_form=related)))
    return list(dict.fromkeys(sets))


def enumerate_plans(signals: Signals, endpoint, config: EnumerationConfig | None = None) -> Enumeration:
    from nl2sparql.errors import Nl2SparqlError

    config = config or EnumerationConfig()
    started = time.perf_counter()
    out = Enumeration()
    seen: set[str] = set()
    for plan in catalog_plans(signals):
        _run(plan, endpoint, out, seen)
    for base in candidate_sets(signals)[: config.max_sets]:
        if time.perf_counter() - started > config.budget_s or len(out.candidates) >= config.max_candidates:
            out.stopped_early = True
            break
        out.sets_tried += 1
        try:
            probe = endpoint.execute(compile_plan(base.with_block(operator="ask", columns=())))
            nonempty = bool(probe.boolean) and not probe.timed_out
        except Nl2SparqlError:
            out.sets_pruned += 1
            continue
        if not nonempty and "ask" not in signals.operators:
            out.sets_pruned += 1
            continue
        for plan in operators(base, signals):
            if time.perf_counter() - started > config.budget_s or len(out.candidates) >= config.max_candidates:
                out.stopped_early = True
                break
            _run(plan, endpoint, out, seen)
    out.seconds = time.perf_counter() - started
    return out


def _run(plan: Plan, endpoint, out: Enumeration, seen: set[str]) -> None:
    """Run one candidate; keep it when it answers something no earlier candidate answered."""
    from nl2sparql.errors import Nl2SparqlError

    sparql = compile_plan(plan)
    began = time.perf_counter()
    try:
        result = endpoint.execute(sparql)
    except Nl2SparqlError:
        return
    if result.timed_out:  # the endpoint's per-query limit: too slow to offer
        return
    key = fingerprint(result)
    if key in seen or (result.boolean is None and not result.rows):
        return
    seen.add(key)
    out.candidates.append(Candidate(plan, sparql, key, len(result.rows), result.boolean,
                                    time.perf_counter() - began, answer_values(result) or frozenset()))
