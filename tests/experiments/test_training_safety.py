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

from agents.policy.checkpoint import load_agent
from agents.registry import make_agent
from agents.training.progress import STEPS_COLUMN, progress_rows
from agents.training.run import resume_command
from experiments import evaluate, export, play, train
from tests.experiments.subprocess_limits import SUBPROCESS_S
from tests.helpers import refused

ROOT = Path(__file__).resolve().parents[2]
GAME = ["--env-id", "skull_king_v0", "--num-players", "2", "--env-kwargs", "num_hands=1"]  # games end fast
TINY = ["--num-envs", "2", "--num-workers", "0", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1"]
# the plain defaults (no recipe): these tests check the run's mechanics, and some the default reward mode
QUIET = ["--recipe", "none", "--opponents", "random", "--eval-opponents", "random", "--eval-games", "2"]
QUIET += ["--no-progress"]


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
    play.play(args, read=io.StringIO("#1\n" * 5 + "q\n"), write=screen)
    # the screen wraps at 100 columns, so a long path may be split over lines
    assert f"ppo:{crafted}" in "".join(screen.getvalue().split()) and "not a move" not in screen.getvalue()
    assert "quit; the standings so far" in screen.getvalue()
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
    win_share = {"kind": "win_share", "scale": 1.0, "gamma": 0.995}  # the default --reward-mode and --gamma
    assert header["value_target"] == exported_header["value_target"] == win_share
    np.testing.assert_allclose(exported.value(obs), policy.value(obs), rtol=1e-6)  # the critic, in both files
    leftovers = [p.name for p in (run / "checkpoints").iterdir() if p.name.startswith(".")]
    assert leftovers == []  # no temporary files left behind


def test_a_margin_run_writes_its_reward_mode_and_what_its_value_estimates(tmp_path):
    run = tiny_run(tmp_path, "margin", 64, "--reward-mode", "margin")
    policy, header = load_agent(run / "checkpoints" / "latest.npz")
    assert header["reward_mode"] == "margin"
    assert header["value_target"] == {"kind": "score_margin", "scale": 0.01, "gamma": 0.995}
    again, _ = load_agent(run / "checkpoints" / "latest.npz")  # the file reads back as written
    assert policy.has_value and again.has_value


def progress_steps(run: Path) -> list[int]:
    """The learner steps column of a run's ``progress.csv``."""
    return [int(row[STEPS_COLUMN]) for row in csv.DictReader((run / "progress.csv").open())]


def test_resume_falls_back_to_the_newest_valid_checkpoint_and_appends_progress(tmp_path):
    run = tiny_run(tmp_path, "run", 128, "--checkpoint-every", "64")  # rollouts of 2 envs x 32 steps
    rows_before = list(csv.DictReader((run / "progress.csv").open()))
    assert [int(row[STEPS_COLUMN]) for row in rows_before] == [64, 128]
    latest = run / "checkpoints" / "latest.zip"
    latest.write_bytes(latest.read_bytes()[: latest.stat().st_size // 2])  # a save cut short
    (run / "checkpoints" / "step_128.zip").write_bytes(b"")  # and the step file of the same save
    with pytest.warns(UserWarning, match="resuming from .*step_64.zip"):
        train.main(["--resume", str(run), "--total-timesteps", "192", "--no-progress"])
    rows_after = list(csv.DictReader((run / "progress.csv").open()))
    assert {key: rows_after[0][key] for key in rows_before[0]} == rows_before[0]  # kept (new columns empty)
    # the row past the checkpoint is dropped and made again: the steps of an uninterrupted run
    assert progress_steps(run) == [64, 128, 192]


def test_a_run_killed_between_checkpoints_resumes_to_the_log_of_an_uninterrupted_run(tmp_path):
    run = tiny_run(tmp_path, "run", 128, "--checkpoint-every", "64")
    checkpoints = run / "checkpoints"
    # What a kill -9 after step 128's progress row and before its checkpoint leaves on disk: the
    # newest checkpoint is step 64's, progress.csv has a row past it and a row cut short, and
    # an atomic write was cut short (its temporary file is left) in the run folder and below.
    (checkpoints / "latest.zip").write_bytes((checkpoints / "step_64.zip").read_bytes())
    for path in checkpoints.glob("step_128.*"):
        path.unlink()
    rows = (run / "progress.csv").read_text().splitlines()
    with (run / "progress.csv").open("a") as log:
        log.write(rows[-1][: len(rows[-1]) // 2])  # part of a row
    stray = [checkpoints / ".latest.zip.k1ll3d00.tmp", run / ".progress.csv.k1ll3d00.tmp"]
    theirs = [run / "eval" / "x.tmp", run / ".notes.txt.k1ll3d00.tmp"]  # not the run's: kept
    for path in stray + theirs:
        path.write_bytes(b"half a file")
    assert [int(float(row.split(",")[rows[0].split(",").index(STEPS_COLUMN)])) for row in rows[1:]] == [64, 128]

    train.main(["--resume", str(run), "--total-timesteps", "256", "--no-progress"])
    assert progress_steps(run) == [64, 128, 192, 256]  # each rollout's row once, none lost
    assert not [path for path in stray if path.exists()] and all(path.exists() for path in theirs)
    history = json.loads((run / "eval" / "history.json").read_text())
    assert sorted({row["timesteps"] for row in history}) == [256]  # the killed run's step-128 evaluation is gone
    lines = (run / "progress.csv").read_text().split("\n")
    assert lines[-1] == "" and len({line.count(",") for line in lines[:-1]}) == 1  # whole rows, one width


def test_a_new_run_in_an_existing_folder_deletes_none_of_its_files(tmp_path):
    """Only a run's own temporary files (of the files it writes, in the folders it writes) are deleted."""
    run = tmp_path / "run"
    mine = [run / "draft.tmp", run / "notes" / "a.tmp", run / ".data.csv.abcd1234.tmp", run / "eval" / "y.tmp"]
    for path in mine:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's")
    left = run / "checkpoints" / ".step_64.zip.abcd1234.tmp"  # a killed run's own temporary
    left.parent.mkdir()
    left.write_text("half")
    tiny_run(tmp_path)
    assert all(path.read_text() == "the user's" for path in mine) and not left.exists()


def test_resume_reads_no_checkpoint_member_over_its_cap(tmp_path, capsys):
    """A checkpoint whose ``data`` decompresses to more than the cap (a few KB on disk) is not read."""
    from agents.policy.checkpoint import MAX_HEADER_BYTES

    run = tiny_run(tmp_path)
    for checkpoint in (run / "checkpoints").glob("*.zip"):
        with zipfile.ZipFile(checkpoint) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        data = json.loads(members["data"])
        data["padding"] = " " * MAX_HEADER_BYTES
        members["data"] = json.dumps(data).encode()
        with zipfile.ZipFile(checkpoint, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in members.items():
                archive.writestr(name, content)
    err = refused(capsys, train.main, ["--resume", str(run), "--total-timesteps", "128", "--no-progress"])
    assert "no usable checkpoint" in err and f"more than the cap of {MAX_HEADER_BYTES}" in err
    assert progress_steps(run) == [64]


def test_the_progress_bar_says_when_the_run_evaluates(tmp_path, capsys):
    pytest.importorskip("tqdm")
    pytest.importorskip("rich")
    argv = [*GAME, *TINY, *QUIET[:-1], "--progress", "--out-dir", str(tmp_path), "--run-name", "run"]
    train.main([*argv, "--total-timesteps", "64", "--eval-every", "64"])
    out = capsys.readouterr().out
    assert "evaluating the learner at 0 learner steps: 2 games against each of random ..." in out
    assert "evaluating the learner at 64 learner steps" in out and "evaluated at 64 learner steps in" in out


def test_progress_rows_keep_whole_rows_up_to_a_step(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text(f'a,{STEPS_COLUMN},b\n1,64,"x,y"\n2,128,\n3,,z\n4,192,w')
    assert progress_rows(path, 128) == (["a", STEPS_COLUMN, "b"], ['1,64,"x,y"', "2,128,"])
    assert progress_rows(path) == (["a", STEPS_COLUMN, "b"], ['1,64,"x,y"', "2,128,", "3,,z"])
    assert progress_rows(tmp_path / "none.csv", 64) == ([], [])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "heuristc:0.5", "self:0.5"], "--opponents 'heuristc': no agent 'heuristc'"),
        (["--eval-opponents", "randon"], "--eval-opponents 'randon': no agent"),
        (["--env-id", "piratenpoker_v0", "--num-players", "2"], "--num-players: piratenpoker_v0 plays 3-5 players"),
        (["--total-timesteps", "0"], "--total-timesteps must be at least 1, got 0"),
        (["--batch-size", "-1"], "--batch-size must be at least 2"),
        (["--batch-size", "1"], "--batch-size must be at least 2, got 1"),  # SB3 asserts on it
        (["--num-envs", "1", "--n-steps", "1"], "--num-envs 1 x --n-steps 1: a rollout needs at least 2 steps"),
        (["--net-arch", "100000", "100000"], "parameters (actor and critic), more than an agent file holds"),
        (["--num-envs", "1000000000", "--n-steps", "2048"], "--num-envs 1000000000 x --n-steps 2048: a rollout of"),
        (["--env-kwargs", "render_mode=human"], "--env-kwargs render_mode=human: commands play without drawing"),
        (["--total-timesteps", "1e6"], "--total-timesteps: invalid int value: '1e6'"),
        (["--learning-rate", "0"], "--learning-rate must be above 0, got 0.0"),
        (["--learning-rate=-3e-4"], "--learning-rate must be above 0, got -0.0003"),
        (["--learning-rate", "nan"], "--learning-rate must be a finite number, got nan"),
        (["--learning-rate", "inf"], "--learning-rate must be a finite number, got inf"),
        (["--gamma", "1.5"], "--gamma must be at most 1, got 1.5"),
        (["--gamma", "-0.1"], "--gamma must be at least 0, got -0.1"),
        (["--gae-lambda", "2"], "--gae-lambda must be at most 1, got 2.0"),
        (["--gae-lambda", "nan"], "--gae-lambda must be a finite number"),
        (["--clip-range", "0"], "--clip-range must be above 0, got 0.0"),
        (["--ent-coef", "-0.01"], "--ent-coef must be at least 0, got -0.01"),
        (["--truncation-reward", "nan"], "--truncation-reward must be a finite number"),
        (["--max-wall-s", "nan"], "--max-wall-s must be a finite number"),
        (["--player-weights", "inf"], "--player-weights must be a finite number"),
        (["--num-players", "2", "3", "--player-weights", "0", "0"], "weights must be >= 0 and sum to more than 0"),
        (["--num-players", "2", "3", "--player-weights", "1", "-1"], "--player-weights must be at least 0, got -1.0"),
        (["--opponents", "heuristic:nan", "self:1"], "--opponents heuristic:nan: a weight must be a finite number"),
        (["--opponents", "heuristic:inf"], "--opponents heuristic:inf: a weight must be a finite number >= 0"),
        (["--opponents", "heuristic:-1", "self:1"], "--opponents heuristic:-1: a weight must be a finite number >= 0"),
        (["--opponents", "heuristic:0", "random:0"], "the weights are all 0"),
        (["--opponents", "heuristic:0.5", "heuristic:0.5"], "'heuristic' is named twice"),
        (["--eval-opponents", "random", "heuristic", "random"], "--eval-opponents random heuristic random: 'random'"),
        (["--seed", "-1"], "--seed must be at least 0, got -1"),
        (["--seed", "2147483648"], "--seed must be at most 2147483647, got 2147483648"),
        (["--net-arch", "64", "0"], "--net-arch must be at least 1, got 0"),
        (["--net-arch", "-64"], "--net-arch must be at least 1, got -64"),
        (["--device", "tpu"], "--device 'tpu' is not a torch device"),
        (["--device", "cuda:x"], "--device 'cuda:x' is not a torch device"),
        (["--env-kwargs", "num_players=3"], "--env-kwargs num_players=3: num_players is set by its own flag"),
        (["--env-kwargs", "reward_mode='score'"], "use --reward-mode"),
        (["--env-kwargs", "player_counts=[2,3]"], "use --num-players and --player-weights"),
        (["--env-kwargs", "num_hands=2", "num_hands=3"], "num_hands is given twice"),
        (["--env-kwargs", "num_hands"], "--env-kwargs 'num_hands': expected key=value"),
        (["--n-steps", "0"], "--n-steps must be at least 1"),
        (["--checkpoint-every", "0"], "--checkpoint-every must be at least 1"),
        (["--eval-games", "0"], "--eval-games must be at least 1"),
        (["--reward-mode", "points"], "--reward-mode: invalid choice: 'points'"),
        (["--pipeline-in", "process"], "--pipeline-in process: only with --pipeline"),
        (["--pipeline", "--pipeline-in", "fiber"], "--pipeline-in: invalid choice: 'fiber'"),
        (["--env-id", "skull_king_v0", "--opponents", "ppo:piraten_kapern_v0"], "trained on piraten_kapern_v0"),
    ],
)
def test_train_refuses_bad_values_before_any_work(tmp_path, capsys, argv, message):
    assert message in refused(capsys, train.main, [*argv, "--out-dir", str(tmp_path), "--run-name", "run"])
    assert not (tmp_path / "run").exists()


def test_the_run_folder_is_checked_before_any_work(tmp_path, capsys):
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    assert f"{a_file} is not a folder" in refused(capsys, train.main, ["--out-dir", str(a_file), "--run-name", "run"])
    assert "--run-name '': give a folder name" in refused(
        capsys, train.main, ["--out-dir", str(tmp_path), "--run-name", ""]
    )
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text("{}")
    err = refused(capsys, train.main, ["--out-dir", str(tmp_path), "--run-name", "run"])
    assert f"run folder {tmp_path / 'run'} exists: pass --resume" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["config.json", "file", "run"]


def test_the_default_player_count_comes_from_the_game():
    args = train.TrainArgs(env_id="piratenpoker_v0")
    train.check_args(args)
    assert train.env_config(args)["num_players"] == 4


def test_resume_needs_a_checkpoint_and_a_budget_beyond_the_run(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text(json.dumps({"env_id": "skull_king_v0"}))
    assert "no usable checkpoint" in refused(capsys, train.main, ["--resume", str(empty)])
    assert "not a run folder" in refused(capsys, train.main, ["--resume", str(tmp_path / "nothing")])
    run = tiny_run(tmp_path)
    err = refused(capsys, train.main, ["--resume", str(run), "--total-timesteps", "32"])
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
    deadline = time.monotonic() + SUBPROCESS_S  # catches a hang only (a first run compiles numba kernels)
    while not (run / "checkpoints" / "step_64.npz").exists():  # learning has started and evaluated once
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGINT)  # the trainer and its env worker alike
    out, err = process.communicate(timeout=SUBPROCESS_S)
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


def test_the_resume_command_carries_what_is_left_of_the_cpu_cap():
    """A ``--max-cpu-s`` counts one invocation's CPU: the command printed at a Ctrl-C gives what is left of it, so
    that the resumed run keeps the budget (without a cap, none is added)."""
    left = resume_command(Path("runs/a b"), 12.2)
    assert left == "python -m experiments.train --resume 'runs/a b' --max-cpu-s 13"
    assert resume_command(Path("runs/a"), float("inf")) == "python -m experiments.train --resume runs/a"


def test_a_cuda_device_must_exist(tmp_path, capsys, monkeypatch):
    import torch

    argv = ["--out-dir", str(tmp_path), "--run-name", "run"]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    err = refused(capsys, train.main, [*argv, "--device", "cuda"])
    assert "--device cuda: CUDA is not available on this machine (torch.cuda.is_available() is False)" in err
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert "--device cuda:3: this machine has 1 CUDA device(s)" in refused(
        capsys, train.main, [*argv, "--device", "cuda:3"]
    )
    assert not (tmp_path / "run").exists()


#: The command line of the saved runs below (the run's config.json holds its arguments).
BASE = [*GAME, *TINY, *QUIET]


def saved_run(tmp_path: Path, **changes) -> Path:
    """A run folder whose config.json holds ``BASE``'s arguments with ``changes`` (no checkpoint needed)."""
    import dataclasses

    from experiments.cli import parse_args

    run = tmp_path / "saved"
    run.mkdir(exist_ok=True)
    config = {**dataclasses.asdict(train.plan_of(parse_args(train.TrainArgs, BASE)).args), **changes}
    (run / "config.json").write_text(json.dumps(config))
    return run


@pytest.mark.parametrize(
    ("changes", "argv"),
    [
        ({"learning_rate": -1.0}, ["--learning-rate=-1"]),
        ({"gamma": 1.5}, ["--gamma", "1.5"]),
        ({"gae_lambda": -0.5}, ["--gae-lambda=-0.5"]),
        ({"clip_range": 0}, ["--clip-range", "0"]),
        ({"ent_coef": -0.1}, ["--ent-coef=-0.1"]),
        ({"seed": -1}, ["--seed", "-1"]),
        ({"total_timesteps": 0}, ["--total-timesteps", "0"]),
        ({"batch_size": 1}, ["--batch-size", "1"]),
        ({"net_arch": [64, 0]}, ["--net-arch", "64", "0"]),
        ({"num_players": 7}, ["--num-players", "7"]),
        ({"opponents": ["heuristic:-1", "self"]}, ["--opponents", "heuristic:-1", "self"]),
        ({"opponents": ["random", "random"]}, ["--opponents", "random", "random"]),
        ({"eval_opponents": ["randon"]}, ["--eval-opponents", "randon"]),
        ({"env_kwargs": ["num_players=3"]}, ["--env-kwargs", "num_players=3"]),
        ({"device": "tpu"}, ["--device", "tpu"]),
    ],
)
def test_resume_checks_the_saved_config_as_a_fresh_command_line(tmp_path, capsys, changes, argv):
    fresh = refused(capsys, train.main, [*BASE, *argv, "--out-dir", str(tmp_path / "fresh")]).split("error: ", 1)[1]
    run = saved_run(tmp_path, **changes)
    resumed = refused(capsys, train.main, ["--resume", str(run)])
    assert resumed.endswith(f"error: {run / 'config.json'}: {fresh}"), (resumed, fresh)
    assert not (tmp_path / "fresh").exists() and sorted(p.name for p in run.iterdir()) == ["config.json"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"learning_rat": 0.1}, "unknown keys ['learning_rat']"),
        ({"learning_rate": "fast"}, "--learning-rate 'fast' is not of type float"),
        ({"seed": True}, "--seed True is not of type int"),
        ({"n_steps": 32.5}, "--n-steps 32.5 is not of type int"),
        ({"net_arch": 64}, "--net-arch 64 is not of type list[int]"),
        ({"reward_mode": "points"}, "--reward-mode 'points' is not valid; choose from win, score"),
        ({"progress": "yes"}, "--progress 'yes' is not of type bool"),
    ],
)
def test_resume_refuses_unknown_keys_and_values_of_the_wrong_type(tmp_path, capsys, changes, message):
    run = saved_run(tmp_path, **changes)
    assert f"{run / 'config.json'}: {message}" in refused(capsys, train.main, ["--resume", str(run)])


def test_resume_refuses_a_config_that_is_no_json_object_and_settings_it_would_ignore(tmp_path, capsys):
    run = saved_run(tmp_path)
    assert "a resumed run keeps the settings of" in refused(
        capsys, train.main, ["--resume", str(run), "--learning-rate", "1"]
    )
    err = refused(capsys, train.main, ["--resume", str(run), "--seed", "3", "--overwrite"])
    assert "--overwrite --seed: a resumed run keeps" in err and "give only --total-timesteps, --max-wall-s" in err
    (run / "config.json").write_text("[1, 2]")
    assert "expected a JSON object of arguments, got list" in refused(capsys, train.main, ["--resume", str(run)])
    (run / "config.json").write_text('{"env_id": "skull_king_v0",')
    assert "config.json: not readable as JSON" in refused(capsys, train.main, ["--resume", str(run)])


@pytest.mark.parametrize(
    ("module", "argv", "message"),
    [
        ("experiments.train", ["--learning-rate", "nan"], "--learning-rate must be a finite number, got nan"),
        ("experiments.best_response", ["--", "--env-id", "skull_king_v0"], "the probe sets it; use --env-id"),
    ],
)
def test_a_bad_value_exits_2_with_one_line_from_the_command_line(tmp_path, module, argv, message):
    # about 5 s on a quiet machine (the imports); the limit only catches a hang
    command = [sys.executable, "-m", module, *argv]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=environment, timeout=SUBPROCESS_S)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
