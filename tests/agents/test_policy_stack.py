"""Networks of one shape as one batched forward: the same logits as each network, row by row."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.batched.policy_stack import PolicyStack, StackedPolicyAgent
from agents.policy.mlp import MlpPolicy


def network(seed: int, sizes: tuple[int, ...] = (120, 32, 24, 9), activation: str = "Tanh") -> MlpPolicy:
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal((a, b)).astype(np.float32) * 0.3 for a, b in itertools.pairwise(sizes)]
    return MlpPolicy(weights, [rng.standard_normal(b).astype(np.float32) for b in sizes[1:]], activation)


def sparse_rows(count: int, width: int, seed: int) -> np.ndarray:
    """Mostly-zero rows, as the games' observations: about 6% ones and a few other values."""
    rng = np.random.default_rng(seed)
    rows = (rng.random((count, width)) < 0.06).astype(np.float32)
    rows[:, :3] = rng.standard_normal((count, 3))
    return rows


@pytest.mark.parametrize("activation", ["Tanh", "ReLU"])
def test_each_row_gets_the_logits_of_its_own_network(activation):
    policies = [network(seed, activation=activation) for seed in range(4)]
    observations = sparse_rows(50, 120, seed=1)
    nets = np.random.default_rng(2).integers(0, 4, 50)
    logits = PolicyStack(policies).logits(nets, observations)
    expected = np.stack([policies[k].logits(row) for k, row in zip(nets, observations)])
    np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5)


def test_the_stacked_agent_plays_each_games_network_argmax():
    policies = [network(seed) for seed in range(3)]
    agent = StackedPolicyAgent(policies, num_games=6, name="self", deterministic=True)
    agent.net_of_game[:] = [0, 1, 2, 2, 1, 0]
    games = np.array([5, 2, 3, 0, 1, 4])
    observations = sparse_rows(6, 120, seed=3)
    masks = np.random.default_rng(4).random((6, 9)) < 0.5
    masks[:, 0] = True
    actions = agent.act_batch(games, observations, masks)
    for game, row, mask, action in zip(games, observations, masks, actions):
        logits = policies[agent.net_of_game[game]].logits(row)
        assert action == np.flatnonzero(mask)[np.argmax(logits[mask])]


def test_networks_of_different_shapes_or_bad_indices_are_refused():
    with pytest.raises(ValueError, match="cannot stack"):
        PolicyStack([network(0), network(1, sizes=(120, 16, 9))])
    with pytest.raises(ValueError, match=r"\[0, 2\).*got 0\.\.2"):
        PolicyStack([network(0), network(1)]).logits(np.array([0, 2]), sparse_rows(2, 120, seed=0))
