"""``make_agent`` without ``env=``: a shipped agent plays every table its header names."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.policy.agent import load_checkpoint, shipped_checkpoints
from agents.registry import make_agent
from tests.agents.policy.test_agent_files import GAME, small_agent

#: Moves played per table (a budget in steps, not time).
MOVES = 30

TABLES = [(name, players) for name in shipped_checkpoints() for players in load_checkpoint(name)[1]["player_counts"]]


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_a_shipped_agent_built_without_an_env_plays_every_table_it_plays(name, players):
    """The documented snippet: ``make_agent("ppo:<game>", "<game>")`` then a ``pirate_envs.make`` table.

    On the default (seated) table it must act as the same agent built for the ``"max"`` table of
    that size, shown the same game: both envs are dealt by one seed and stepped in lockstep.
    """
    env_id = load_checkpoint(name)[1]["env_id"]
    lazy = make_agent(f"ppo:{name}", env_id)  # no env: built for whatever table it is shown
    seated = pirate_envs.make(env_id, num_players=players)
    padded = pirate_envs.make(env_id, num_players=players, table_layout="max")
    reference = make_agent(f"ppo:{name}", env_id, env=padded)
    seated.reset(seed=7)
    padded.reset(seed=7)
    for move in range(MOVES):
        obs, _, terminated, truncated, _ = seated.last()
        if terminated or truncated:
            break
        expected = reference.act(padded.observe(padded.agent_selection))
        assert lazy.act(obs) == expected, f"move {move}"
        assert lazy.act(padded.observe(padded.agent_selection)) == expected  # the same agent on the max table
        seated.step(expected)
        padded.step(expected)
    assert move >= 5  # a few real moves were played


def test_an_observation_of_a_table_it_does_not_play_is_one_line(tmp_path):
    path = small_agent(tmp_path / "two.npz")  # a seated two-player Skull King agent
    agent = make_agent(f"ppo:{path}", GAME)
    two, three = (pirate_envs.make(GAME, num_players=n) for n in (2, 3))
    for env in (two, three):
        env.reset(seed=0)
    assert two.observe(two.agent_selection)["action_mask"][agent.act(two.observe(two.agent_selection))]
    with pytest.raises(ValueError, match=rf"ppo:{path} plays {GAME} at 2 players .* pass env= to make_agent") as error:
        agent.act(three.observe(three.agent_selection))
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="an observation of 17 numbers fits none of these tables"):
        agent.act({"observation": np.zeros(17, np.float32), "action_mask": np.ones(two.num_actions, np.int8)})


def test_a_max_table_of_a_count_it_does_not_play_is_refused_by_its_seat_flags(tmp_path):
    """A ``"max"`` observation has one size at every table: its ``seat_present`` flags tell the count."""
    path = small_agent(tmp_path / "two.npz")  # a seated two-player Skull King agent
    agent = make_agent(f"ppo:{path}", GAME)
    two, three = (pirate_envs.make(GAME, num_players=n, table_layout="max") for n in (2, 3))
    for env in (two, three):
        env.reset(seed=0)
    reference = make_agent(f"ppo:{path}", GAME, env=two)
    obs = two.observe(two.agent_selection)
    assert agent.act(obs) == reference.act(obs)
    with pytest.raises(ValueError, match="this observation is of a 3-player table; pass env= to make_agent"):
        agent.act(three.observe(three.agent_selection))
