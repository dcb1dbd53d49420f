"""`agents.training.plan.RunPlan`: what a run derives from its arguments, once, read-only."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import pirate_envs
from agents.ppo.action_head import FeatureHeadPolicy
from experiments import train
from experiments.train import TrainArgs


def plan_of(**fields: object):
    return train.checked_plan(TrainArgs(**fields), Path("runs/x"))  # type: ignore[arg-type]


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


def test_a_command_line_resolves_its_game_and_builds_each_table_and_agent_once(monkeypatch, tmp_path):
    """Checking and planning a run makes one env per table size and builds each opponent once per size."""
    import agents.registry

    made: list[str] = []
    built: list[tuple[str, int]] = []
    real_make, real_agent = pirate_envs.make, agents.registry.make_agent

    def counting_make(env_id, **kwargs):
        made.append(env_id)
        return real_make(env_id, **kwargs)

    def counting_agent(name, env_id, seed=0, env=None, **kwargs):
        built.append((name, len(env.possible_agents)))
        return real_agent(name, env_id, seed=seed, env=env, **kwargs)

    monkeypatch.setattr(pirate_envs, "make", counting_make)
    monkeypatch.setattr(agents.registry, "make_agent", counting_agent)
    args = TrainArgs(
        env_id="skull_king_v0",
        num_players=[2, 3],
        opponents=["self", "heuristic"],
        eval_opponents=["heuristic", "random"],
        out_dir=str(tmp_path),
        run_name="once",
    )
    plan = train.plan_run(args, {"env_id", "num_players", "opponents", "eval_opponents", "out_dir", "run_name"})
    assert made == ["skull_king_v0", "skull_king_v0"]  # one env per table size, kept in the plan
    assert sorted(built) == [("heuristic", 2), ("heuristic", 3), ("random", 2), ("random", 3)]
    assert plan.game is pirate_envs.game_spec("skull_king_v0") and sorted(plan.tables) == [2, 3]
