"""``train --pipeline``: a pipelined run goes end to end, repeats given the seed, saves the flag and resumes;
with ``--pipeline-in process`` it is the same run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.policy.checkpoint import load_agent
from agents.ppo.process_pipeline import fork_available
from experiments import train
from tests.experiments.test_training_safety import GAME, TINY

# self-play snapshots (taken mid-rollout), checkpoints and the end all meet an update in flight
POOL = ["--opponents", "self:0.5", "random:0.5", "--snapshot-every", "64", "--checkpoint-every", "64"]
# the plain defaults (no recipe, so no warm start or CPU cap): these tests check the pipeline's mechanics
QUIET = ["--recipe", "none", "--eval-opponents", "random", "--eval-games", "2", "--eval-every", "0", "--no-progress"]


def pipelined_run(out_dir: Path, steps: int = 192, pool: list[str] = POOL, extra: list[str] = ()) -> Path:
    train.main([*GAME, *TINY, *pool, *QUIET, "--out-dir", str(out_dir), "--run-name", "run",
                "--total-timesteps", str(steps), "--pipeline", *extra])  # fmt: skip
    return out_dir / "run"


def network(agent_file: Path) -> list[np.ndarray]:
    policy, _ = load_agent(agent_file)
    return [*policy.weights, *policy.biases, *policy.value_weights, *policy.value_biases]


def assert_same_networks(a: Path, b: Path) -> None:
    for x, y in zip(network(a), network(b), strict=True):
        np.testing.assert_array_equal(x, y)


def test_a_pipelined_run_repeats_given_the_seed_saves_its_flag_and_resumes(tmp_path, capsys):
    first, second = pipelined_run(tmp_path / "a"), pipelined_run(tmp_path / "b")
    for steps in (64, 128, 192):
        assert_same_networks(first / "checkpoints" / f"step_{steps}.npz", second / "checkpoints" / f"step_{steps}.npz")
    serial = tmp_path / "serial"
    train.main([*GAME, *TINY, *POOL, *QUIET, "--out-dir", str(serial), "--run-name", "run", "--total-timesteps", "192"])
    with pytest.raises(AssertionError):  # the lag changes the run
        assert_same_networks(first / "checkpoints" / "latest.npz", serial / "run" / "checkpoints" / "latest.npz")

    config = json.loads((first / "config.json").read_text())
    assert config["pipeline"] is True and json.loads((serial / "run" / "config.json").read_text())["pipeline"] is False
    _, header = load_agent(first / "checkpoints" / "latest.npz")
    assert "--pipeline" in header["training"]["command"].split()
    train.main(["--resume", str(first), "--total-timesteps", "256", "--no-progress"])
    assert json.loads((first / "summary.json").read_text())["timesteps"] == 256

    # a run saved before the flag existed (no key in its config.json) resumes, serially
    old = serial / "run"
    saved = json.loads((old / "config.json").read_text())
    del saved["pipeline"]
    (old / "config.json").write_text(json.dumps(saved))
    train.main(["--resume", str(old), "--total-timesteps", "256", "--no-progress"])
    assert json.loads((old / "summary.json").read_text())["timesteps"] == 256
    capsys.readouterr()


def test_ctrl_c_in_a_pipelined_run_saves_the_learner_after_the_update_in_flight(tmp_path, monkeypatch, capsys):
    """A stop in the middle of a rollout (here at its first step past 128 learner steps, no checkpoint
    or snapshot before it to join the update in flight) saves the learner after every update started,
    at the last whole rollout's step, as a serial run does."""
    from agents.training import run as running

    original = running.build_callback

    def stopping_callback(plan, evaluator, interrupt):
        callback = original(plan, evaluator, interrupt)
        step = callback._on_step

        def on_step() -> bool:
            if callback.num_timesteps > 128:
                interrupt.requested = True
            return step()

        callback._on_step = on_step
        return callback

    monkeypatch.setattr(running, "build_callback", stopping_callback)
    with pytest.raises(SystemExit):
        pipelined_run(tmp_path, 256, ["--opponents", "random", "--checkpoint-every", "1000"])
    run = tmp_path / "run"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] and summary["timesteps"] == 128
    steps, _, updates = running.read_checkpoint(run / "checkpoints" / "latest.zip")
    assert steps == 128 and updates == 2  # n_epochs 1: both updates of the two whole rollouts, joined
    capsys.readouterr()


def test_a_pipelined_runs_snapshots_are_the_policy_playing_the_rollout(tmp_path, monkeypatch, capsys):
    """Self-play snapshots come mid-rollout, while the learner may be in the middle of an update: they
    copy the behaviour policy, which no thread changes during a rollout."""
    from agents.training import run as running

    models, snapshots = [], []
    build_model, export = running.build_model, running.policy_from_sb3

    def recording_build_model(plan, vec_env, init=None):
        models.append(build_model(plan, vec_env, init))
        return models[-1]

    def recording_export(policy, **kwargs):
        if not kwargs:  # a snapshot (agent files export with the value head)
            snapshots.append((policy is models[0].behaviour_policy(), models[0].update_pipeline().in_flight))
        return export(policy, **kwargs)

    monkeypatch.setattr(running, "build_model", recording_build_model)
    monkeypatch.setattr(running, "policy_from_sb3", recording_export)
    pipelined_run(tmp_path, 256, ["--opponents", "self:0.5", "random:0.5", "--snapshot-every", "64"])
    assert len(snapshots) == 4 and all(behaviour for behaviour, _ in snapshots)  # at steps 66, 130, 194 and 256
    assert any(in_flight for _, in_flight in snapshots)  # taken beside an update, without waiting for it
    capsys.readouterr()


@pytest.mark.skipif(not fork_available(), reason="the update's child process needs fork")
def test_the_update_in_a_child_process_gives_the_threads_run(tmp_path):
    thread = pipelined_run(tmp_path / "thread", steps=128)
    process = pipelined_run(tmp_path / "process", steps=128, extra=["--pipeline-in", "process"])
    for steps in (64, 128):
        name = f"step_{steps}.npz"
        assert_same_networks(thread / "checkpoints" / name, process / "checkpoints" / name)
    assert json.loads((process / "config.json").read_text())["pipeline_in"] == "process"
