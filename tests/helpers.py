"""Helpers shared by the test modules."""

from __future__ import annotations

import numpy as np

from agents.base import action_blocks, sample_legal
from agents.registry import game_player_counts


def supported_player_counts(env_id: str) -> list[int]:
    """Player counts the env accepts (probed through its config validation)."""
    return list(game_player_counts(env_id))


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
