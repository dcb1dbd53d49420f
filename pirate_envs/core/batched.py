"""Helpers shared by the games' batched backends (``pirate_envs/<game>/batched.py``)."""

from __future__ import annotations

import numpy as np


def kept_moves(history: np.ndarray, index: int, made: int) -> list[int]:
    """Game ``index``'s first ``made`` actions from ``history`` (one row per game, as many moves as it keeps).

    Raises ``RuntimeError`` when the game has made more moves than its row keeps: it cannot be replayed.
    """
    kept = history.shape[1]
    if made > kept:
        raise RuntimeError(
            f"game {index} has made {made} moves; only the first {kept} are kept, so it cannot be replayed"
        )
    return history[index, :made].tolist()
