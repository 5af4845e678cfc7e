"""Honest doubt: an answer that may be wrong says so, explains itself from its plan, and offers other readings.

An empty answer, a zero count and a "no" are as likely to come from a misread question as from the knowledge base;
so are two candidate readings that the ranker scores close and that answer differently. Such an answer gets one line
that says so, an explanation of an empty set from the plan's prefixes (the plan's blocks added one at a time and
counted: the block after which nothing is left is named), and the next best readings from the enumerator with their
own answers. All of it runs within a few seconds and the question's deadline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

from nl2sparql.data.plans.model import Aggregate, Plan, Senses

DOUBT_BUDGET_S = 4.0  # seconds the explanation and the alternatives may take together
QUERY_TIMEOUT_S = 2.0
MAX_ALTERNATIVES = 3
CLOSE = 0.15  # two readings whose probabilities differ by less than this are a close call
ALTERNATIVE_ROWS = 50

LINES = {
    "empty": ("Nothing found. That may be so, or the question may have been read differently from what you meant.",
              "Nessun risultato. Può essere così, o la domanda può essere stata letta diversamente da come la intendevi."),
    "zero": ("The count is 0. That may be so, or the question may have been read differently from what you meant.",
             "Il conteggio è 0. Può essere così, o la domanda può essere stata letta diversamente da come la intendevi."),
    "no": ("The answer is no. That may be so, or the question may have been read differently from what you meant.",
           "La risposta è no. Può essere così, o la domanda può essere stata letta diversamente da come la intendevi."),
    "close": ("Not sure: two readings of the question score close ({a:.2f} and {b:.2f}) and answer differently.",
              "Non è certo: due letture della domanda hanno punteggi vicini ({a:.2f} e {b:.2f}) e rispondono "
              "diversamente."),
}


@dataclass
class Alternative:
    """Another reading of the question, run: its words, its query and its answer."""

    reading: str
    sparql: str
    answer: str
    variables: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    count: int = 0
    probability: float | None = None

    def to_json(self) -> dict:
        return {"reading": self.reading, "sparql": self.sparql, "answer": self.answer, "variables": self.variables,
                "rows": self.rows, "count": self.count,
                "probability": None if self.probability is None else round(self.probability, 3)}


@dataclass
class Doubt:
    kind: str  # empty, zero, no, close
    line: str
    explanation: str = ""
    alternatives: list[Alternative] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"kind": self.kind, "line": self.line, "explanation": self.explanation,
                "alternatives": [a.to_json() for a in self.alternatives]}


@dataclass(frozen=True)
class Option:
    """A candidate reading before it is run again for its answer."""

    plan: Plan
    sparql: str
    values: frozenset | None
    probability: float | None = None


def doubt_kind(result) -> str | None:
    """"empty", "zero" or "no" for an answer that may come from a misread question; None otherwise."""
    if result is None:
        return None
    if result.boolean is not None:
        return None if result.boolean else "no"
    if not result.rows:
        return "empty"
    if len(result.rows) == 1 and len(result.variables) == 1:
        term = result.rows[0][0]
        if term is not None and term.value.strip() in ("0", "0.0"):
            return "zero"
    return None


def close_call(ranked: list) -> tuple[float, float] | None:
    """The probabilities of the two best readings when they answer differently and score within CLOSE."""
    if len(ranked) < 2:
        return None
    first, second = ranked[0], ranked[1]
    if first.values == second.values or first.probability - second.probability >= CLOSE:
        return None
    return first.probability, second.probability


def plan_prefixes(plan: Plan) -> list[tuple[Plan, str]]:
    """The plan's word set built up one block at a time, each with the role it is counted by ("*": its matches,
    "sense": distinct CompL-it senses). Empty for a catalog plan."""
    if plan.meta is not None:
        return []
    words = plan.words
    steps: list[tuple[Plan, str]] = []
    senses = plan.senses
    if senses is not None:
        linked = senses.linked if senses.linked == "word" else None
        bare_words = words if linked else replace(words, pos=(), kind=None)
        word_only = Senses(pos=senses.pos, linked=linked, typed=senses.typed)
        if words.forms or senses.pos:
            steps.append((Plan(words=bare_words, senses=word_only, columns=()), "*"))
        steps.append((Plan(words=bare_words, senses=replace(word_only, requires=senses.requires), columns=()), "sense"))
        current = Plan(words=words if senses.linked else bare_words, senses=senses, columns=())
        if senses.relation or senses.linked == "related":
            steps.append((current, "sense"))
        role = "sense"
    else:
        current = Plan(words=words, columns=())
        if words.forms or words.pos or words.kind or words.bank != "italian":
            steps.append((current, "*"))
        role = "*"
    for join in plan.joins:
        current = current.with_block(joins=current.joins + (join,))
        if join.mode != "optional":
            steps.append((current, role))
    for condition in plan.filters:
        current = current.with_block(filters=current.filters + (condition,))
        steps.append((current, role))
    return steps


def _count(prefix: Plan, role: str, endpoint) -> int:
    from nl2sparql.data.plans.compile import compile_plan

    counted = prefix.with_block(operator="count", columns=(), having=None, order=(), limit=None,
                                aggregates=(Aggregate("count", role, "n", distinct=role != "*"),))
    result = endpoint.execute(compile_plan(counted))
    if result.timed_out or not result.rows or result.rows[0][0] is None:
        raise TimeoutError("the count did not finish")
    return int(float(result.rows[0][0].value))


def explain_empty(plan: Plan, endpoint, language: str, stop_at: float) -> str:
    """Which block empties the plan's set: "“A” finds 3, but “A, B” finds none"; "" when it cannot be told in
    time or no block empties it."""
    from nl2sparql.data.plans.verbalize import verbalize
    from nl2sparql.errors import Nl2SparqlError

    en = language != "it"
    last: tuple[str, int] | None = None
    for prefix, role in plan_prefixes(plan):
        if time.perf_counter() > stop_at:
            return ""
        try:
            n = _count(prefix, role, endpoint)
            reading = verbalize(prefix.with_block(operator="list", columns=()), language)
        except (Nl2SparqlError, TimeoutError, KeyError, ValueError, StopIteration):
            return ""
        if n == 0:
            if last is None:
                return f"Why: “{reading}” finds nothing." if en else f"Perché: “{reading}” non trova nulla."
            return (f"Why: “{last[0]}” finds {last[1]}, but “{reading}” finds none." if en else
                    f"Perché: “{last[0]}” ne trova {last[1]}, ma “{reading}” nessuno.")
        last = (reading, n)
    return ""


def enumerated_options(question: str, runtime, settings, stop_at: float) -> list[Option]:
    """The enumerator's candidates for a question, in its own order (a version without a ranker)."""
    from nl2sparql.modules.plan_choice import ShortQueries
    from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans
    from nl2sparql.retrieval.signals import read_signals

    signals = read_signals(question, runtime.lexicon, runtime.dialect_lexicons)
    budget = max(0.0, min(settings.rank_budget_s, stop_at - time.perf_counter()))
    config = EnumerationConfig(budget_s=budget)
    endpoint = ShortQueries(runtime.enumeration_endpoint, config.query_timeout_s, stop_at)
    found = enumerate_plans(signals, endpoint, config)
    return [Option(c.plan, c.sparql, c.values) for c in found.candidates]


def ranked_options(ranking) -> list[Option]:
    return [Option(r.plan, r.sparql, r.values, r.probability) for r in ranking.ranked]


def alternatives(options: list[Option], answered: frozenset | None, language: str, endpoint,
                 stop_at: float, skip_doubtful: bool) -> list[Alternative]:
    """Up to MAX_ALTERNATIVES other readings, run, whose answers differ from the given one (and, when the given one
    is empty, zero or no, are not so themselves)."""
    from nl2sparql.data.plans.verbalize import verbalize
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.modules.answer import fetch_labels, render, shown_table

    out: list[Alternative] = []
    seen = {answered}
    for option in options:
        if len(out) >= MAX_ALTERNATIVES or time.perf_counter() > stop_at:
            break
        if option.values in seen or option.values is None:
            continue
        seen.add(option.values)
        try:
            result = endpoint.execute(option.sparql)
        except Nl2SparqlError:
            continue
        if result.timed_out or (skip_doubtful and doubt_kind(result) is not None):
            continue
        shown = render(result, language, fetch_labels(endpoint, result))
        variables, rows = shown_table(result, shown)
        out.append(Alternative(verbalize(option.plan, language), option.sparql, shown.text, variables,
                               rows[:ALTERNATIVE_ROWS], len(rows), option.probability))
    return out


def find_doubt(question: str, result, plan: Plan | None, ranking, runtime, settings,
               stop_at: float | None, language: str, on_doubt: Callable[[], None] | None = None) -> Doubt | None:
    """The doubt an answer deserves, with its explanation and alternatives; None when the answer is not in doubt.
    `on_doubt` hears when there is one, before the explanation and the alternatives are looked for."""
    from nl2sparql.modules.plan_choice import ShortQueries
    from nl2sparql.retrieval.enumerate import answer_values

    kind = doubt_kind(result)
    close = close_call(ranking.ranked) if ranking is not None and kind is None else None
    if kind is None and close is None:
        return None
    if on_doubt is not None:
        on_doubt()
    answered = answer_values(result)
    i = 0 if language != "it" else 1
    line = LINES["close"][i].format(a=close[0], b=close[1]) if close else LINES[kind][i]
    budget_end = time.perf_counter() + DOUBT_BUDGET_S
    stop = budget_end if stop_at is None else min(budget_end, stop_at)
    endpoint = ShortQueries(runtime.endpoint, QUERY_TIMEOUT_S, stop)
    explanation = explain_empty(plan, endpoint, language, stop) if kind is not None and plan is not None else ""
    options = ranked_options(ranking) if ranking is not None and ranking.ranked else \
        enumerated_options(question, runtime, settings, stop)
    found = alternatives(options, answered, language, endpoint, stop, skip_doubtful=kind is not None)
    return Doubt("close" if close else kind, line, explanation, found)
