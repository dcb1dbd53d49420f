"""Numba helpers that read observation rows, shared by the batched heuristics."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def one_hot_index(row: np.ndarray, start: int, size: int) -> int:
    """The index of the set entry of the one-hot ``row[start : start + size]``, or -1 if none is set."""
    for j in range(size):
        if row[start + j] > 0.5:
            return j
    return -1
