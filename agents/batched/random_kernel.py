"""The batched random agent's draw as one numba pass over the mask (`block_uniform_kernel`)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def block_uniform_kernel(
    mask: np.ndarray, starts: np.ndarray, block_draw: np.ndarray, action_draw: np.ndarray
) -> np.ndarray:
    """`agents.batched.block_uniform_choice`, the same actions from the same draws: per row of the
    ``int8`` ``mask``, the ``floor(block_draw * present)``-th block with a legal action, then its
    ``floor(action_draw * legal)``-th legal action; -1 for a row with none."""
    rows, width = mask.shape
    blocks = starts.shape[0]
    counts = np.zeros(blocks, dtype=np.int64)
    actions = np.full(rows, -1, dtype=np.int64)
    for row in range(rows):
        present = 0
        for block in range(blocks):
            end = starts[block + 1] if block + 1 < blocks else width
            count = 0
            for column in range(starts[block], end):
                count += mask[row, column] != 0
            counts[block] = count
            present += count > 0
        if present == 0:
            continue
        chosen = int(block_draw[row] * present)
        for block in range(blocks):
            if counts[block] > 0:
                if chosen == 0:
                    break
                chosen -= 1
        within = int(action_draw[row] * counts[block])
        for column in range(starts[block], width):
            if mask[row, column] != 0:
                if within == 0:
                    actions[row] = column
                    break
                within -= 1
    return actions
