"""Paired statistics against hand-computed cases."""

import pytest

from nl2sparql.eval.stats import mcnemar_exact, paired_bootstrap_ci


def test_mcnemar_exact_matches_hand_computation():
    # 1 vs 7 discordant pairs: n = 8, P(X <= 1) = (C(8,0) + C(8,1)) / 2^8 = 9/256; two-sided = 18/256.
    assert mcnemar_exact(1, 7) == pytest.approx(18 / 256)
    assert mcnemar_exact(7, 1) == pytest.approx(18 / 256)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0  # symmetric: capped at 1
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)


def test_paired_bootstrap_interval_contains_the_mean_and_is_degenerate_for_constant_differences():
    mean, low, high = paired_bootstrap_ci([0.0, 0.5, 1.0, 0.0], [1.0, 0.5, 1.0, 1.0])
    assert mean == pytest.approx(0.5) and low <= mean <= high
    assert paired_bootstrap_ci([0.2] * 5, [0.7] * 5)[1:] == pytest.approx((0.5, 0.5))
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0], [])
