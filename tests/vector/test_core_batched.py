"""The helpers shared by the batched backends."""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs.core.batched import check_constants, kept_moves


def test_check_constants_names_what_changed():
    check_constants("Demo", {"A": (1, 1), "B": ((2, 3), (2, 3))})
    with pytest.raises(RuntimeError, match=r"batched Demo kernels are out of date with the reference: \['B'\]"):
        check_constants("Demo", {"A": (1, 1), "B": (2, 4)})


def test_kept_moves_replays_what_the_row_keeps():
    history = np.array([[5, 6, 7, 0], [1, 2, 3, 4]], dtype=np.int16)
    assert kept_moves(history, 0, 3) == [5, 6, 7]
    assert kept_moves(history, 1, 4) == [1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="game 1 has made 5 moves; only the first 4 are kept"):
        kept_moves(history, 1, 5)
