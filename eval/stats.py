"""Paired statistics for comparing two runs on the same questions."""

from __future__ import annotations

import math
import random


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (A right/B wrong, A wrong/B right)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_bootstrap_ci(a: list[float], b: list[float], *, samples: int = 2000, seed: int = 13,
                        level: float = 0.95) -> tuple[float, float, float]:
    """Mean of b − a and its percentile bootstrap interval, resampling questions (pairs kept together)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    if not a:
        return 0.0, 0.0, 0.0
    diffs = [y - x for x, y in zip(a, b)]
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    low = means[int((1 - level) / 2 * samples)]
    high = means[min(samples - 1, int((1 + level) / 2 * samples))]
    return sum(diffs) / n, low, high
