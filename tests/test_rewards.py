"""The reward rules every game shares: terminal win rewards and win shares, score margins, and their batched twins."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.rewards import score_margins, win_rewards, win_shares
from tests.games import GAME_IDS, require


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


def test_score_margins_take_the_others_mean_change_away():
    """Worked by hand: changes 3, 0, -1, 2 at four seats; the others' means 1/3, 4/3, 5/3, 2/3."""
    changes = np.array([[3.0, 0.0, -1.0, 2.0], [0.5, -0.5, 0.0, 0.0]])
    margins = score_margins(changes)
    np.testing.assert_allclose(margins[0], [8 / 3, -4 / 3, -8 / 3, 4 / 3])
    np.testing.assert_allclose(margins[1], [2 / 3, -2 / 3, 0.0, 0.0])
    np.testing.assert_allclose(margins.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(score_margins(np.array([0.3, -0.1])), [0.4, -0.4])  # two players: the difference


def played_rewards(env_id: str, reward_mode: str, moves: int, seed: int, **kwargs) -> np.ndarray:
    """Every seat's reward after each of ``moves`` random legal moves (the same moves in every mode)."""
    env = pirate_envs.make(env_id, raw=True, reward_mode=reward_mode, **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(moves):
        if all(env.terminations.values()) or all(env.truncations.values()):
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        rows.append([env.rewards[a] for a in env.possible_agents])
    return np.array(rows)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_margin_mode_pays_each_score_change_less_the_others_mean_as_it_happens(env_id):
    score = played_rewards(env_id, "score", 600, 11)
    margin = played_rewards(env_id, "margin", 600, 11)
    assert np.count_nonzero(score) > 0  # scores moved in the moves played
    np.testing.assert_allclose(margin, score_margins(score), atol=1e-12)
    np.testing.assert_allclose(margin.sum(axis=1), 0.0, atol=1e-9)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_batched_margin_rewards_are_the_envs(env_id):
    require(env_id, "batched_kernels")
    pytest.importorskip("numba")
    from pirate_envs.testing import check_lockstep

    report = check_lockstep(env_id, 8, games=16, seed=41, reward_mode="margin")
    assert report.games >= 16
