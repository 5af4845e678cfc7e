"""Run a program over examples and score every answer with the execution metric."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

import dspy


@dataclass
class QuestionScore:
    record_id: str
    question: str
    sparql: str
    valid: bool
    exact: bool
    f1: float
    calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    error: str = ""


@dataclass
class SplitScore:
    questions: list[QuestionScore] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        q = self.questions
        if not q:
            return {"questions": 0}
        return {"questions": len(q), "execution_accuracy": sum(x.exact for x in q) / len(q),
                "mean_f1": statistics.mean(x.f1 for x in q), "valid_sparql_rate": sum(x.valid for x in q) / len(q),
                "lm_calls_per_question": statistics.mean(x.calls for x in q),
                "prompt_tokens_per_question": statistics.mean(x.prompt_tokens for x in q),
                "p50_seconds": statistics.median(x.seconds for x in q)}


def score_program(program, examples: list[dspy.Example], metric, on_result: Callable | None = None) -> SplitScore:
    """Sequential on purpose: the local model uses every core already, and its prompt cache is per process."""
    scores = SplitScore()
    for example in examples:
        started = time.perf_counter()
        try:
            prediction = program(**example.inputs())
            score = metric.score(example, prediction)
            usage = prediction.usage
            item = QuestionScore(example.record_id, example.question, prediction.sparql, bool(prediction.ok),
                                 score.exact, score.f1, usage["calls"], usage["prompt_tokens"],
                                 usage["completion_tokens"], prediction.seconds, score.error)
        except Exception as error:  # an LM or adapter failure counts as a wrong answer, not a crash
            item = QuestionScore(example.record_id, example.question, "", False, False, 0.0, 0, 0, 0,
                                 time.perf_counter() - started, f"{type(error).__name__}: {error}")
        scores.questions.append(item)
        if on_result:
            on_result(item, scores)
    return scores
