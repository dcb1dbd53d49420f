"""Where an agent's regret goes: per situation, its frequency, mean regret and cost per game, with intervals over games.

Games are the independent units: every interval is a percentile bootstrap over games (`BOOTSTRAP`
resamples of the games, a fixed seed), so the decisions of one game that move together widen it as
they should. Per situation:

* ``per_game``: decisions in that situation per game;
* ``regret``: mean regret per decision (the pooled ratio ``sum regret / sum decisions``);
* ``cost``: regret per game (the sum of the game's regret in that situation, averaged over games);
* ``share``: its part of the agent's whole cost (``None`` unless the whole cost is above 0);
* ``example``: the costliest decision seen there (the moves in words and its regret).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.analysis.mistakes.play import Mistake

#: Bootstrap resamples of the games.
BOOTSTRAP = 2000
#: The bootstrap's seed (fixed: the same decisions give the same intervals).
BOOTSTRAP_SEED = 0


def _interval(point: float, resampled: np.ndarray) -> dict[str, float | None]:
    finite = resampled[np.isfinite(resampled)]
    if not np.isfinite(point) or finite.size == 0:
        return {"mean": None, "low": None, "high": None}
    low, high = np.percentile(finite, [2.5, 97.5])
    return {"mean": float(point), "low": float(low), "high": float(high)}


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def summarise(mistakes: Sequence[Mistake], games: int) -> dict[str, Any]:
    """The agent's cost in all and per situation (costliest first) over ``games`` games (see the module docstring)."""
    if games < 2:
        raise ValueError(f"intervals over games need at least 2 games, got {games}")
    names = sorted({m.situation for m in mistakes})
    column = {name: i for i, name in enumerate(names)}
    counts = np.zeros((games, len(names)))
    costs = np.zeros((games, len(names)))
    worst: dict[str, Mistake] = {}
    for m in mistakes:
        if not 0 <= m.game < games:
            raise ValueError(f"a decision of game {m.game} is outside the {games} games")
        counts[m.game, column[m.situation]] += 1
        costs[m.game, column[m.situation]] += m.regret
        if m.situation not in worst or m.regret > worst[m.situation].regret:
            worst[m.situation] = m
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    weights = rng.multinomial(games, np.full(games, 1 / games), size=BOOTSTRAP).astype(np.float64)
    boot_counts, boot_costs = weights @ counts / games, weights @ costs / games
    total, boot_total = costs.sum(axis=1).mean(), boot_costs.sum(axis=1)
    rows = []
    for name, i in column.items():
        share = _interval(costs[:, i].mean() / total, _ratio(boot_costs[:, i], boot_total)) if total > 0 else None
        m = worst[name]
        rows.append(
            {
                "situation": name,
                "decisions": int(counts[:, i].sum()),
                "per_game": _interval(counts[:, i].mean(), boot_counts[:, i]),
                "regret": _interval(
                    costs[:, i].sum() / counts[:, i].sum(), _ratio(boot_costs[:, i], boot_counts[:, i])
                ),
                "cost": _interval(costs[:, i].mean(), boot_costs[:, i]),
                "share": share,
                "example": {"chosen": m.chosen, "best": m.best, "regret": m.regret},
            }
        )
    rows.sort(key=lambda row: (-row["cost"]["mean"], row["situation"]))
    return {
        "games": games,
        "decisions": len(mistakes),
        "per_game": _interval(counts.sum(axis=1).mean(), boot_counts.sum(axis=1)),
        "cost": _interval(total, boot_total),
        "situations": rows,
    }


__all__ = ["BOOTSTRAP", "summarise"]
