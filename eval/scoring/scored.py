"""One scored question, typed: what was asked, what the program answered, its score and its outcome."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterable

from nl2sparql.eval.scoring.outcomes import Outcome, classify


@dataclass(frozen=True)
class ScoredQuestion:
    id: str
    language: str
    question: str
    patterns: tuple[str, ...]
    gold_sparql: str
    twin: str = ""  # an ASK question's contrastive twin (the same question, the other answer): see summarise
    sparql: str = ""
    valid: bool = False
    error: str = ""
    rows: int = 0
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    exact: bool = False
    attempts: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    lm_seconds: float = 0.0  # in the LM calls that wrote queries (the rest: analysis, retrieval, answer)
    exec_seconds: float = 0.0  # running queries
    grammar_refused: int = 0  # choices the grammar turned down while the LM wrote
    grammar_seconds: float = 0.0  # seconds spent finding allowed tokens instead
    stopped_early: bool = False  # the question's deadline passed before the program was done
    answered_by: str = ""  # a ranking version: "plan" (an enumerated candidate) or "generator"; "" otherwise
    outcome: Outcome = field(default=None)  # type: ignore[assignment]  # classified from the rest when not given

    def __post_init__(self) -> None:
        object.__setattr__(self, "patterns", tuple(self.patterns))
        object.__setattr__(self, "error", self.error or "")
        outcome = self.outcome if self.outcome is not None else classify(
            exact=self.exact, valid=self.valid, error=self.error, f1=self.f1, rows=self.rows,
            gold_sparql=self.gold_sparql)
        object.__setattr__(self, "outcome", Outcome(outcome))

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["patterns"] = list(self.patterns)
        data["outcome"] = self.outcome.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScoredQuestion:
        """From a report or journal row (rows written before outcomes were stored are classified on load)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def count_outcomes(questions: Iterable[ScoredQuestion]) -> dict[str, int]:
    """How many questions fall in each outcome, in the order of `Outcome` (all keys present)."""
    counts = Counter(q.outcome for q in questions)
    return {outcome.value: counts.get(outcome, 0) for outcome in Outcome}


def paired_exact(questions: Iterable[ScoredQuestion]) -> dict[str, bool]:
    """Each question's exactness with its twin: an ASK question is right only when its twin, the same question
    whose answer is the other boolean, is right too (a query that ignores the condition cannot be right on
    both). A question without a twin among these questions (none, or cut off by --limit) counts alone."""
    by_id = {q.id: q for q in questions}
    return {q.id: q.exact and (by_id[q.twin].exact if q.twin in by_id else True) for q in by_id.values()}


def percentile(values: list[float], fraction: float) -> float:
    """The value at `fraction` of the sorted values (nearest rank, as bench/latency.py's p95)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def summarise(questions: list[ScoredQuestion], among: list[ScoredQuestion] | None = None) -> dict[str, float]:
    """The figures of `questions`; `execution_accuracy` pairs ASK twins (found in `among`, default the questions
    themselves, so a per-pattern figure still sees a twin of another pattern), `execution_accuracy_per_record`
    does not."""
    if not questions:
        return {"questions": 0}
    n = len(questions)
    paired = paired_exact(among if among is not None else questions)
    seconds = [q.seconds for q in questions]
    return {"questions": n, "execution_accuracy": sum(paired.get(q.id, q.exact) for q in questions) / n,
            "execution_accuracy_per_record": sum(q.exact for q in questions) / n,
            "mean_f1": statistics.mean(q.f1 for q in questions),
            "valid_sparql_rate": sum(q.valid for q in questions) / n,
            "lm_calls_per_question": statistics.mean(q.calls for q in questions),
            "prompt_tokens_per_question": statistics.mean(q.prompt_tokens for q in questions),
            "completion_tokens_per_question": statistics.mean(q.completion_tokens for q in questions),
            "tokens_per_question": statistics.mean(q.tokens for q in questions),
            "p50_seconds": statistics.median(seconds), "p90_seconds": percentile(seconds, 0.90),
            "p99_seconds": percentile(seconds, 0.99), "max_seconds": max(seconds),
            "mean_seconds": statistics.mean(seconds),
            **_choice_shares(questions)}


def _choice_shares(questions: list[ScoredQuestion]) -> dict[str, float]:
    """A ranking version: how often a plan answered, and how often the generator had to (the fallback)."""
    chosen = [q.answered_by for q in questions if q.answered_by]
    if not chosen:
        return {}
    n = len(questions)
    return {"answered_by_plan": chosen.count("plan") / n, "answered_by_generator": chosen.count("generator") / n}
