"""Helpers shared by the games' batched backends (``pirate_envs/<game>/batched.py``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pirate_envs.core.errors import check_choice
from pirate_envs.core.observation import SEAT_PRESENT, TABLE_LAYOUTS, ObservationLayout, max_table_layout


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


def kernel_layout(
    seated: ObservationLayout, table_layout: str, largest: ObservationLayout, max_players: int, pieces: Sequence[str]
) -> tuple[ObservationLayout, np.ndarray]:
    """The layout the kernels write for the env option ``table_layout``, and its offsets for them.

    ``seated``: the layout of this table; ``largest``: that of the largest table (``max_players``
    seats), the base of ``"max"``. The offsets are the start of each of ``pieces``, then that of
    ``seat_present`` (``-1`` in the seated layout, which has none).
    """
    check_choice("table_layout", table_layout, TABLE_LAYOUTS)
    layout = seated if table_layout == "seated" else max_table_layout(largest, max_players)
    seat_present = layout.piece(SEAT_PRESENT).start if SEAT_PRESENT in layout else -1
    return layout, np.array([*(layout.piece(name).start for name in pieces), seat_present], dtype=np.int64)
