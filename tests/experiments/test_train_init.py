"""``train --init``: a run starts from the network of an agent file, and refuses files it cannot start from."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.policy.checkpoint import load_agent, save_agent
from agents.policy.mlp import MlpPolicy
from experiments import train
from tests.experiments.test_training_safety import GAME, QUIET, TINY
from tests.helpers import refused

pytest.importorskip("sb3_contrib")

SMALL = ["--net-arch", "8", "--eval-every", "0", "--checkpoint-every", "64", "--total-timesteps", "64"]


def run(tmp_path, name, *extra):
    train.main([*GAME, *TINY, *QUIET, *SMALL, "--out-dir", str(tmp_path), "--run-name", name, *extra])
    return load_agent(tmp_path / name / "checkpoints" / "latest.npz")[0]


def test_a_run_started_with_init_starts_from_the_files_actor_and_critic(tmp_path):
    first = run(tmp_path, "first", "--seed", "3")
    # A step size of 1e-12 leaves the weights where they started: what the run saves is what it loaded.
    second = run(tmp_path, "second", "--seed", "4", "--learning-rate", "1e-12",
                 "--init", str(tmp_path / "first" / "checkpoints" / "latest.npz"))  # fmt: skip
    fresh = run(tmp_path, "fresh", "--seed", "4", "--learning-rate", "1e-12")
    obs = np.random.default_rng(0).normal(size=(16, first.obs_size)).astype(np.float32)
    np.testing.assert_allclose(second.logits(obs), first.logits(obs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(second.value(obs), first.value(obs), rtol=1e-5, atol=1e-6)
    assert not np.allclose(fresh.logits(obs), first.logits(obs), atol=1e-3)  # the seed alone gives other weights


def test_activation_relu_trains_relu_layers_and_init_keeps_them(tmp_path, capsys):
    first = run(tmp_path, "relu", "--seed", "3", "--activation", "relu")
    assert first.activation == "ReLU"
    source = str(tmp_path / "relu" / "checkpoints" / "latest.npz")
    err = refused(
        capsys, train.main, [*GAME, *SMALL, "--init", source, "--out-dir", str(tmp_path), "--run-name", "tanh"]
    )
    assert "are [8] (ReLU); this run's are --net-arch 8 (Tanh): pass --net-arch 8 --activation relu" in err
    second = run(tmp_path, "again", "--seed", "4", "--learning-rate", "1e-12", "--activation", "relu", "--init", source)
    obs = np.random.default_rng(0).normal(size=(16, first.obs_size)).astype(np.float32)
    np.testing.assert_allclose(second.logits(obs), first.logits(obs), rtol=1e-5, atol=1e-6)


KAPERN = ["--env-id", "piraten_kapern_v0", "--num-players", "2", "--env-kwargs", "target_score=1000"]


def test_init_starts_a_feature_head_network_with_the_files_logits(tmp_path):
    """A network that scores actions from features (Kapern) starts from a file too: the file's one output layer
    goes to the per-action term, the feature term starts at zero; the same logits (it was refused before)."""
    common = [*KAPERN, *TINY, *QUIET, *SMALL, "--out-dir", str(tmp_path)]
    train.main([*common, "--run-name", "first", "--seed", "3"])
    first = load_agent(tmp_path / "first" / "checkpoints" / "latest.npz")[0]
    source = str(tmp_path / "first" / "checkpoints" / "latest.npz")
    train.main([*common, "--run-name", "second", "--seed", "4", "--learning-rate", "1e-12", "--init", source])
    second = load_agent(tmp_path / "second" / "checkpoints" / "latest.npz")[0]
    obs = np.random.default_rng(0).normal(size=(16, first.obs_size)).astype(np.float32)
    np.testing.assert_allclose(second.logits(obs), first.logits(obs), rtol=1e-4, atol=1e-5)


def test_a_warm_start_imitates_the_teacher_then_ppo_starts_from_that_network(tmp_path, capsys):
    """``--warm-start``: the student is written beside the checkpoints, PPO starts from it (a step size of
    1e-12 keeps it), and its CPU seconds are the first record of the learning CPU, which later ones include."""
    warm = ["--warm-start", "heuristic", "--warm-start-games", "20", "--warm-start-epochs", "1"]
    train.main([*GAME, *TINY, *QUIET, *SMALL, *warm, "--learning-rate", "1e-12", "--out-dir", str(tmp_path),
                "--run-name", "warm"])  # fmt: skip
    folder = tmp_path / "warm" / "checkpoints"
    student, header = load_agent(folder / "warm_start.npz")
    trained = load_agent(folder / "latest.npz")[0]
    assert header["training"]["figures"]["teacher"] == "heuristic"
    obs = np.random.default_rng(0).normal(size=(16, student.obs_size)).astype(np.float32)
    np.testing.assert_allclose(trained.logits(obs), student.logits(obs), rtol=1e-5, atol=1e-6)
    seconds = json.loads((folder / "learn_cpu_s.json").read_text())
    assert sorted(map(int, seconds)) == [0, 64] and 0 < seconds["0"] <= seconds["64"]
    summary = json.loads((tmp_path / "warm" / "summary.json").read_text())
    assert summary["warm_start_cpu_s"] == pytest.approx(seconds["0"], abs=0.1)
    assert "warm start by imitation of heuristic: round 1/1" in capsys.readouterr().out


def without_piece(policy, header, name):
    """``policy`` and ``header`` as if trained before the observation gained the piece ``name``."""
    start, rows = 0, None
    for piece, shape in header["observation_layout"]:
        size = int(np.prod(shape))
        if piece == name:
            rows = np.r_[0:start, start + size : policy.obs_size]
        start += size
    old = {**header, "observation_layout": [p for p in header["observation_layout"] if p[0] != name]}
    old["observation_size"] = len(rows)
    old["layer_sizes"] = [len(rows), *header["layer_sizes"][1:]]
    old["value_layer_sizes"] = [len(rows), *header["value_layer_sizes"][1:]]
    weights = [policy.weights[0][rows], *policy.weights[1:]]
    value = [policy.value_weights[0][rows], *policy.value_weights[1:]]
    return MlpPolicy(weights, policy.biases, policy.activation, None, value, policy.value_biases), old, rows


def test_init_from_a_file_without_a_newer_piece_gives_the_new_inputs_zero_weights(tmp_path):
    """A file trained before the observation gained a piece starts the run: same outputs, the piece weighs 0."""
    run(tmp_path, "full", "--seed", "3")
    full, header = load_agent(tmp_path / "full" / "checkpoints" / "latest.npz")
    older, old_header, rows = without_piece(full, header, "hands_left")
    save_agent(tmp_path / "older.npz", older, old_header)
    second = run(tmp_path, "second", "--seed", "4", "--learning-rate", "1e-12", "--init", str(tmp_path / "older.npz"))
    new_rows = np.setdiff1d(np.arange(full.obs_size), rows)
    assert new_rows.size == 10
    np.testing.assert_allclose(second.weights[0][new_rows], 0.0, atol=1e-6)
    np.testing.assert_allclose(second.value_weights[0][new_rows], 0.0, atol=1e-6)
    obs = np.random.default_rng(0).normal(size=(16, full.obs_size)).astype(np.float32)
    np.testing.assert_allclose(second.logits(obs), older.logits(obs[:, rows]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(second.value(obs), older.value(obs[:, rows]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--init", "skull_king_v0"],
            "--init 'skull_king_v0': trained on another observation layout than this run's (296 inputs): a piece "
            "of its layout is missing here or has another shape; it was trained with --env-kwargs table_layout=max: "
            "pass that",
        ),
        (["--init", "lucky_pirate_v0"], "--init 'lucky_pirate_v0': an agent of lucky_pirate_v0, not of skull_king_v0"),
        (["--init", "no_such_agent_file.npz"], "--init 'no_such_agent_file.npz'"),
        (
            ["--num-players", "2", "3", "4", "5", "6", "--env-kwargs", "num_hands=10", "--init", "skull_king_v0"],
            "--init 'skull_king_v0': its hidden layers are [128, 128] (Tanh); this run's are --net-arch 8 (Tanh): "
            "pass --net-arch 128 128 --activation tanh",
        ),
        (["--warm-start", "no_such_agent"], "--warm-start"),
        (["--warm-start", "heuristic", "--init", "skull_king_v0"], "give one starting network"),
    ],
)
def test_init_refuses_files_the_run_cannot_start_from_before_any_work(tmp_path, capsys, argv, message):
    err = refused(capsys, train.main, [*GAME, *SMALL, *argv, "--out-dir", str(tmp_path), "--run-name", "run"])
    assert message in err, err
    assert not (tmp_path / "run").exists()


def test_num_workers_on_the_batched_engine_gets_a_note():
    """``--num-workers`` does nothing where every game runs on the batched engine: the command says so."""
    pytest.importorskip("numba")
    from experiments.cli import given_flags, parse_args

    def note(argv: list[str]) -> str | None:
        plan = train.plan_of(parse_args(train.TrainArgs, argv))
        return train.unused_workers_note(plan, given_flags(train.TrainArgs, argv))

    assert "--num-workers 2 has no effect" in note(["--num-workers", "2"])
    assert note(["--num-workers", "2", "--engine", "single"]) is None and note([]) is None
