"""The batched agents: the random agent's block-uniform draw, the policy agent against PolicyAgent row by row."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pirate_envs
from agents.batched import BatchedPolicyAgent, BatchedRandomAgent, make_batched_agent
from agents.policy.agent import PolicyAgent
from agents.policy.mlp import MlpPolicy


def engine_rows(num_rows: int = 256, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of Skull King positions (4 players) reached by random play in the AEC env."""
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    while len(observations) < num_rows:
        if env.game.done:
            env.reset(seed=int(rng.integers(2**31)))
        seen = env.observe(env.agent_selection)
        observations.append(seen["observation"])
        masks.append(seen["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return np.array(observations), np.array(masks)


def random_policy(obs_size: int, num_actions: int, seed: int) -> MlpPolicy:
    rng = np.random.default_rng(seed)
    sizes = [obs_size, 32, 32, num_actions]
    weights = [rng.standard_normal((a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    biases = [rng.standard_normal(b).astype(np.float32) for b in sizes[1:]]
    return MlpPolicy(weights, biases)


def test_random_agent_draws_a_block_then_an_action_in_it():
    # blocks [0, 3) and [3, 10); legal: 1 in the first, 3..9 in the second
    agent = BatchedRandomAgent(((0, 3), (3, 10)), seed=0)
    mask = np.zeros((40_000, 10), dtype=np.int8)
    mask[:, 1] = 1
    mask[:, 3:] = 1
    actions = agent.act_batch(np.zeros(len(mask), dtype=np.int64), np.zeros((len(mask), 1)), mask)
    counts = np.bincount(actions, minlength=10)
    assert counts[[0, 2]].sum() == 0  # never an illegal action
    # each block with a legal action has probability 1/2, then uniform inside it: 1/2 for action 1, 1/14 for 3..9
    expected = np.array([0, 0.5, 0, *[0.5 / 7] * 7]) * len(mask)
    sigma = np.sqrt(expected * (1 - expected / len(mask)))
    assert (np.abs(counts - expected) <= 5 * sigma + 1e-9).all()


def test_random_agent_is_uniform_inside_the_only_block_with_legal_actions():
    agent = BatchedRandomAgent(((0, 4), (4, 8)), seed=1)
    mask = np.zeros((30_000, 8), dtype=np.int8)
    mask[:, [4, 6, 7]] = 1
    counts = np.bincount(agent.act_batch(np.zeros(len(mask), dtype=np.int64), np.zeros((len(mask), 1)), mask))
    assert set(np.flatnonzero(counts)) == {4, 6, 7}
    expected = len(mask) / 3
    assert np.abs(counts[[4, 6, 7]] - expected).max() <= 5 * np.sqrt(expected * 2 / 3)


def test_random_agent_plays_only_legal_actions_of_real_positions():
    observations, masks = engine_rows()
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    agent = make_batched_agent("random", "skull_king_v0", env, num_games=len(masks), seed=2)
    for _ in range(5):
        actions = agent.act_batch(np.arange(len(masks)), observations, masks)
        assert actions.dtype == np.int64
        assert masks[np.arange(len(masks)), actions].all()


def test_policy_agent_is_policy_agents_masked_argmax_row_by_row():
    observations, masks = engine_rows()
    policy = random_policy(observations.shape[1], masks.shape[1], seed=3)
    batched = BatchedPolicyAgent(policy, deterministic=True).act_batch(np.arange(len(masks)), observations, masks)
    single = PolicyAgent(policy, deterministic=True)
    for row, action in enumerate(batched.tolist()):
        assert action == single.act({"observation": observations[row], "action_mask": masks[row]})


def test_policy_agent_samples_the_masked_softmax():
    observations, masks = engine_rows(num_rows=64)
    policy = random_policy(observations.shape[1], masks.shape[1], seed=4)
    row = int(np.argmax(masks.sum(axis=1)))  # a position with many legal actions
    repeats = 40_000
    obs, mask = np.repeat(observations[[row]], repeats, axis=0), np.repeat(masks[[row]], repeats, axis=0)
    actions = BatchedPolicyAgent(policy, deterministic=False, seed=5).act_batch(np.zeros(repeats, int), obs, mask)
    legal = np.flatnonzero(masks[row])
    assert np.isin(actions, legal).all()
    logits = policy.logits(observations[row]).astype(np.float64)[legal]
    probability = np.exp(logits - logits.max())
    probability /= probability.sum()
    counts = np.array([(actions == a).sum() for a in legal])
    sigma = np.sqrt(repeats * probability * (1 - probability))
    assert (np.abs(counts - repeats * probability) <= 5 * sigma + 1).all()


def test_rows_without_a_legal_action_and_names_without_a_batched_form_are_refused():
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    mask = np.zeros((2, env.num_actions), dtype=np.int8)
    mask[0, 0] = 1
    obs = np.zeros((2, env.observation_layout.size), dtype=np.float32)
    policy = random_policy(obs.shape[1], env.num_actions, seed=6)
    for agent in (BatchedRandomAgent(((0, env.num_actions),), seed=0), BatchedPolicyAgent(policy)):
        with pytest.raises(ValueError, match="no legal action"):
            agent.act_batch(np.arange(2), obs, mask)
    with pytest.raises(ValueError, match="'mcts' has no batched form"):
        make_batched_agent("mcts", "skull_king_v0", env, num_games=2)


def test_random_agent_kernel_chooses_what_the_numpy_form_chooses():
    """The numba pass gives the numpy form's actions from the same draws (blocks not starting at 0 too)."""
    from agents.batched import block_uniform_choice
    from agents.batched.random_kernel import block_uniform_kernel

    rng = np.random.default_rng(7)
    mask = (rng.random((5_000, 23)) < 0.2).astype(np.int8)
    mask[np.arange(5_000), rng.integers(2, 23, 5_000)] = 1  # a legal action in the blocks in every row
    for starts in ([0], [0, 5, 6, 17], [2, 9]):
        starts = np.array(starts, dtype=np.int64)
        block_draw, action_draw = rng.random(5_000), rng.random(5_000)
        expected = block_uniform_choice(mask, starts, block_draw, action_draw)
        np.testing.assert_array_equal(block_uniform_kernel(mask, starts, block_draw, action_draw), expected)


def test_random_agent_refuses_a_row_without_a_legal_action():
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    with pytest.raises(ValueError, match="no legal action"):
        BatchedRandomAgent(((0, 4),), seed=0).act_batch(np.arange(3), np.zeros((3, 1)), mask)


def test_policy_agent_kernel_chooses_what_the_numpy_form_chooses():
    """The numba pass of `choose_actions` gives the numpy form's actions: argmax and Gumbel draws, float32 and
    float64 logits, ties (the first legal column), and -1 for a row with no legal action."""
    from agents.batched import masked_argmax_choice
    from agents.batched.random_kernel import masked_argmax_kernel

    rng = np.random.default_rng(8)
    mask = (rng.random((3_000, 31)) < 0.3).astype(np.int8)
    mask[:2_990][np.arange(2_990), rng.integers(0, 31, 2_990)] = 1
    mask[2_990:] = 0  # the last rows: no legal action
    logits = rng.standard_normal((3_000, 31))
    logits[:500] = np.round(logits[:500])  # ties
    for dtype in (np.float32, np.float64):
        for uniforms in (np.zeros((0, 0)), rng.random(logits.shape)):
            expected = masked_argmax_choice(logits.astype(dtype), mask, uniforms)
            assert (expected[2_990:] == -1).all() and (expected[:2_990] >= 0).all()
            np.testing.assert_array_equal(masked_argmax_kernel(logits.astype(dtype), mask, uniforms), expected)
