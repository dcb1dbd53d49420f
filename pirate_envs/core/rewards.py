"""Reward rules shared by every game (the adapter in `pirate_envs.core.aec` applies them).

* ``"win"`` (default): terminal and zero-sum. The winners share +1 and the losers share -1:
  a sole winner gets +1 and each loser -1/(n-1); with ``w`` tied winners each gets ``1/w``
  and each loser ``-1/(n-w)``; when everybody ties, everybody gets 0. A truncated game
  (turn-limit guard) pays 0 to everybody.
* ``"score"``: every change of a player's game score as it happens, times the game's
  ``score_scale`` (chosen so a typical change lies in [-1, 1]). Not zero-sum.
* ``"margin"``: every change of a player's score less the mean change of the other players'
  scores, times ``score_scale`` (`score_margins`): a signal every time a score moves, as
  ``"score"``, and zero-sum, as ``"win"``, so a point taken from a rival counts as one gained.
  Summed over a game it is the player's final lead over the others' mean score.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

REWARD_MODES = ("win", "score", "margin")
#: The modes whose rewards are score changes, scaled (``"margin"`` then takes the others' mean away).
SCORE_CHANGE_MODES = ("score", "margin")


def win_rewards(winners: Sequence[int], num_players: int) -> np.ndarray:
    """Zero-sum terminal rewards for ``winners`` among ``num_players`` seats."""
    rewards = np.zeros(num_players, dtype=np.float64)
    w = len(winners)
    if w == 0 or w == num_players:
        return rewards
    rewards[:] = -1.0 / (num_players - w)
    rewards[list(winners)] = 1.0 / w
    return rewards


def score_margins(changes: np.ndarray) -> np.ndarray:
    """The ``"margin"`` rewards of the score ``changes`` on the last axis (one entry per seat): each
    seat's change less the mean of the others' changes, ``(n * change - total) / (n - 1)``; they sum
    to zero. Rows of every ``(..., n)`` array at once; a new array of ``changes``' dtype."""
    n = changes.shape[-1]
    return (n * changes - changes.sum(axis=-1, keepdims=True)) / (n - 1)


def win_shares(winners: Sequence[int], num_players: int) -> list[float]:
    """Each seat's share of the win: ``1/w`` to each of ``w`` winners, 0 to the others (the win
    rate's unit in every evaluation; none when there is no winner, as in a truncated game)."""
    shares = [0.0] * num_players
    for seat in winners:
        shares[seat] = 1.0 / len(winners)
    return shares


def winners_by_score(scores: Sequence[float]) -> list[int]:
    """Seats with the highest score (several on a tie)."""
    best = max(scores)
    return [i for i, s in enumerate(scores) if s == best]
