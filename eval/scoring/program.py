"""Run a program over examples and score every answer with the execution metric (shared by compile,
eval runs and bench/ask.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import dspy
from nl2sparql.eval.scoring.scored import ScoredQuestion, summarise


def score_question(program, metric, example: dspy.Example) -> ScoredQuestion:
    """One question: the program's answer and its score; an LM failure is a wrong answer, not a crash."""
    record = metric.records[example.record_id]
    started = time.perf_counter()
    asked = {"id": record.id, "language": example.get("language", "it"), "question": example.question,
             "patterns": tuple(record.patterns), "gold_sparql": record.sparql,
             "twin": record.twin or next((r.id for r in metric.records.values() if r.twin == record.id), "")}
    try:
        prediction = program(**example.inputs())
        score = metric.score(example, prediction)
        usage = prediction.usage
        rows = len(prediction.result.rows) if prediction.result is not None else 0
        return ScoredQuestion(**asked, sparql=prediction.sparql, valid=bool(prediction.ok), error=score.error,
                              rows=rows, precision=score.precision, recall=score.recall, f1=score.f1,
                              exact=score.exact, attempts=len(prediction.attempts), calls=usage["calls"],
                              prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"],
                              seconds=round(prediction.seconds, 3), **spent(prediction),
                              answered_by=(getattr(prediction, "choice", None) or {}).get("answered_by", ""))
    except Exception as error:
        return ScoredQuestion(**asked, error=f"{type(error).__name__}: {error}",
                              seconds=round(time.perf_counter() - started, 3))


def spent(prediction) -> dict:
    """Where a prediction's time went, summed over its attempts (LM, execution, grammar fallbacks)."""
    attempts = prediction.attempts
    return {"lm_seconds": round(sum(a.lm_seconds for a in attempts), 3),
            "exec_seconds": round(sum(a.exec_seconds for a in attempts), 3),
            "grammar_refused": sum(a.grammar_refused for a in attempts),
            "grammar_seconds": round(sum(a.grammar_seconds for a in attempts), 3),
            "stopped_early": bool(getattr(prediction, "stopped_early", False))}


@dataclass
class SplitScore:
    questions: list[ScoredQuestion] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        return summarise(self.questions)


def score_program(program, examples: list[dspy.Example], metric, on_result: Callable | None = None) -> SplitScore:
    """Sequential on purpose: the local model uses every core already, and its prompt cache is per process."""
    scores = SplitScore()
    for example in examples:
        scores.questions.append(score_question(program, metric, example))
        if on_result:
            on_result(scores.questions[-1], scores)
    return scores
