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


def summarise(questions: list[ScoredQuestion]) -> dict[str, float]:
    if not questions:
        return {"questions": 0}
    n = len(questions)
    return {"questions": n, "execution_accuracy": sum(q.exact for q in questions) / n,
            "mean_f1": statistics.mean(q.f1 for q in questions),
            "valid_sparql_rate": sum(q.valid for q in questions) / n,
            "lm_calls_per_question": statistics.mean(q.calls for q in questions),
            "prompt_tokens_per_question": statistics.mean(q.prompt_tokens for q in questions),
            "completion_tokens_per_question": statistics.mean(q.completion_tokens for q in questions),
            "tokens_per_question": statistics.mean(q.tokens for q in questions),
            "p50_seconds": statistics.median(q.seconds for q in questions),
            "mean_seconds": statistics.mean(q.seconds for q in questions)}
