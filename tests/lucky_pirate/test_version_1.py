"""``lucky_pirate_v1``: version 0's game with ``known`` and ``pile_cards`` observed and action features.

Version 0 must stay as it was (layout, no action features, its shipped agent plays); version 1
is registered wherever ids are listed, observes exactly what version 0 observes with both
observation options on, and describes every action by its fixed feature row.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import agents  # noqa: F401  (registers the Gymnasium ids)
import pirate_envs
from agents.registry import make_agent
from pirate_envs import vector
from pirate_envs.lucky_pirate.actions import (
    ACTION_FEATURES,
    ACTIONS,
    DOWN_OFFSET,
    LAY_UP_OFFSET,
    NUM_PLAY_ACTIONS,
    PICK_UP,
    decode_play,
)
from pirate_envs.lucky_pirate.cards import KINDS, MAX_COPIES, NUMBER_CARDS, WALK_THE_PLANK

V0, V1 = "lucky_pirate_v0", "lucky_pirate_v1"


def test_version_1_is_registered_wherever_ids_are_listed() -> None:
    assert V1 in pirate_envs.ENV_IDS and V1 in vector.COVERED_ENV_IDS
    assert pirate_envs.GYMNASIUM_IDS["pirate_envs/LuckyPirate-v1"] == V1
    assert pirate_envs.game_spec(V1).name == pirate_envs.game_spec(V0).name
    assert pirate_envs.make(V1).metadata["name"] == V1
    env = gymnasium.make("pirate_envs/LuckyPirate-v1")
    assert env.observation_space.shape == (pirate_envs.make(V1, raw=True).observation_layout.size,)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_version_0_keeps_its_layout_and_has_no_action_features(num_players: int) -> None:
    env = pirate_envs.make(V0, raw=True, num_players=num_players)
    assert env.action_features is None
    assert env.observation_layout.pieces[-1].name == "to_play" and "known" not in env.observation_layout
    if num_players == 4:
        assert env.observation_layout.size == 201


@pytest.mark.parametrize(("num_players", "table_layout"), [(2, "seated"), (4, "seated"), (5, "max")])
def test_version_1_observes_what_version_0_observes_with_both_options_on(num_players: int, table_layout: str) -> None:
    """Played with the same seed and moves, every observation of v1 is v0's with ``observe_known``
    and ``observe_pile`` (``known``, then ``pile_cards``, last but the max layout's ``seat_present``)."""
    new = pirate_envs.make(V1, raw=True, num_players=num_players, table_layout=table_layout)
    old = pirate_envs.make(V0, raw=True, num_players=num_players, table_layout=table_layout, observe_known=True,
                           observe_pile=True)  # fmt: skip
    assert new.observation_layout.pieces == old.observation_layout.pieces
    names = [p.name for p in new.observation_layout.pieces if p.name != "seat_present"]
    assert names[-2:] == ["known", "pile_cards"]
    rng = np.random.default_rng(5)
    new.reset(seed=3)
    old.reset(seed=3)
    known_seen = 0
    for agent in new.agent_iter(2000):
        for seat in new.agents:
            a, b = new.observe(seat), old.observe(seat)
            np.testing.assert_array_equal(a["observation"], b["observation"])
            np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        known_seen += bool(new.observe(agent)["observation"][new.observation_layout["known"]].any())
        done = new.terminations[agent] or new.truncations[agent]
        action = None if done else int(rng.choice(np.flatnonzero(new.observe(agent)["action_mask"])))
        new.step(action)
        old.step(action)
    assert known_seen > 0


def test_every_action_has_its_own_feature_row() -> None:
    env = pirate_envs.make(V1, raw=True)
    assert env.action_features is ACTION_FEATURES
    assert ACTION_FEATURES.matrix.shape == (len(ACTIONS), len(ACTION_FEATURES.names))
    assert len({row.tobytes() for row in ACTION_FEATURES.matrix}) == len(ACTIONS)


def test_a_play_row_names_its_kind_count_and_effect() -> None:
    names = ACTION_FEATURES.names
    for action in range(NUM_PLAY_ACTIONS):
        kind, count = decode_play(action)
        row = ACTION_FEATURES.of(action)
        assert row["play"] == 1 and row[f"kind_{KINDS[kind]}"] == 1 and row[f"count_{count}"] == 1
        assert row["count"] == pytest.approx(count / MAX_COPIES)
        assert [n for n in row if n.startswith(("kind_", "count_"))] == [f"kind_{KINDS[kind]}", f"count_{count}"]
        assert row.get("special", 0) == (kind >= len(NUMBER_CARDS))
        run = kind < len(NUMBER_CARDS) + 2  # numbers, Captain, Kraken
        assert row.get("clears", 0) == (kind == WALK_THE_PLANK or (run and count >= 3))
    assert ACTION_FEATURES.of(0)["sets_value"] == pytest.approx(0.1)  # one 1
    assert ACTION_FEATURES.of(KINDS.index("mermaid") * MAX_COPIES)["sets_value"] == pytest.approx(0.7)
    assert "sets_value" not in ACTION_FEATURES.of(KINDS.index("porthole") * MAX_COPIES)
    assert ACTION_FEATURES.of(KINDS.index("reverse") * MAX_COPIES).get("reverses") == 1
    assert "reverses" not in ACTION_FEATURES.of(KINDS.index("reverse") * MAX_COPIES + 1)  # two cancel out
    assert ACTION_FEATURES.of(PICK_UP) == {"pick_up": 1.0}
    assert ACTION_FEATURES.of(DOWN_OFFSET + 2) == {"down": 1.0, "down_slot_3": 1.0}
    assert ACTION_FEATURES.of(LAY_UP_OFFSET + 9) == {"lay_up": 1.0, "kind_kraken": 1.0, "special": 1.0, "run_kind": 1.0}
    assert len(names) == len(set(names))


def test_the_shipped_version_0_agent_still_plays_version_0() -> None:
    env = pirate_envs.make(V0, num_players=4)
    agent = make_agent("ppo:lucky_pirate_v0", V0, seed=0, env=env)
    env.reset(seed=11)
    for _ in env.agent_iter(3000):
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else agent.act(obs)
        if action is not None:
            assert obs["action_mask"][action]
        env.step(action)
    assert not env.agents
