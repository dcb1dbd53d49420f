"""RLlib self-play: the league env, the export of the learner, one small training iteration."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from gymnasium import spaces

from agents.policy.checkpoint import load_agent
from agents.rllib import training
from agents.rllib.env import LeagueEnv, module_of
from experiments import rllib_selfplay
from experiments.cli import parse_plan
from tests.experiments.subprocess_limits import SUBPROCESS_S

SK3 = {"env_id": "skull_king_v0", "env_kwargs": {"num_players": 3, "num_hands": 2}}


def random_episode(env: LeagueEnv, rng: np.random.Generator, seed: int) -> tuple[set[str], dict[str, float]]:
    """Masked random moves of every RLlib agent to the end: the agent ids seen and their returns."""
    obs, _ = env.reset(seed=seed)
    seen, returns = set(), {}
    while True:
        actions = {}
        for agent_id, o in obs.items():
            seat = int(agent_id.split("@")[1])
            assert env.game.current_player == seat
            np.testing.assert_array_equal(o["action_mask"], env.game.legal_mask().astype(np.float32))
            assert env.observation_spaces[agent_id].contains(o)
            actions[agent_id] = int(rng.choice(np.flatnonzero(o["action_mask"])))
        seen |= set(actions)
        obs, rewards, terminated, truncated, _ = env.step(actions)
        for agent_id, r in rewards.items():
            returns[agent_id] = returns.get(agent_id, 0.0) + r
        if terminated["__all__"] or truncated["__all__"]:
            return seen, returns


def test_league_seats_by_role_and_masks_for_rllib():
    rng = np.random.default_rng(0)
    env = LeagueEnv({**SK3, "opponents": {"heuristic": 1.0}, "num_snapshots": 2})
    for seed in range(4):
        seen, returns = random_episode(env, rng, seed)
        assert len(seen) == 1 and next(iter(seen)).startswith("learner@")  # the heuristics move inside step
        assert set(returns) == seen
    env = LeagueEnv({**SK3, "opponents": {"snapshot": 1.0}, "num_snapshots": 2})
    for seed in range(4):
        seen, returns = random_episode(env, rng, seed)
        assert len(seen) == 3 and sum(a.startswith("learner@") for a in seen) == 1
        assert {module_of(a) for a in seen} <= {"learner", "snapshot_0", "snapshot_1"}
        assert sum(returns.values()) == pytest.approx(0.0)  # win mode, every seat an RLlib agent: zero-sum


def test_league_env_refuses_unknown_opponents():
    with pytest.raises(ValueError, match="opponent 'heuristc' is not an agent of skull_king_v0"):
        LeagueEnv({**SK3, "opponents": {"heuristc": 1.0}})


def test_exported_actor_gives_the_modules_logits():
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    obs_space = spaces.Dict(
        {"observations": spaces.Box(-np.inf, np.inf, (7,), np.float32), "action_mask": spaces.Box(0.0, 1.0, (5,))}
    )
    model = {"fcnet_hiddens": [8, 6], "fcnet_activation": "tanh", "head_fcnet_hiddens": [], "vf_share_layers": False}
    torch.manual_seed(0)
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=obs_space,
        action_space=spaces.Discrete(5),
        model_config=model,
    ).build()
    x = np.random.default_rng(1).normal(size=(4, 7)).astype(np.float32)
    with torch.no_grad():
        out = module.forward_inference({"obs": {"observations": torch.from_numpy(x), "action_mask": torch.ones(4, 5)}})
    policy = training.export_actor(module)
    assert [w.shape for w in policy.weights] == [(7, 8), (8, 6), (6, 5)] and policy.activation == "Tanh"
    np.testing.assert_allclose(policy.logits(x), out["action_dist_inputs"].numpy(), rtol=1e-5, atol=1e-6)


def test_bad_command_line_values_exit_2_before_ray_starts(capsys):
    for argv, bad in [
        (["--env-id", "skull_king_v0", "--opponents", "heuristc:0.5"], "heuristc"),
        (
            ["--env-id", "piratenpoker_v0", "--num-players", "2"],
            "--num-players: piratenpoker_v0 plays 3-5 players, not 2",
        ),
        (["--iterations", "0"], "--iterations must be at least 1, got 0"),
        (["--hidden", "64", "0"], "--hidden must be at least 1, got 0"),
        (["--lr", "0"], "--lr must be above 0, got 0.0"),
        (["--lr", "nan"], "--lr must be a finite number, got nan"),
        (["--entropy-coeff", "-0.5"], "--entropy-coeff must be at least 0, got -0.5"),
        (["--seed", "-1"], "--seed must be at least 0, got -1"),
        (["--seed", "4294967296"], "--seed must be at most 2147483647"),
        (["--num-players", "0"], "--num-players must be at least 1, got 0"),
        (["--num-env-runners", "-1"], "--num-env-runners must be at least 0, got -1"),
        (["--reward-mode", "points"], "--reward-mode: invalid choice: 'points'"),
        (["--opponents", "heuristic:nan", "self:1"], "--opponents heuristic:nan: a weight must be a finite number"),
        (["--opponents", "heuristic:0.5", "heuristic:0.5"], "'heuristic' is named twice"),
        (["--opponents", "self:0", "heuristic:0"], "the weights are all 0"),
        (["--minibatch-size", "512", "--train-batch-size", "256"], "--minibatch-size 512 must be at most"),
        (["--out", __file__], f"--out {__file__}: {__file__} is not a folder"),
    ]:
        with pytest.raises(SystemExit) as stop:
            rllib_selfplay.main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert bad in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert "ray" not in sys.modules or not __import__("ray").is_initialized()


def test_one_iteration_trains_takes_a_snapshot_and_exports_an_agent(tmp_path):
    import ray

    out = tmp_path / "run"
    argv = [
        "--env-id", "skull_king_v0", "--num-players", "3", "--iterations", "1", "--train-batch-size", "128",
        "--minibatch-size", "64", "--num-epochs", "1", "--snapshot-every", "1", "--num-snapshots", "2",
        "--seed", "3", "--out", str(out),
    ]  # fmt: skip
    _, plan = parse_plan(rllib_selfplay.Args, rllib_selfplay.plan_of, argv)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        algo, row = training.train(plan)
        learner, slot0, slot1 = (algo.get_module(m).state_dict() for m in ("learner", "snapshot_0", "snapshot_1"))
        algo.stop()
    finally:
        ray.shutdown()
    # slot 0 took the learner's actor after the iteration; slot 1 still holds the untrained one
    actor = [k for k in learner if k.startswith(("encoder.actor_encoder.", "pi.net."))]
    assert len(actor) == 6
    assert all(torch.equal(learner[k], slot0[k]) for k in actor)
    assert not any(torch.equal(learner[k], slot1[k]) for k in actor)
    assert row["env_steps"] >= 128 and row["learner_steps"] > 0 and row["snapshots_taken"] == 1
    rows = (out / "progress.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[0].startswith("iteration,env_steps,learner_steps")

    policy, header = load_agent(out / "agent.npz")
    assert header["env_id"] == "skull_king_v0" and header["player_counts"] == [3]
    assert header["layer_sizes"][1:-1] == [64, 64]
    np.testing.assert_allclose(policy.weights[-1], learner["pi.net.mlp.0.weight"].numpy().T)
    command = [sys.executable, "-m", "experiments.evaluate", "--env-id", "skull_king_v0", "--games", "3",
               "--agents", f"ppo:{out / 'agent.npz'}", "heuristic", "random"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=SUBPROCESS_S)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "agent.npz" in done.stdout


def test_the_masked_module_gives_illegal_actions_no_weight():
    from gymnasium import spaces
    from ray.rllib.core.columns import Columns

    from agents.rllib.module import MaskedPPOModule

    space = spaces.Dict(
        {"observations": spaces.Box(-1.0, 1.0, (5,), np.float32), "action_mask": spaces.Box(0.0, 1.0, (4,), np.float32)}
    )
    module = MaskedPPOModule(
        observation_space=space, action_space=spaces.Discrete(4), model_config={"fcnet_hiddens": [8]}
    )
    mask = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    batch = {Columns.OBS: {"observations": torch.zeros(2, 5), "action_mask": mask}}
    probabilities = torch.softmax(module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS], dim=-1)
    assert torch.all(probabilities[mask == 0] == 0) and torch.allclose(probabilities.sum(-1), torch.ones(2))
    assert module.observation_space == space  # RLlib sees the space the env gives


def test_a_run_prints_no_deprecation_notice(tmp_path):
    command = [sys.executable, "-m", "experiments.rllib_selfplay", "--env-id", "skull_king_v0", "--num-players", "3",
               "--iterations", "1", "--train-batch-size", "128", "--minibatch-size", "64", "--num-epochs", "1",
               "--num-cpus", "1", "--out", str(tmp_path / "run")]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=SUBPROCESS_S)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DeprecationWarning" not in done.stdout + done.stderr, done.stderr[-3000:]
