"""Control variates (AIVAT-style): luck measured by value functions fixed in advance, then subtracted.

Each game's luck is a sum of terms ``V(after a chance event) - E[V(after) | before]`` for each
seat, with ``V`` fixed before any evaluation and never depending on the agent under test, so
every term has expectation zero whatever the agents do (a martingale difference; whether a term
is counted is decided before its chance event). Subtracting ``beta x luck`` from an outcome thus
keeps its expectation for any ``beta`` fixed independently of that game:

Piraten Kapern's luck is valued by the one-turn oracle (the card and first roll, each plain re-roll),
Skull King's by a fixed win-share model over the ``random`` opponents' bids and cards; the other games
have none yet. Each game's agents package declares its luck (`agents.games.GameAgents.luck`); this
module names no game. `estimates` fits ``beta`` per kind of luck on the *other* half of the deals
(cross-fitting by deal parity), so ``Y - beta X`` keeps the expectation of ``Y`` exactly. The terms
of each game and the estimator: ``docs/benchmark.md`` ("The luck terms in detail").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.evaluation.stats import mean_interval
from agents.games import game_agents_of

# ----------------------------------------------------------------------------- dispatch


def describe(env_id: str) -> str:
    """The control variate of ``env_id`` in words (``none`` when it has none)."""
    return game_agents_of(env_id).luck_description


def seat_luck(venv: Any, rows: np.ndarray, uniform: np.ndarray | None = None) -> np.ndarray | None:
    """The luck per game and seat of the finished games ``rows`` of ``venv`` (``None``: no control variate).

    The game's agents package declares its luck (`agents.games.GameAgents.luck`). ``uniform``
    ``(len(rows), n)``: the seats whose every decision is uniform over the legal actions (a
    ``random`` opponent; their decisions are chance events of known law); none if ``None``.
    """
    luck = game_agents_of(venv.env_id).target("luck")
    if luck is None:
        return None
    known = np.zeros((len(rows), venv.num_players), dtype=bool) if uniform is None else np.asarray(uniform, dtype=bool)
    return luck(venv, rows, known)


# ----------------------------------------------------------------------------- estimates


def cross_fitted(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``y - x @ beta`` per unit, ``beta`` fitted (with an intercept) on the units of the other parity.

    ``x`` has expectation zero, so the result keeps the expectation of ``y``; fewer than four
    units per fold: ``beta = 0``.
    """
    fold = np.arange(len(y)) % 2
    corrected = y.astype(np.float64).copy()
    for f in (0, 1):
        train, apply = fold != f, fold == f
        if train.sum() < max(4, x.shape[1] + 2):
            continue
        design = np.column_stack([np.ones(int(train.sum())), x[train]])
        beta = np.linalg.lstsq(design, y[train], rcond=None)[0][1:]
        corrected[apply] = y[apply] - x[apply] @ beta
    return corrected


def interval(values: np.ndarray) -> list[float | None]:
    """``[mean, low, high]``: the mean and its 95% normal interval (bounds ``None`` from one value)."""
    mean, low, high = mean_interval(np.asarray(values, dtype=np.float64).tolist())
    return [float(mean), *(float(b) if np.isfinite(b) else None for b in (low, high))]


def _variance(values: np.ndarray) -> float | None:
    return float(np.var(values, ddof=1)) if len(values) > 1 else None


#: A variance at or below this is none (float rounding of identical values leaves ~1e-33, not 0: a ratio
#: over it read 1e31).
NO_VARIANCE = 1e-18


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``; ``None`` when either is undefined (one deal) or the denominator is no
    variance (`NO_VARIANCE`)."""
    if numerator is None or denominator is None or denominator <= NO_VARIANCE:
        return None
    return numerator / denominator


def why_undefined(deals: int, corrected_variance: float | None) -> str | None:
    """Why the figure's ratios are ``None`` (``None`` when they are defined)."""
    if deals < 2:
        return "one deal: no variance over deals"
    if corrected_variance is None or corrected_variance <= NO_VARIANCE:
        return "no variance over deals left (every deal gives the same value)"
    return None


def estimates(
    shares: np.ndarray, scores: np.ndarray, luck: np.ndarray | None, seat: np.ndarray, players: int
) -> dict[str, Any]:
    """Raw and corrected estimates of the candidate's win rate and mean score.

    ``shares``, ``scores``: ``(G, players)`` per game and seat, the games deal-major (the
    ``players`` rotations of deal ``d`` are games ``d * players ...``); ``luck``: the same, or
    ``(G, players, c)`` for ``c`` kinds of luck, each with its own coefficient; ``seat``: the
    candidate's seat per game.

    Per figure: ``raw`` and ``corrected`` (mean and 95% normal interval over deals),
    ``variance_ratio`` (raw over corrected variance per deal), ``per_game_variance`` (one game
    of a fresh deal), and ``vs_single_games``: how many times fewer games the corrected duplicate
    estimate needs than single games on fresh deals for the same interval. A ratio is ``None``
    where it is undefined, ``ratio_undefined`` saying why: one deal, or no variance left
    (deterministic identical agents); else ``ratio_undefined`` is ``None``.
    """
    games = len(shares)
    deals = games // players
    rows = np.arange(games)
    parts = np.zeros((games, players, 1)) if luck is None else luck.reshape(games, players, -1)
    own = parts[rows, seat]  # (G, c)
    others = (parts.sum(axis=1) - own) / max(players - 1, 1)
    covariates = np.concatenate([own, others], axis=1)
    x = covariates.reshape(deals, players, -1).mean(axis=1)
    result = {}
    for figure, values in (("win", shares[rows, seat]), ("score", scores[rows, seat])):
        y = values.reshape(deals, players).mean(axis=1)
        corrected = cross_fitted(y, x) if luck is not None else y
        raw_var, corrected_var = _variance(y), _variance(corrected)
        per_game = _variance(values)
        result[figure] = {
            "raw": interval(y),
            "corrected": interval(corrected),
            "variance_ratio": _ratio(raw_var, corrected_var),
            "per_game_variance": per_game,
            "vs_single_games": _ratio(per_game, None if corrected_var is None else players * corrected_var),
            "ratio_undefined": why_undefined(deals, corrected_var),
        }
    return result


__all__ = ["NO_VARIANCE", "cross_fitted", "describe", "estimates", "interval", "seat_luck", "why_undefined"]
