"""Confidence intervals for evaluation results (95% unless stated)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from statistics import NormalDist

Z95 = 1.959963984540054


def _interval(values: Sequence[float], quantile: Callable[[int], float]) -> tuple[float, float, float]:
    """Mean and ``mean -+ quantile(n - 1) * standard error`` (``-inf, inf`` from one value)."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = sum(values) / n
    if n == 1:
        return mean, -math.inf, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = quantile(n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal-approximation interval ``(mean, low, high)``."""
    return _interval(values, lambda df: z)


def clipped(triple: Sequence[float | None], low: float = 0.0, high: float = 1.0) -> list[float | None]:
    """``[mean, low, high]`` with the bounds clipped to ``[low, high]`` (a proportion's normal interval
    can pass 0 or 1); undefined bounds (``None``) stay undefined."""
    mean, *bounds = triple
    return [mean, *(None if b is None else min(high, max(low, b)) for b in bounds)]


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """Proportion and its Wilson score interval ``(p, low, high)``; ``low <= p <= high`` always.

    The interval holds ``p`` exactly; float rounding can put a bound a hair past it (``low`` of
    ``5.6e-17`` for no successes), so the bounds are clamped to ``p`` as well as to ``[0, 1]``.
    """
    if n <= 0:
        raise ValueError("n must be positive")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


#: Degrees of freedom above which :func:`t_quantile` uses its Cornish-Fisher expansion (error below 1e-7).
T_SERIES_LIMIT = 200


def t_two_sided(t: float, df: int) -> float:
    """``P(|T| <= t)`` for Student's t with ``df`` (a positive integer) degrees of freedom.

    The finite series of Abramowitz and Stegun 26.7.3 (odd ``df``) and 26.7.4 (even ``df``).
    """
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):  # 1 + 2/3 c^2 + 2*4/(3*5) c^4 + ... up to c^(df-3)
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, df // 2):  # 1 + 1/2 c^2 + 1*3/(2*4) c^4 + ... up to c^(df-2)
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(theta) * total


def t_quantile(df: int, confidence: float = 0.95) -> float:
    """The ``t`` with ``P(|T| <= t) = confidence`` for Student's t with ``df`` >= 1 degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if df > T_SERIES_LIMIT:  # Cornish-Fisher expansion around the normal quantile
        z = NormalDist().inv_cdf((1 + confidence) / 2)
        return (
            z
            + (z**3 + z) / (4 * df)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        )
    low, high = 0.0, 1.0
    while t_two_sided(high, df) < confidence:
        high *= 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if t_two_sided(mid, df) < confidence else (low, mid)
        if high - low < 1e-12:
            break
    return (low + high) / 2


def t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and its Student t interval ``(mean, low, high)`` (``-inf, inf`` from one value)."""
    return _interval(values, lambda df: t_quantile(df, confidence))
