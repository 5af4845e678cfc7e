"""Run a program over examples and score every answer with the execution metric (shared by compile,
eval runs and bench/ask.py)."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import dspy


def score_question(program, metric, example: dspy.Example) -> dict[str, Any]:
    """One question: the program's answer and its score; an LM failure is a wrong answer, not a crash."""
    record = metric.records[example.record_id]
    started = time.perf_counter()
    base = {"id": record.id, "language": example.get("language", "it"), "question": example.question,
            "patterns": list(record.patterns), "gold_sparql": record.sparql}
    try:
        prediction = program(**example.inputs())
        score = metric.score(example, prediction)
        usage = prediction.usage
        rows = len(prediction.result.rows) if prediction.result is not None else 0
        return {**base, "sparql": prediction.sparql, "valid": bool(prediction.ok), "error": score.error,
                "rows": rows, "precision": score.precision, "recall": score.recall, "f1": score.f1,
                "exact": score.exact, "attempts": len(prediction.attempts), "calls": usage["calls"],
                "prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"],
                "seconds": round(prediction.seconds, 3)}
    except Exception as error:
        return {**base, "sparql": "", "valid": False, "error": f"{type(error).__name__}: {error}", "rows": 0,
                "precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": False, "attempts": 0, "calls": 0,
                "prompt_tokens": 0, "completion_tokens": 0, "seconds": round(time.perf_counter() - started, 3)}


def summarise(questions: list[dict]) -> dict[str, float]:
    if not questions:
        return {"questions": 0}
    n = len(questions)
    return {"questions": n, "execution_accuracy": sum(q["exact"] for q in questions) / n,
            "mean_f1": statistics.mean(q["f1"] for q in questions),
            "valid_sparql_rate": sum(q["valid"] for q in questions) / n,
            "lm_calls_per_question": statistics.mean(q["calls"] for q in questions),
            "prompt_tokens_per_question": statistics.mean(q["prompt_tokens"] for q in questions),
            "completion_tokens_per_question": statistics.mean(q["completion_tokens"] for q in questions),
            "tokens_per_question": statistics.mean(q["prompt_tokens"] + q["completion_tokens"] for q in questions),
            "p50_seconds": statistics.median(q["seconds"] for q in questions),
            "mean_seconds": statistics.mean(q["seconds"] for q in questions)}


@dataclass
class SplitScore:
    questions: list[dict[str, Any]] = field(default_factory=list)

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
