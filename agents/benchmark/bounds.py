"""A win-rate estimate kept inside [0, 1], with a proper interval where every deal agrees.

Two ways a normal interval over deals goes wrong for a win rate, both fixed here (`bounded_win`):

* **Outside [0, 1].** The control-variate estimate subtracts fitted luck from each deal's win share, so
  its mean can pass 1 ("1.01 [0.96, 1.00]"). A win rate cannot: the mean and bounds are clipped to
  [0, 1] and the estimate keeps the value before clipping (``clipped_from``), which the pages show.
* **No spread at 0 or 1.** An agent that never (or always) wins has no variance over deals, and the
  normal interval collapses to [0.000, 0.000]. There the interval is Wilson's score interval over the
  deals, each deal's mean win share counted as one trial. Wilson, not Clopper-Pearson: it is the
  interval the per-game ``win_rate`` already uses, it is not needlessly wide (Clopper-Pearson is
  conservative by construction), and at 0 or 1 successes of ``d`` it gives the familiar ``[0, ~3.8/d]``.
  It stays valid for shares in [0, 1], not only 0/1 outcomes: a variable in [0, 1] with mean ``p`` has
  variance at most ``p (1 - p)``, the Bernoulli variance Wilson's interval assumes.
"""

from __future__ import annotations

from typing import Any

from agents.evaluation.stats import wilson_interval

#: How near 0 or 1 a mean of deal shares is taken as 0 or 1 (float rounding of a sum of exact shares).
EDGE = 1e-12


def bounded_win(estimate: list[float | None], deals: int) -> dict[str, Any]:
    """``{"interval": [mean, low, high], "clipped_from": float | None, "wilson": bool}`` of a win-rate
    estimate ``[mean, low, high]`` over ``deals`` deals (see the module docstring)."""
    mean, low, high = estimate
    assert mean is not None
    clipped_from = None if 0.0 <= mean <= 1.0 else mean
    mean = min(1.0, max(0.0, mean))
    at_edge = min(mean, 1.0 - mean) <= EDGE and low is not None and high is not None and high - low <= 1e-12
    if at_edge:
        mean = round(mean)
        _, low, high = wilson_interval(mean * deals, deals)
    bounds = [None if b is None else min(1.0, max(0.0, b)) for b in (low, high)]
    return {"interval": [mean, *bounds], "clipped_from": clipped_from, "wilson": at_edge}


__all__ = ["bounded_win"]
