"""Propose executed query plans for a question, block by block (the search of Pangu, bounded for 2 cores).

Word sets come first, then joins and CompL-it senses, then filters: each set is asked of the endpoint once (ASK)
and an empty one is pruned before any operator is tried on it. The surviving sets are asked through the operators
the question's signals allow; every candidate runs, and candidates with the same answer are kept once (the first,
which used the fewest blocks). The read-only guard checks each query as it runs, like any other.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import product

from nl2sparql.data.plans.compile import compile_plan
from nl2sparql.data.plans.model import RELATIONS, Plan, Senses, Words
from nl2sparql.data.plans.verbalize import verbalize
from nl2sparql.kb.endpoint import stop_by
from nl2sparql.retrieval.blocks import join_sets, operators, word_sets
from nl2sparql.retrieval.senses_blocks import senses_options
from nl2sparql.retrieval.catalog_blocks import catalog_plans
from nl2sparql.retrieval.column_blocks import unique
from nl2sparql.retrieval.filter_blocks import (
    any_case_filters,
    authentic_filters,
    definition_filters,
    filter_sets,
    same_form_filters,
)
from nl2sparql.retrieval.signals import Signals


@dataclass(frozen=True)
class EnumerationConfig:
    max_candidates: int = 60
    max_sets: int = 40
    budget_s: float = 1.6  # no query begins after this
    # the endpoint the enumerator is given should stop a query after this (1.0 before: 1.5 covers one more train and
    # one more dev question, broad Sentix and CompL-it groups, with p90 and max unchanged; the hard stop bounds both)
    query_timeout_s: float = 1.5
    grace_s: float = 0.3  # and every query still running stops this long after the budget (p90 under 2 s)
    # nothing found by then (two broad CompL-it sets asked at once, each past the per-query limit): the sets once
    # more, one at a time and one query at a time, until this (max under 5 s); questions with a candidate never wait
    empty_budget_s: float = 3.8


def enumeration_endpoint(store=None, timeout_s: float = EnumerationConfig.query_timeout_s, width: int = 2):
    """The embedded endpoint with the enumerator's short per-query limit (a slow candidate is dropped): `width`
    store workers, so that two word sets are asked at once on two cores."""
    from nl2sparql.kb.embedded import EmbeddedEndpoint
    from nl2sparql.kb.endpoint import EndpointConfig, EndpointPool

    return EndpointPool([EmbeddedEndpoint(EndpointConfig(store_path=store, timeout_s=timeout_s))
                         for _ in range(max(1, width))])


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


def _value_roles(plan: Plan) -> list[str | None]:
    """The polarity value a threshold is on: the one resource's, or each one's when ELITA and Sentix are joined."""
    polar = [j.resource for j in plan.joins if j.resource in ("elita", "sentix") and j.mode == "has"]
    return [f"{r}Value" for r in reversed(polar)] if len(polar) > 1 else ["polarityValue"] if polar else [None]


def _word_roles(plan: Plan) -> list[str]:
    """Whose written form a filter is on: the set's words, or a joined dialect's ("forme siciliane che …"); the related
    words first when the set's word is named ("quali parti di 'automobile' hanno 6 lettere")."""
    related = RELATIONS.get(plan.senses.relation or "") if plan.senses is not None and plan.words.forms else None
    dialects = [f"{j.resource}Word" for j in plan.joins
                if j.mode == "has" and j.resource in ("sicilian", "parmigiano") and not j.form]
    return ([related[2]] if related else []) + [_word_role(plan)] + dialects


def candidate_sets(s: Signals) -> list[Plan]:
    """Every word set × joins × CompL-it senses × filters the signals allow, smallest first."""
    sets = []
    for words, joins in product(word_sets(s), join_sets(s)):
        if words.bank != "italian" and joins and any(j.resource != words.bank for j in joins):
            continue
        if words.bank != "italian":
            joins = ()
        linked = bool(joins) or (s.authentic and words.bank == "italian")  # an IRI test needs the lemma
        # "a quale lemma di LiITA è collegata la parola di CompL-it": linked to the lemma bank, and as it is
        links = [linked] + ([True] if s.bank_link and not linked and words.bank == "italian" else [])
        for senses in unique([o for link in links for o in senses_options(s, joined=link)]):
            if senses is not None and not senses.linked and (words.pos or words.kind or words.bank != "italian"):
                continue  # the lemma bank is not joined: its part of speech or type would say nothing
            base = Plan(words=words, joins=joins, senses=senses)
            roles = [(w, v) for w in _word_roles(base)[: 2 if s.affixes or s.length else 1] for v in _value_roles(base)]
            defined, same_form = definition_filters(s, senses), same_form_filters(s, base) + any_case_filters(s, words)
            for word_role, value_role in roles:
                for filters, authentic in product(filter_sets(s, word_role, value_role), authentic_filters(s, base)):
                    filters = filters + authentic + same_form
                    sets += [base.with_block(filters=filters + (d,)) for d in defined] or [
                        base.with_block(filters=filters)]
    # the same sets with CompL-it joined on the written form, after every other: where a CompL-it word's IRI is not
    # the lemma's ("le parole di Gioia e la loro definizione" reaches the words spelled alike too)
    sets += [replace(p, senses=replace(p.senses, linked="form")) for p in sets
             if p.senses is not None and p.senses.linked == "word" and p.joins]
    if "ask" in s.operators and len(s.forms) > 1:  # "is X a hypernym of Y?": one named word on each side
        for relation in s.relations[:1]:
            for word, related in ((s.forms[1], s.forms[0]), (s.forms[0], s.forms[1])):
                sets.append(Plan(words=Words(forms=(word,)), senses=Senses(relation=relation, related_form=related)))
    return list(dict.fromkeys(sets))


def enumerate_plans(signals: Signals, endpoint, config: EnumerationConfig | None = None) -> Enumeration:
    """Candidates in the order of their word sets (smallest first), each set asked by one task; an endpoint with a
    `width` (a pool of store workers) runs that many tasks at once. Which candidates are kept does not depend on
    which task finished first: duplicates are dropped in the sets' order."""
    config = config or EnumerationConfig()
    started = time.perf_counter()
    out = Enumeration()
    search = _Search(signals, endpoint, config, started)
    runs = _run_all(search, catalog_plans(signals), max(1, int(getattr(endpoint, "width", 1))))
    sets = candidate_sets(signals)[: config.max_sets]
    per_set = _ask_sets(search, sets, endpoint)
    if signals.forms and not signals.quoted and not any(c for _, found in [("catalog", runs)] + per_set
                                                        for c in found):
        # nothing with the words it names: read it again without them ("i verbi siciliani del campione …": a
        # common word the lemma bank also has is no word asked about), in what is left of the same budget
        relaxed = _Search(replace(signals, forms=()), endpoint, config, started)
        per_set += _ask_sets(relaxed, candidate_sets(relaxed.signals)[: config.max_sets], endpoint)
        search.stopped = search.stopped or relaxed.stopped
    if search.stopped and not any(c for _, found in [("catalog", runs)] + per_set for c in found):
        longer = replace(config, budget_s=max(config.budget_s, config.empty_budget_s))
        alone = _Search(signals, endpoint, longer, started)
        per_set = [alone.ask_set(base) for base in sets]
    seen: set[str] = set()
    for outcome in [("catalog", runs)] + per_set:
        state, found = outcome
        if state == "pruned":
            out.sets_tried += 1
            out.sets_pruned += 1
        elif state == "asked":
            out.sets_tried += 1
        for candidate in found:
            if candidate is not None and candidate.fingerprint not in seen:
                seen.add(candidate.fingerprint)
                out.candidates.append(candidate)
    out.candidates = out.candidates[: config.max_candidates]
    out.stopped_early = search.stopped
    out.seconds = time.perf_counter() - started
    return out


def _run_all(search: _Search, plans: list[Plan], width: int) -> list[Candidate | None]:
    """Plans run in their order (kept in it), `width` at once."""
    if width == 1 or len(plans) < 2:
        return [search.run_in_time(plan) for plan in plans]
    with ThreadPoolExecutor(max_workers=width) as pool:
        return list(pool.map(search.run_in_time, plans))


def _ask_sets(search: _Search, sets: list[Plan], endpoint) -> list[tuple[str, list]]:
    width = max(1, int(getattr(endpoint, "width", 1)))
    if width == 1 or len(sets) == 1:  # one set alone: its plans share the store workers (one broad set, two cores)
        return [search.ask_set(base, width) for base in sets]
    with ThreadPoolExecutor(max_workers=width) as pool:
        return list(pool.map(search.ask_set, sets))


class _Search:
    """The bounded search's state: its clock, and how many answers were found (the candidate budget)."""

    def __init__(self, signals: Signals, endpoint, config: EnumerationConfig, started: float) -> None:
        self.signals, self.endpoint, self.config, self.started = signals, endpoint, config, started
        self.answered = 0
        self.stopped = False
        self.stop_at = started + config.budget_s + config.grace_s

    def over(self) -> bool:
        if time.perf_counter() - self.started > self.config.budget_s or self.answered >= self.config.max_candidates:
            self.stopped = True
        return self.stopped

    def ask_set(self, base: Plan, width: int = 1) -> tuple[str, list]:
        """("skipped" | "pruned" | "asked", candidates): an empty set is pruned by one ASK before its operators; its
        plans run `width` at once."""
        from nl2sparql.errors import Nl2SparqlError

        if self.over():
            return "skipped", []
        try:
            with stop_by(self.stop_at):
                probe = self.endpoint.execute(compile_plan(base.with_block(operator="ask", columns=())))
            nonempty = bool(probe.boolean) and not probe.timed_out
        except Nl2SparqlError:
            return "pruned", []
        if not nonempty and "ask" not in self.signals.operators:
            return "pruned", []
        plans = operators(base, self.signals)
        if width > 1:
            return "asked", [c for c in _run_all(self, plans, width) if c is not None]
        found = []
        for plan in plans:
            if self.over():
                break
            found.append(self.run(plan))
        return "asked", found

    def run_in_time(self, plan: Plan) -> Candidate | None:
        return None if self.over() else self.run(plan)

    def run(self, plan: Plan) -> Candidate | None:
        with stop_by(self.stop_at):
            candidate = _run(plan, self.endpoint)
        if candidate is not None:
            self.answered += 1
        return candidate


def _run(plan: Plan, endpoint) -> Candidate | None:
    """Run one candidate: None when it fails, times out or answers nothing."""
    from nl2sparql.errors import Nl2SparqlError

    sparql = compile_plan(plan)
    began = time.perf_counter()
    try:
        result = endpoint.execute(sparql)
    except Nl2SparqlError:
        return None
    if result.timed_out or (result.boolean is None and not result.rows):  # too slow to offer, or empty
        return None
    return Candidate(plan, sparql, fingerprint(result), len(result.rows), result.boolean,
                     time.perf_counter() - began, answer_values(result) or frozenset())
