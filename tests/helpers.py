"""Helpers shared by the test modules."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pirate_envs import player_counts as supported_player_counts
from pirate_envs.testing import pettingzoo_api_test, play_random_game

__all__ = ["assert_replays_with_agent", "one_table_agent_file", "pettingzoo_api_test", "play_random_game", "refused",
           "supported_player_counts"]  # fmt: skip


def skip_without_shipped_agent(env_id: str) -> None:
    """Skip the test when no agent is shipped for ``env_id`` (``ppo:<env_id>`` would not load)."""
    from agents.policy.agent import shipped_checkpoints

    if env_id not in shipped_checkpoints():
        pytest.skip(f"no shipped agent for {env_id}")


def refused(capsys, main: Callable[[list[str]], Any], argv: list[str]) -> str:
    """The one error line with which the command ``main`` refuses ``argv`` (exit status 2, no traceback);
    what was printed before the call is dropped."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def one_table_agent_file(path, env_id: str, num_players: int):
    """A random-weight data-only agent file that plays only ``num_players`` seats (the seated layout)."""
    import pirate_envs
    from agents.policy.checkpoint import layout_pieces, make_header, save_agent
    from agents.policy.mlp import MlpPolicy

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
