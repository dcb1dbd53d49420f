"""Skull King env: rewards as documented, the game-length piece of the observation, copies mid-game."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from pirate_envs.skull_king import env as env_module
from pirate_envs.skull_king.env import raw_env


def play_random(env: raw_env, rng: np.random.Generator, steps: int | None = None) -> None:
    """Play random legal actions until the game ends (or for ``steps`` actions)."""
    done = 0
    while not all(env.terminations.values()) and (steps is None or done < steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        done += 1


# ----------------------------------------------------------------------------- rewards
def test_docstring_states_the_win_rewards() -> None:
    doc = env_module.__doc__
    assert "each loser ``-1/(n - w)``" in doc
    assert "each of the ``w`` winners ``1/w``" in doc
    assert "losers -1)" not in doc


def test_win_rewards_of_finished_games_follow_the_docstring() -> None:
    """Winners get 1/w, each loser -1/(n - w), all 0 when everybody ties (from the final scores)."""
    seen = set()
    for num_players in (2, 3, 5):
        env = raw_env(num_players=num_players, num_hands=2)
        rng = np.random.default_rng(num_players)
        for seed in range(60):
            env.reset(seed=seed)
            play_random(env, rng)
            scores = env.game.score
            n, winners = num_players, [s for s, v in enumerate(scores) if v == max(scores)]
            w = len(winners)
            for seat, agent in enumerate(env.agents):
                if w == n:
                    expected = Fraction(0)
                elif seat in winners:
                    expected = Fraction(1, w)
                else:
                    expected = Fraction(-1, n - w)
                assert env.rewards[agent] == float(expected), (scores, env.rewards)
            seen.add("all tie" if w == n else "sole winner" if w == 1 else "shared win")
    assert seen == {"sole winner", "shared win", "all tie"}
