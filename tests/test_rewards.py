"""The reward rules every game shares: terminal win rewards and win shares, and the batched kernel's twin."""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs.core.rewards import win_rewards, win_shares


@pytest.mark.parametrize(
    ("winners", "n", "shares"),
    [([2], 4, [0, 0, 1, 0]), ([0, 3], 4, [0.5, 0, 0, 0.5]), ([], 3, [0, 0, 0]), ([0, 1], 2, [0.5, 0.5])],
)
def test_win_shares_split_the_win_among_the_winners(winners, n, shares):
    assert win_shares(winners, n) == shares


@pytest.mark.parametrize("winners", [[1], [0, 2], [], [0, 1, 2, 3], [3]])
def test_the_batched_win_rewards_are_the_reference_rules(winners):
    pytest.importorskip("numba")
    from pirate_envs.core.batched import win_rewards_from_flags

    n = 4
    rewards = np.full((3, n), 7.0)  # other games' rows stay as they were
    rewards[1] = [1.0 if s in winners else 0.0 for s in range(n)]
    win_rewards_from_flags(rewards, 1, n)
    np.testing.assert_allclose(rewards[1], win_rewards(winners, n))
    assert (rewards[[0, 2]] == 7.0).all()
