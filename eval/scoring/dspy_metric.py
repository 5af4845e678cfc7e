"""The execution metric in DSPy's shapes: a float for bootstrap/random-search/MIPRO, score + feedback for GEPA."""

from __future__ import annotations

from dataclasses import dataclass

import dspy
from nl2sparql.data.dataset import Record
from nl2sparql.eval.scoring.gold import GoldCache
from nl2sparql.eval.scoring.metric import Score, execution_score


def to_example(record: Record, language: str) -> dspy.Example:
    question = record.question_it if language == "it" else record.question_en
    return dspy.Example(question=question, exclude_ids=(record.id,), record_id=record.id, language=language,
                        gold_sparql=record.sparql).with_inputs("question", "exclude_ids")


def examples(records: list[Record], languages: tuple[str, ...] = ("it", "en")) -> list[dspy.Example]:
    """One example per record, alternating languages so both are seen in every split."""
    return [to_example(r, languages[i % len(languages)]) for i, r in enumerate(records)]


@dataclass
class ExecutionMetric:
    """Scores a prediction by executing it and its gold query on the same endpoint (gold cached)."""

    records: dict[str, Record]
    gold: GoldCache

    def score(self, example: dspy.Example, prediction) -> Score:
        record = self.records[example.record_id]
        sparql = getattr(prediction, "sparql", "") or ""
        if not getattr(prediction, "ok", True):
            return Score.zero("; ".join(getattr(prediction, "errors", []) or ["no valid query"]))
        return execution_score(self.gold.endpoint, record.sparql, record.answer_variables, sparql,
                               gold_result=self.gold.get(record.sparql), run_gold=self.gold.get)

    def __call__(self, example, prediction, trace=None) -> float | bool:
        score = self.score(example, prediction)
        # While bootstrapping (trace is set) only exact answers make demos.
        return score.exact if trace is not None else score.f1


@dataclass
class FeedbackMetric(ExecutionMetric):
    """GEPA's metric: the score and a text a reflection LM can learn from."""

    def __call__(self, gold, pred, trace=None, pred_name=None, pred_trace=None):
        score = self.score(gold, pred)
        lines = [f"F1 {score.f1:.2f} (precision {score.precision:.2f}, recall {score.recall:.2f})."]
        if score.error:
            lines.append(f"Error: {score.error}")
        for attempt in getattr(pred, "attempts", []) or []:
            if attempt.outcome != "ok":
                lines.append(f"{attempt.step}: {attempt.outcome} {attempt.detail[:200]}")
        if not score.exact:
            lines.append("A correct query for this question:\n" + gold.gold_sparql)
        return dspy.Prediction(score=score.f1, feedback="\n".join(lines))
