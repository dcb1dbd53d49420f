"""An agent of an earlier version of a game plays the later one (``GameSpec.same_game_as``) exactly as before,
and starts a training run of it."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.policy.agent import load_initial_policy, make_policy_agent
from agents.policy.checkpoint import layout_pieces

#: The shipped agent of Lucky Pirate version 0, which version 1 (the known cards observed) names.
VERSION_0_AGENT = "lucky_pirate_v0"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_version_0s_agent_plays_version_1_as_it_plays_version_0(players):
    on_v0 = make_policy_agent(VERSION_0_AGENT, "lucky_pirate_v0")
    on_v1 = make_policy_agent(VERSION_0_AGENT, "lucky_pirate_v1")
    old = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=players)
    new = pirate_envs.make("lucky_pirate_v1", raw=True, num_players=players)
    old.reset(seed=players)
    new.reset(seed=players)
    moves = 0
    for _ in old.agent_iter(max_iter=300):
        observation, _, terminated, truncated, _ = old.last()
        if terminated or truncated:
            old.step(None)
            new.step(None)
            continue
        seen = new.observe(new.agent_selection)
        assert seen["observation"].size > observation["observation"].size  # version 1 sees more
        move = on_v0.act(observation)
        assert on_v1.act(seen) == move
        old.step(move)
        new.step(move)
        moves += 1
    assert moves >= 40


def test_an_agent_of_another_game_or_a_later_version_is_still_refused():
    with pytest.raises(ValueError, match="trained on lucky_pirate_v0, not skull_king_v0"):
        make_policy_agent(VERSION_0_AGENT, "skull_king_v0")
    assert not pirate_envs.game_spec("lucky_pirate_v0").plays_agents_of("lucky_pirate_v1")


def test_version_0s_agent_starts_a_version_1_run_playing_as_before():
    """``train --init``: version 0's network, with zero weights for version 1's new pieces, gives the same outputs."""
    env = pirate_envs.make("lucky_pirate_v1", raw=True, num_players=4, table_layout="max")
    policy, header = load_initial_policy(
        VERSION_0_AGENT, "lucky_pirate_v1", layout_pieces(env.observation_layout), env.num_actions
    )
    assert header["env_id"] == "lucky_pirate_v0" and policy.obs_size == env.observation_layout.size
    old = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=4, table_layout="max")
    on_v0 = make_policy_agent(VERSION_0_AGENT, "lucky_pirate_v0", env=old).policy
    old.reset(seed=5)
    env.reset(seed=5)
    rows_old, rows_new = [], []
    for _ in old.agent_iter(max_iter=60):
        observation, _, terminated, truncated, _ = old.last()
        move = None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0])
        rows_old.append(observation["observation"])
        rows_new.append(env.observe(env.agent_selection)["observation"])
        old.step(move)
        env.step(move)
    np.testing.assert_allclose(policy.logits(np.array(rows_new)), on_v0.logits(np.array(rows_old)), atol=1e-5)
    np.testing.assert_allclose(policy.value(np.array(rows_new)), on_v0.value(np.array(rows_old)), atol=1e-5)
