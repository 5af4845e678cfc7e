"""Choose, don't guess: the enumerator's executed plans scored by the version's ranker, with the generator as one
more voice.

The ranker's probabilities come from a softmax over the candidates. When the best reaches `rank_accept`, it answers
and the generator is not asked (the common case costs the enumeration, not an LM call). Otherwise the generator
writes its query as before; when its answer is one a candidate also gives, that candidate answers (the two voices
agree; the plan reads back as words). Otherwise the best candidate answers if it reaches `rank_fallback`, or when the
generator's query gave no answer at all (it did not parse, was refused, failed or returned no rows: every candidate
ran and returned one); the generator's query (with its repairs) answers when none of these holds. Thresholds are
chosen on dev.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from nl2sparql.data.plans.model import Plan
from nl2sparql.kb.endpoint import stop_by
from nl2sparql.retrieval.enumerate import answer_values

SHOWN = 5  # candidates kept in the prediction (`out.candidates`, `ask --json`)


@dataclass
class Ranked:
    plan: Plan
    sparql: str
    score: float
    probability: float
    rows: int
    values: frozenset  # every cell value of its answer (or its boolean): what two answers agree on
    reading: str = ""
    chosen: bool = False

    def to_json(self) -> dict:
        return {"text": self.plan.text(), "reading": self.reading, "sparql": self.sparql,
                "score": round(self.score, 3), "probability": round(self.probability, 3), "rows": self.rows,
                "chosen": self.chosen}


@dataclass
class Ranking:
    ranked: list[Ranked] = field(default_factory=list)
    seconds: float = 0.0
    sets_tried: int = 0


class ShortQueries:
    """An endpoint whose every query stops after `seconds` (or by the question's deadline, when sooner): the
    enumerator's probes and candidates must not hold the question up."""

    def __init__(self, endpoint, seconds: float, stop_at: float | None = None) -> None:
        self.endpoint, self.seconds, self.stop_at = endpoint, seconds, stop_at
        self.width = getattr(endpoint, "width", 1)  # a pool's callers may ask at once

    def execute(self, sparql: str):
        limit = time.perf_counter() + self.seconds
        with stop_by(limit if self.stop_at is None else min(limit, self.stop_at)):
            return self.endpoint.execute(sparql)


def rank_candidates(question: str, ranker, runtime, settings, stop_at: float | None = None) -> Ranking:
    """Enumerate the question's plans on the runtime's endpoint within the settings' budget and score them, best
    first."""
    from nl2sparql.data.plans.verbalize import verbalize
    from nl2sparql.modules.rank_features import pair_features
    from nl2sparql.retrieval.enumerate import EnumerationConfig, enumerate_plans
    from nl2sparql.retrieval.language import guess_language
    from nl2sparql.retrieval.signals import read_signals

    started = time.perf_counter()
    signals = read_signals(question, runtime.lexicon, runtime.dialect_lexicons)
    config = EnumerationConfig(budget_s=settings.rank_budget_s)
    found = enumerate_plans(signals, ShortQueries(runtime.enumeration_endpoint, config.query_timeout_s, stop_at),
                            config)
    if not found.candidates:
        return Ranking([], time.perf_counter() - started, found.sets_tried)
    features = [pair_features(question, signals, c.plan, rank=i, rows=c.rows, boolean=c.boolean,
                              version=ranker.features_version)
                for i, c in enumerate(found.candidates)]
    scores = ranker.scores(features)
    probabilities = ranker.probabilities(scores)
    language = guess_language(question)
    ranked = [Ranked(c.plan, c.sparql, float(s), float(p), c.rows, c.values, verbalize(c.plan, language))
              for c, s, p in zip(found.candidates, scores, probabilities)]
    ranked.sort(key=lambda r: -r.score)
    return Ranking(ranked, time.perf_counter() - started, found.sets_tried)


def shown(ranking: Ranking) -> list[Ranked]:
    """The best few candidates, and the chosen one wherever it ranked."""
    return ranking.ranked[:SHOWN] + [r for r in ranking.ranked[SHOWN:] if r.chosen]


def decide(ranking: Ranking, settings, generated=None) -> tuple[Ranked | None, str]:
    """The candidate that answers and why; (None, reason) when the generator's query answers. `generated` is the
    generator's best attempt, None while it has not been asked."""
    if not ranking.ranked:
        return None, "no candidate"
    top = ranking.ranked[0]
    if generated is None:
        return (top, "confident") if top.probability >= settings.rank_accept else (None, "not sure")
    values = answer_values(generated.result) if generated.outcome in ("ok", "lint") else None
    if values is not None:
        agreeing = next((r for r in ranking.ranked if r.values == values), None)
        if agreeing is not None:
            return agreeing, "generator agrees"
    if top.probability >= settings.rank_fallback:
        return top, "ranked"
    if values is None:
        return top, "generator failed"
    return None, "generator"
