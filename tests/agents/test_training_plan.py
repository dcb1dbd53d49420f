"""`agents.training.plan.RunPlan`: what a run derives from its arguments, once, read-only."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from agents.ppo.action_head import FeatureHeadPolicy
from agents.training.plan import make_plan
from experiments.train import TrainArgs, command_line


def plan_of(**fields: object):
    args = TrainArgs(**fields)  # type: ignore[arg-type]
    return make_plan(args, {}, Path("runs/x"), command_line(args))


def test_one_table_size_plays_that_size_and_records_it():
    plan = plan_of(env_id="skull_king_v0", num_players=[3])
    assert plan.table_sizes == (3,) and not plan.several_tables
    assert dict(plan.selfplay_kwargs) == {"num_players": 3}
    assert plan.agent_env_kwargs() == {"num_players": 3}
    assert plan.policy == "MlpPolicy" and plan.num_action_features is None
    assert plan.command == "python -m experiments.train --env-id skull_king_v0 --num-players 3"


def test_several_table_sizes_share_the_max_layout_and_draw_by_weight():
    plan = plan_of(env_id="skull_king_v0", num_players=[2, 4], player_weights=[1.0, 3.0])
    assert dict(plan.env_options) == {"table_layout": "max"}
    assert dict(plan.selfplay_kwargs) == {"table_layout": "max", "player_counts": {2: 1.0, 4: 3.0}}
    assert plan.agent_env_kwargs() == {"table_layout": "max"}  # no player count: the agent plays both
    assert plan.env_config(4) == {"num_players": 4, "table_layout": "max"}


def test_default_table_size_and_the_feature_head():
    plan = plan_of(env_id="piraten_kapern_v0")
    assert plan.table_sizes == (2,)  # the game's default
    assert plan.policy is FeatureHeadPolicy
    assert plan.num_action_features == plan.policy_kwargs["action_features"].shape[1]


def test_a_plan_is_read_only():
    plan = plan_of(env_id="skull_king_v0", num_players=[2, 4])
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.table_sizes = (5,)  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.selfplay_kwargs["num_players"] = 5  # type: ignore[index]
