"""Subprocess smoke runs of the train, evaluate and play scripts with tiny budgets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.experiments.subprocess_limits import SUBPROCESS_S
from tests.helpers import refused

ROOT = Path(__file__).resolve().parents[2]


def run_module(module: str, *args: str, stdin: str = "", timeout: int = SUBPROCESS_S) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def test_train_writes_a_run_folder_and_resumes(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    tiny = ["--num-envs", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--eval-games", "2"]
    tiny += ["--warm-start-games", "8"]  # the game's recipe imitates the oracle in 2,000 games first
    common = ["--env-id", "piraten_kapern_v0", "--num-players", "2", "--out-dir", str(tmp_path), "--run-name", "run"]
    common += ["--no-progress"]
    result = run_module("experiments.train", *common, *tiny, "--total-timesteps", "128", "--eval-every", "128")
    assert result.returncode == 0, result.stderr
    run = tmp_path / "run"
    for name in ("config.json", "progress.csv", "learning_curve.png", "summary.json", "eval/history.json"):
        assert (run / name).is_file(), name
    assert (run / "checkpoints" / "latest.zip").is_file() and (run / "checkpoints" / "latest.npz").is_file()
    assert "| learner |" in result.stdout
    history = json.loads((run / "eval" / "history.json").read_text())
    assert [h["timesteps"] for h in history] == [0, 0, 128, 128]  # one row per evaluation opponent

    from experiments.train import main

    main(["--resume", str(run), "--total-timesteps", "256", "--no-progress"])
    history = json.loads((run / "eval" / "history.json").read_text())
    assert sorted({h["timesteps"] for h in history}) == [0, 128, 256]
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 256
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:  # a finished run is never overwritten by accident
        main([*common, "--total-timesteps", "128"])
    assert refused.value.code == 2 and f"run folder {run} exists: pass --resume" in capsys.readouterr().err


def test_train_stops_at_its_wall_clock_budget_and_still_saves(tmp_path):
    pytest.importorskip("sb3_contrib")
    from experiments.train import main

    tiny = ["--num-envs", "2", "--num-workers", "0", "--n-steps", "64", "--batch-size", "64", "--eval-games", "2"]
    tiny += ["--opponents", "random:1", "--eval-every", "0"]
    tiny += ["--env-id", "skull_king_v0", "--num-players", "4", "--env-kwargs", "num_hands=2"]  # games that end soon
    budget = ["--total-timesteps", "1000000", "--max-wall-s", "0.2"]  # far more steps than 0.2 s can take
    run = main(["--out-dir", str(tmp_path), "--run-name", "run", "--no-progress", *tiny, *budget])
    summary = json.loads((run / "summary.json").read_text())
    # the rollout cut short is not counted: the run stops where it resumes, after whole rollouts of 128
    assert summary["timesteps"] < 1_000_000 and summary["timesteps"] % 128 == 0
    assert (run / "checkpoints" / "latest.zip").is_file()
    history = json.loads((run / "eval" / "history.json").read_text())
    assert [h["timesteps"] for h in history] == [summary["timesteps"]] * 2  # one row per evaluation opponent
    # the wall budget belongs to one invocation: a resume without it runs to the step budget
    main(["--resume", str(run), "--total-timesteps", str(summary["timesteps"] + 256), "--no-progress"])
    assert json.loads((run / "summary.json").read_text())["timesteps"] == summary["timesteps"] + 256


def test_train_stops_at_its_cpu_budget_and_refuses_work_it_cannot_count(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from experiments.train import main

    tiny = ["--num-envs", "2", "--n-steps", "64", "--batch-size", "64", "--eval-games", "2", "--eval-every", "0"]
    tiny += ["--opponents", "random:1", "--env-id", "skull_king_v0", "--num-players", "4"]
    tiny += ["--env-kwargs", "num_hands=2"]
    budget = ["--total-timesteps", "1000000", "--max-cpu-s", "0.5"]  # far more steps than 0.5 CPU-s can take
    run = main(["--out-dir", str(tmp_path), "--run-name", "run", "--no-progress", "--num-workers", "0", *tiny, *budget])
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] < 1_000_000 and summary["timesteps"] % 128 == 0
    assert summary["learn_cpu_s"] >= 0.5 and (run / "checkpoints" / "latest.zip").is_file()
    capsys.readouterr()
    single = ["--out-dir", str(tmp_path), "--no-progress", "--engine", "single", "--num-workers", "2", *tiny, *budget]
    assert "not with the one-game engine's --num-workers 2 processes" in refused(capsys, main, single)
    piped = ["--out-dir", str(tmp_path), "--no-progress", "--pipeline", "--pipeline-in", "process", *tiny, *budget]
    assert "not with --pipeline-in process" in refused(capsys, main, piped)
    # --engine auto falls back to the one-game engine's workers for an option the kernels cannot hold
    kapern = ["--env-id", "piraten_kapern_v0", "--opponents", "random:1", "--env-kwargs", f"max_rolls={2**64}"]
    fallback = ["--out-dir", str(tmp_path), "--no-progress", "--engine", "auto", "--num-workers", "2", *kapern, *budget]
    assert "not with the one-game engine's --num-workers 2 processes" in refused(capsys, main, fallback)
    batched = ["--out-dir", str(tmp_path), "--no-progress", "--engine", "batched", *kapern, *budget]
    assert "--engine batched: max_rolls=18446744073709551616 is out of range" in refused(capsys, main, batched)


def test_evaluate_prints_and_writes_tables_ratings_and_plot(tmp_path):
    out = tmp_path / "eval"
    result = run_module(
        "experiments.evaluate",
        *("--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "random"),
        *("--players", "2", "--games", "4", "--out", str(out)),
    )
    assert result.returncode == 0, result.stderr
    assert "rating" in result.stdout and "league of 2 players" in result.stdout
    payload = json.loads((out / "results.json").read_text())
    assert [r["agent"] for r in payload["results"]] == ["heuristic", "random"]
    assert all(r["rating"] is not None for r in payload["results"])
    assert payload["results"][0]["seats_played"] == 4  # one pairing (heuristic, random), four games
    assert (out / "results.md").is_file() and (out / "results.png").stat().st_size > 1000


def test_play_asks_again_on_bad_input_and_quits():
    bad_then_quit = "hello\n0\n99999\n²\n" + "1" * 5000 + "\nq\n"  # a superscript digit, a 5,000-digit number
    result = run_module("experiments.play", "--env-id", "piraten_kapern_v0", "--seed", "1", stdin=bad_then_quit)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("is not a move") == 5
    assert result.stdout.rstrip().endswith("quit; the standings so far:\n  player_0: 0\n  player_1: 0")
    assert "#1 stop" in result.stdout


def test_ctrl_c_ends_a_game_with_the_standings_so_far():
    process = subprocess.Popen(
        [sys.executable, "-m", "experiments.play", "--env-id", "skull_king_v0", "--agents", "random", "--seed", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # Ctrl-C even under a parent ignoring it
    )
    seen = b""
    while b"your move" not in seen:  # wait for the first prompt
        chunk = os.read(process.stdout.fileno(), 4096)
        assert chunk, process.stderr.read().decode()
        seen += chunk
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=SUBPROCESS_S)
    assert process.returncode == 130
    assert b"Traceback" not in err, err.decode()
    text = (seen + out).decode()
    assert "interrupted; the standings so far:" in text and "player_0: 0" in text and "player_1: 0" in text


def test_play_ends_on_end_of_input_and_finishes_a_game():
    eof = run_module("experiments.play", "--env-id", "skull_king_v0", "--agents", "random", "--seed", "2", stdin="")
    assert eof.returncode == 0, eof.stderr
    assert "quit; the standings so far:\n  player_0: 0\n  player_1: 0" in eof.stdout  # Ctrl-D, as Ctrl-C
    full = run_module(
        "experiments.play",
        *("--env-id", "skull_king_v0", "--agents", "random", "random", "--seed", "2", "--reveal"),
        stdin="#1\n" * 200,
    )
    assert full.returncode == 0, full.stderr
    assert "game over; scores" in full.stdout


def test_seeded_training_runs_repeat(tmp_path):
    pytest.importorskip("sb3_contrib")
    import numpy as np

    from agents.policy.agent import load_checkpoint
    from experiments.train import main

    def final_logits(name: str, seed: int) -> np.ndarray:
        tiny = ["--num-envs", "2", "--num-workers", "0", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1"]
        args = ["--out-dir", str(tmp_path), "--run-name", name, "--total-timesteps", "64", "--eval-every", "0"]
        game = ["--env-id", "skull_king_v0", "--num-players", "4", "--env-kwargs", "num_hands=1"]
        game += ["--opponents", "random", "self"]
        evaluation = ["--eval-games", "1", "--eval-opponents", "random"]
        main([*tiny, *args, *game, *evaluation, "--seed", str(seed), "--no-progress"])
        policy, _ = load_checkpoint(str(tmp_path / name / "checkpoints" / "latest.zip"))
        return policy.logits(np.linspace(-1, 1, policy.obs_size, dtype=np.float32))

    first = final_logits("a", 5)
    np.testing.assert_array_equal(first, final_logits("b", 5))
    assert not np.array_equal(first, final_logits("c", 6))
