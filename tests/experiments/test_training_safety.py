"""Checkpoints never run code; training loses nothing (atomic files, resume fallback, Ctrl-C)."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.checkpoint import load_agent
from agents.registry import make_agent
from experiments import evaluate, export, play, train

ROOT = Path(__file__).resolve().parents[2]
GAME = ["--env-id", "skull_king_v0", "--num-players", "2", "--env-kwargs", "num_hands=1"]  # games end fast
TINY = ["--num-envs", "2", "--num-workers", "0", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1"]
QUIET = ["--opponents", "random", "--eval-opponents", "random", "--eval-games", "2", "--no-progress"]


class Payload:
    """Unpickling this writes ``marker``: it stands for any code a crafted checkpoint could run."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def plant_payload(checkpoint: Path, marker: Path) -> None:
    """Add ``:serialized:`` pickles that write ``marker`` to the ``data`` JSON of an SB3 zip."""
    with zipfile.ZipFile(checkpoint) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data["extra_key_sb3_does_not_know"] = {":type:": "<class 'object'>", ":serialized:": payload}
    data["lr_schedule"] = {":type:": "<class 'object'>", ":serialized:": payload}
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


def tiny_run(tmp_path: Path, name: str = "run", steps: int = 64, *extra: str) -> Path:
    train.main([*GAME, *TINY, *QUIET, "--out-dir", str(tmp_path), "--run-name", name, "--eval-every", "0",
                "--total-timesteps", str(steps), "--checkpoint-every", "32", *extra])  # fmt: skip
    return tmp_path / name


def test_no_entry_point_runs_a_checkpoints_pickles(tmp_path, capsys):
    run = tiny_run(tmp_path)
    crafted = run / "checkpoints" / "latest.zip"
    marker = tmp_path / "payload_ran"
    plant_payload(crafted, marker)
    # the payload is well formed: unpickling it writes its marker
    assert pickle.loads(pickle.dumps(Payload(tmp_path / "check"))) is None and (tmp_path / "check").exists()

    agent = make_agent(f"ppo:{crafted}", "skull_king_v0")
    assert agent.policy.num_actions > 0
    evaluate.main(["--env-id", "skull_king_v0", "--agents", f"ppo:{crafted}", "random", "--games", "2"])
    args = play.PlayArgs(env_id="skull_king_v0", agents=[f"ppo:{crafted}"], seed=1)
    screen = io.StringIO()
    play.play(args, read=io.StringIO("1\n" * 5 + "q\n"), write=screen)
    # the screen wraps at 100 columns, so a long path may be split over lines
    assert f"ppo:{crafted}" in "".join(screen.getvalue().split()) and screen.getvalue().rstrip().endswith("quit")
    train.main(["--resume", str(run), "--total-timesteps", "96", "--no-progress"])
    assert json.loads((run / "summary.json").read_text())["timesteps"] >= 96
    export.main(["--checkpoint", str(crafted), "--out", str(tmp_path / "exported.npz")])
    assert not marker.exists()

    # a pickle in place of the tensors: refused with a clear message, never run
    import torch

    tensors = tmp_path / "tensors.zip"
    with zipfile.ZipFile(crafted) as source, zipfile.ZipFile(tensors, "w") as target:
        for name in source.namelist():
            if name != "policy.pth":
                target.writestr(name, source.read(name))
        payload = io.BytesIO()
        torch.save({"weights": Payload(marker)}, payload)
        target.writestr("policy.pth", payload.getvalue())
    with pytest.raises(ValueError, match=r"policy\.pth holds more than plain tensors"):
        make_agent(f"ppo:{tensors}", "skull_king_v0")
    assert not marker.exists()
    capsys.readouterr()


def test_train_writes_the_data_only_agent_and_export_matches_it(tmp_path):
    run = tiny_run(tmp_path)
    policy, header = load_agent(run / "checkpoints" / "latest.npz")
    assert header["player_counts"] == [2] and header["env_kwargs"] == {"num_players": 2, "num_hands": 1}
    assert header["training"]["timesteps"] == 64
    assert header["training"]["figures"]  # the evaluation at the end of the run
    assert all(key.startswith("vs random at 64 steps") for key in header["training"]["figures"])
    assert header["training"]["command"].startswith("python -m experiments.train --env-id skull_king_v0")
    exported, exported_header = load_agent(export.export(run / "checkpoints" / "latest.zip", tmp_path / "x.npz"))
    obs = np.random.default_rng(0).normal(size=(4, policy.obs_size)).astype(np.float32)
    np.testing.assert_array_equal(exported.logits(obs), policy.logits(obs))
    assert exported_header["training"]["command"] == header["training"]["command"]
    leftovers = [p.name for p in (run / "checkpoints").iterdir() if p.name.startswith(".")]
    assert leftovers == []  # no temporary files left behind


def test_resume_falls_back_to_the_newest_valid_checkpoint_and_appends_progress(tmp_path):
    run = tiny_run(tmp_path)
    rows_before = list(csv.DictReader((run / "progress.csv").open()))
    latest = run / "checkpoints" / "latest.zip"
    latest.write_bytes(latest.read_bytes()[: latest.stat().st_size // 2])  # a save cut short
    (run / "checkpoints" / "step_64.zip").write_bytes(b"")  # and the step file of the same save
    with pytest.warns(UserWarning, match="resuming from .*step_32.zip"):
        train.main(["--resume", str(run), "--total-timesteps", "128", "--no-progress"])
    rows_after = list(csv.DictReader((run / "progress.csv").open()))
    for before, after in zip(rows_before, rows_after):  # kept (new columns, if any, empty)
        assert {key: after[key] for key in before} == before
    steps = [int(row["time/total_timesteps"]) for row in rows_after]
    # the first run's row, then rollouts of 2 envs x 32 steps from step 32 until 128 is passed
    assert steps == [64, 96, 160]


def refused(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exit_info:
        train.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "heuristc:0.5", "self:0.5"], "--opponents 'heuristc': no agent 'heuristc'"),
        (["--eval-opponents", "randon"], "--eval-opponents 'randon': no agent"),
        (["--env-id", "piratenpoker_v0", "--num-players", "2"], "--num-players: piratenpoker_v0 plays 3-5 players"),
        (["--total-timesteps", "0"], "--total-timesteps must be at least 1, got 0"),
        (["--batch-size", "-1"], "--batch-size must be at least 1"),
        (["--n-steps", "0"], "--n-steps must be at least 1"),
        (["--checkpoint-every", "0"], "--checkpoint-every must be at least 1"),
        (["--eval-games", "0"], "--eval-games must be at least 1"),
        (["--reward-mode", "points"], "--reward-mode: invalid choice: 'points'"),
        (["--env-id", "skull_king_v0", "--opponents", "ppo:piraten_kapern_v0"], "trained on piraten_kapern_v0"),
    ],
)
def test_train_refuses_bad_values_before_any_work(tmp_path, capsys, argv, message):
    assert message in refused(capsys, [*argv, "--out-dir", str(tmp_path), "--run-name", "run"])
    assert not (tmp_path / "run").exists()


def test_the_default_player_count_comes_from_the_game():
    args = train.TrainArgs(env_id="piratenpoker_v0")
    train.check_args(args)
    assert train.env_config(args)["num_players"] == 4


def test_resume_needs_a_checkpoint_and_a_budget_beyond_the_run(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text(json.dumps({"env_id": "skull_king_v0"}))
    assert "no usable checkpoint" in refused(capsys, ["--resume", str(empty)])
    assert "not a run folder" in refused(capsys, ["--resume", str(tmp_path / "nothing")])
    run = tiny_run(tmp_path)
    err = refused(capsys, ["--resume", str(run), "--total-timesteps", "32"])
    assert "--total-timesteps 32: the run already reached 64 learner steps" in err


def test_ctrl_c_saves_writes_the_tables_and_says_how_to_resume(tmp_path):
    run = tmp_path / "run"
    args = [*GAME, *TINY, *QUIET, "--out-dir", str(tmp_path), "--run-name", "run", "--eval-every", "64"]
    process = subprocess.Popen(
        [sys.executable, "-m", "experiments.train", *args, "--num-workers", "1", "--total-timesteps", "10000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,  # its own process group, which gets the signal as from a terminal
    )
    deadline = time.monotonic() + 120
    while not (run / "checkpoints" / "step_64.npz").exists():  # learning has started and evaluated once
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGINT)  # the trainer and its env worker alike
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert f"Resume with: python -m experiments.train --resume {run}" in out
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] and summary["timesteps"] >= 64
    assert (run / "checkpoints" / f"step_{summary['timesteps']}.npz").is_file()
    history = json.loads((run / "eval" / "history.json").read_text())
    assert {0, 64} <= {row["timesteps"] for row in history}
    assert (run / "learning_curve.png").stat().st_size > 1000
    assert not [p for p in run.rglob(".*.tmp")]
    # the run resumes from where it stopped
    train.main(["--resume", str(run), "--total-timesteps", str(summary["timesteps"] + 32), "--no-progress"])
    resumed = json.loads((run / "summary.json").read_text())
    assert resumed["timesteps"] == summary["timesteps"] + 64 and not resumed["interrupted"]  # one rollout more
