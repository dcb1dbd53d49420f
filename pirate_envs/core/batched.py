"""Helpers shared by the games' batched backends (``pirate_envs/<game>/batched.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def check_constants(game: str, expected: Mapping[str, tuple[Any, Any]]) -> None:
    """Raise ``RuntimeError`` unless every ``name: (kernel's copy, reference value)`` pair agrees.

    numba's cache does not see changes in other modules, so a backend checks the constants it
    copied from its reference modules at import instead of running stale kernels.
    """
    mismatched = [name for name, (mine, reference) in expected.items() if mine != reference]
    if mismatched:
        raise RuntimeError(f"the batched {game} kernels are out of date with the reference: {mismatched} changed")


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
