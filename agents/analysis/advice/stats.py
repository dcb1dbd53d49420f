"""Intervals that treat GAMES as the independent units, and multiple-comparison corrections.

* `paired_difference`: the mean of per-game differences between two arms played on the same deals,
  with its normal 95% interval and two-sided p-value (one value per game: games independent).
* `clustered_rate`: a rate of decisions pooled over games (``sum successes / sum trials``) with the
  cluster-robust (sandwich) standard error of a ratio estimator, clusters being games: decisions of
  one game that move together widen the interval, as they should.
* `holm` and `benjamini_hochberg`: adjusted p-values of a family of tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from agents.evaluation.stats import Z95


def _p_two_sided(z: float) -> float:
    return 2 * (1 - NormalDist().cdf(abs(z))) if math.isfinite(z) else 0.0


def paired_difference(with_rule: Sequence[float], without_rule: Sequence[float]) -> dict[str, float]:
    """``mean``, ``low``, ``high`` (95%), ``p`` (two-sided, normal) and ``n`` (games) of ``with - without`` per game."""
    diff = np.asarray(with_rule, dtype=np.float64) - np.asarray(without_rule, dtype=np.float64)
    n = diff.size
    if n < 2:
        raise ValueError("a paired difference needs at least two games")
    mean = float(diff.mean())
    se = float(diff.std(ddof=1) / math.sqrt(n))
    z = mean / se if se > 0 else (0.0 if mean == 0 else math.inf)
    return {"mean": mean, "low": mean - Z95 * se, "high": mean + Z95 * se, "p": _p_two_sided(z), "n": n}


def clustered_rate(successes: Sequence[int], trials: Sequence[int]) -> dict[str, float]:
    """The pooled rate ``sum(successes) / sum(trials)`` over games (one entry per game) and its
    cluster-robust 95% interval (clipped to [0, 1]); ``trials``: the pooled decisions, ``games``: those with any."""
    s = np.asarray(successes, dtype=np.float64)
    t = np.asarray(trials, dtype=np.float64)
    keep = t > 0
    s, t = s[keep], t[keep]
    g = int(t.size)
    if g == 0:
        return {"rate": math.nan, "low": math.nan, "high": math.nan, "trials": 0, "games": 0}
    rate = float(s.sum() / t.sum())
    if g < 2:
        return {"rate": rate, "low": 0.0, "high": 1.0, "trials": int(t.sum()), "games": g}
    residual = s - rate * t
    variance = g / (g - 1) * float((residual**2).sum()) / float(t.sum()) ** 2
    half = Z95 * math.sqrt(variance)
    return {
        "rate": rate,
        "low": max(0.0, rate - half),
        "high": min(1.0, rate + half),
        "trials": int(t.sum()),
        "games": g,
    }


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error), in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i], reverse=True)
    adjusted = [0.0] * m
    running = 1.0
    for position, i in enumerate(order):
        rank = m - position  # 1-based rank from the smallest
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


__all__ = ["benjamini_hochberg", "clustered_rate", "holm", "paired_difference"]
