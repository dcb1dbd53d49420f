"""The batched agents' draws as numba passes over the mask: the random agent's (`block_uniform_kernel`) and a
network's masked argmax or Gumbel-max sample (`masked_argmax_kernel`)."""

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


@njit(cache=True, nogil=True)
def masked_argmax_kernel(logits: np.ndarray, mask: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """`agents.batched.choose_actions` in one pass: per row, the first legal column of the largest
    ``logits + gumbel`` (``gumbel = -log(-log(uniforms))``; ``uniforms`` of shape ``(0, 0)``: none, the
    masked argmax), in float64 as the numpy form; -1 for a row of the ``int8`` ``mask`` with no legal action."""
    rows, width = logits.shape
    noisy = uniforms.shape[0] > 0
    actions = np.full(rows, -1, dtype=np.int64)
    for row in range(rows):
        best = -np.inf
        for column in range(width):
            if mask[row, column] != 0:
                value = np.float64(logits[row, column])
                if noisy:
                    value -= np.log(-np.log(uniforms[row, column]))
                if actions[row] < 0 or value > best:
                    best = value
                    actions[row] = column
    return actions
