"""Helpers shared by the test modules."""

from __future__ import annotations

import itertools

import numpy as np
from pettingzoo.test import api_test

from agents.base import action_blocks, sample_legal
from agents.registry import game_player_counts


def supported_player_counts(env_id: str) -> list[int]:
    """Player counts the env accepts (probed through its config validation)."""
    return list(game_player_counts(env_id))


#: The reset options of the first reset of PettingZoo's ``api_test``: a dummy that the envs refuse.
API_TEST_DUMMY_OPTIONS = {"options": 1}


def pettingzoo_api_test(env, num_cycles: int) -> None:
    """PettingZoo's ``api_test`` on ``env``, whose reset drops the dummy option ``api_test`` passes first.

    The envs refuse unknown reset options (the dummy ``{"options": 1}`` among them); every other
    reset goes through unchanged.
    """
    reset = env.reset

    def reset_without_dummy(seed=None, options=None):
        return reset(seed=seed, options=None if options == API_TEST_DUMMY_OPTIONS else options)

    env.reset = reset_without_dummy
    api_test(env, num_cycles=num_cycles)


def play_random_game(env, rng: np.random.Generator, check=None) -> dict[str, float]:
    """Play one game with random legal actions (uniform by block); return the summed rewards per agent.

    ``check(env)`` is called before every decision.
    """
    totals = {a: 0.0 for a in env.possible_agents}
    blocks = action_blocks(env)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if check is not None:
            check(env)
        env.step(sample_legal(obs["action_mask"], rng, blocks))
    return totals


def one_table_agent_file(path, env_id: str, num_players: int):
    """A random-weight data-only agent file that plays only ``num_players`` seats (the seated layout)."""
    import pirate_envs
    from agents.checkpoint import layout_pieces, make_header, save_agent
    from agents.policy_agent import MlpPolicy

    env = pirate_envs.make(env_id, raw=True, num_players=num_players)
    sizes = [env.observation_layout.size, 8, env.num_actions]
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    policy = MlpPolicy(weights, [np.zeros(b, np.float32) for b in sizes[1:]], "Tanh")
    header = make_header(
        env_id, {"num_players": num_players}, layout_pieces(env.observation_layout), env.num_actions, policy
    )
    return save_agent(path, policy, header)


def assert_replays_with_agent(env, venv, index: int, agent) -> None:
    """Replay batched game ``index`` in the raw AEC ``env``: ``agent`` (a one-game agent) must choose every move."""
    env.game = venv.reference_engine(index)
    env.reset(options=venv.reset_options(index))
    for move in venv.moves(index):
        assert agent.act(env.observe(env.agent_selection), env.game.view(env.game.current_player)) == move
        env.step(move)
    assert all(env.terminations.values())
