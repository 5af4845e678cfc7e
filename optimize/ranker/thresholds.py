"""The choice's thresholds, chosen on dev: replay the choice (`modules/plan_choice.decide`) on each dev question
with the ranker's probabilities, each candidate's label, and the parent's own answer from its dev eval report (right
or not, whether it gave any answer, and which candidate answers the same values), for every pair (accept, fallback)
of a small grid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01)  # 1.01: never


@dataclass(frozen=True)
class DevQuestion:
    probabilities: np.ndarray  # the ranker's, per candidate
    labels: np.ndarray  # 1: the candidate answers as the gold does
    generator_right: bool  # the parent's answer was exact
    agreeing: int | None  # the best-scored candidate with the parent's answer values, if any
    generator_failed: bool = False  # the parent's query gave no answer (invalid, failed or no rows): the top answers


def replay(questions: list[DevQuestion], accept: float, fallback: float) -> tuple[float, float]:
    """(share right, share answered without the generator) of `decide` with these thresholds."""
    right = skipped = 0
    for q in questions:
        if not len(q.probabilities):
            right += q.generator_right
            continue
        top = int(np.argmax(q.probabilities))
        if q.probabilities[top] >= accept:
            right += int(q.labels[top])
            skipped += 1
        elif q.agreeing is not None:
            right += int(q.labels[q.agreeing])
        elif q.probabilities[top] >= fallback or q.generator_failed:
            right += int(q.labels[top])
        else:
            right += q.generator_right
    n = max(1, len(questions))
    return right / n, skipped / n


def choose(questions: list[DevQuestion], plan_share: float = 0.0) -> tuple[float, float, float, float]:
    """(accept, fallback, dev share right, share without the generator): among the pairs within one dev question of
    the best replayed accuracy (a difference dev cannot tell from noise), the one that asks the generator least (the
    faster program), then the more accurate. `plan_share`: only pairs that answer at least this share of dev without
    the generator (all pairs when none does)."""
    replays = [(accept, fallback, *replay(questions, accept, fallback))
               for accept in GRID for fallback in GRID if fallback <= accept]
    replays = [r for r in replays if r[3] >= plan_share - 1e-9] or replays
    best = max(right for _, _, right, _ in replays)
    close = [r for r in replays if r[2] >= best - 1 / max(1, len(questions)) - 1e-9]
    accept, fallback, right, skipped = max(close, key=lambda r: (r[3], r[2], -r[1]))
    return accept, fallback, right, skipped


def dev_questions(ranker, featured: list, made: list[dict], report: list[dict], endpoint) -> list[DevQuestion]:
    """Each dev list the report answered, with the parent's answer compared to every candidate's by their values."""
    from nl2sparql.data.plans.codec import plan_from_json
    from nl2sparql.data.plans.compile import compile_plan
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.retrieval.enumerate import answer_values

    def values(sparql: str):
        try:
            return answer_values(endpoint.execute(sparql))
        except Nl2SparqlError:
            return None

    answered = {f"{q['id']}:{q.get('language', 'it')}": q for q in report}
    out = []
    for f, m in zip(featured, made):
        q = answered.get(m["key"])
        if q is None:
            continue
        p = ranker.probabilities(ranker.scores(f.features)) if f.features else np.array([])
        generated = values(q["sparql"]) if q.get("valid") and q.get("sparql") else None
        agreeing = None
        if generated is not None:
            for i in np.argsort(-p):
                if values(compile_plan(plan_from_json(m["candidates"][int(i)]["plan"]))) == generated:
                    agreeing = int(i)
                    break
        out.append(DevQuestion(p, f.labels, bool(q.get("exact")), agreeing, generated is None))
    return out
