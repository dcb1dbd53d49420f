"""The exploitability probe: a fresh learner against a frozen agent, its win rate above chance."""

from __future__ import annotations

import json

import pytest

from agents.evaluation.probe import markdown_report, probe_report
from experiments import best_response
from experiments.best_response import ProbeArgs, probe_plan, train_argv


def test_train_command_puts_the_agent_in_every_other_seat():
    argv = train_argv(ProbeArgs(env_id="skull_king_v0", agent="ppo:skull_king_v0", total_timesteps=1000))
    assert argv[argv.index("--opponents") + 1] == "ppo:skull_king_v0:1.0"
    assert argv[argv.index("--eval-opponents") + 1] == "ppo:skull_king_v0"
    assert argv[argv.index("--run-name") + 1] == "probe_skull_king_v0_ppo-skull_king_v0_s1"


def test_report_reads_the_curve_and_subtracts_chance(tmp_path):
    (tmp_path / "eval").mkdir()
    rows = [
        {"timesteps": 200, "opponent": "heuristic", "win_rate": 0.4, "win_low": 0.3, "win_high": 0.5},
        {"timesteps": 100, "opponent": "heuristic", "win_rate": 0.2, "win_low": 0.1, "win_high": 0.3},
        {"timesteps": 200, "opponent": "random", "win_rate": 0.9, "win_low": 0.8, "win_high": 1.0},
    ]
    (tmp_path / "eval" / "history.json").write_text(json.dumps(rows))
    (tmp_path / "config.json").write_text(json.dumps({"num_players": 4}))
    report = probe_report(probe_plan(ProbeArgs(env_id="skull_king_v0", agent="heuristic")), tmp_path)
    assert report["budget_learner_steps"] == 200 and report["chance"] == 0.25
    (tmp_path / "config.json").write_text(json.dumps({"num_players": [4]}))  # the trainer's list of table sizes
    assert probe_report(probe_plan(ProbeArgs(env_id="skull_king_v0", agent="heuristic")), tmp_path) == report
    assert report["above_chance"] == pytest.approx(0.15)
    assert report["above_chance_interval"] == pytest.approx([0.05, 0.25])
    assert [point[0] for point in report["curve"]] == [100, 200]


def test_unknown_agent_is_refused_before_training(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        best_response.main(["--env-id", "piraten_kapern_v0", "--agent", "heuristc", "--out-dir", str(tmp_path)])
    assert exit_info.value.code == 2 and "heuristc" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_tiny_probe_end_to_end(tmp_path):
    argv = [
        "--env-id",
        "piraten_kapern_v0",
        "--agent",
        "heuristic",
        "--total-timesteps",
        "256",
        "--eval-every",
        "128",
        "--eval-games",
        "4",
        "--out-dir",
        str(tmp_path),
        "--",
        "--num-envs",
        "4",
        "--num-workers",
        "0",
        "--n-steps",
        "32",
        "--batch-size",
        "64",
        "--warm-start-games",  # the game's recipe imitates the oracle in 2,000 games first: 8 here
        "8",
        "--no-progress",
    ]
    report = best_response.main(argv)
    run_dir = tmp_path / "probe_piraten_kapern_v0_heuristic_s1"
    saved = json.loads((run_dir / "best_response.json").read_text())
    assert saved["budget_learner_steps"] == report["budget_learner_steps"] >= 256
    assert [t for t, *_ in saved["curve"]] == [0, 128, 256]
    assert saved["above_chance"] == pytest.approx(saved["win_rate"] - 0.5)
    assert (run_dir / "best_response.md").read_text().startswith("piraten_kapern_v0, 2 players")


def test_the_report_names_the_game_the_run_trained(tmp_path):
    (tmp_path / "eval").mkdir()
    rows = [{"timesteps": 100, "opponent": "heuristic", "win_rate": 0.4, "win_low": 0.3, "win_high": 0.5}]
    (tmp_path / "eval" / "history.json").write_text(json.dumps(rows))
    (tmp_path / "config.json").write_text(json.dumps({"env_id": "skull_king_v0", "num_players": 3}))
    report = probe_report(probe_plan(ProbeArgs(env_id="piraten_kapern_v0", agent="heuristic", num_players=2)), tmp_path)
    assert (report["env_id"], report["players"], report["chance"]) == ("skull_king_v0", 3, 1 / 3)
    assert markdown_report(report).startswith("skull_king_v0, 3 players")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed must be at least 0, got -1"),
        (["--seed", "2147483648"], "--seed must be at most 2147483647"),
        (["--total-timesteps", "0"], "--total-timesteps must be at least 1, got 0"),
        (["--eval-games", "0"], "--eval-games must be at least 1, got 0"),
        (["--eval-every", "-5"], "--eval-every must be at least 0, got -5"),
        (["--num-players", "9"], "piraten_kapern_v0 plays 2-"),
        (["--agent", "heuristc"], "--agent 'heuristc': no agent"),
        (["--", "--env-id", "skull_king_v0"], "-- --env-id: the probe sets it; use --env-id"),
        (["--", "--opponents", "random"], "-- --opponents: the probe sets it; use --agent"),
        (["--", "--num-players", "3"], "-- --num-players: the probe sets it; use --num-players"),
        (["--", "--resume", "runs/x"], "-- --resume: the probe sets it; use none: a probe always trains a fresh"),
        (["--", "--learning-rate", "nan"], "--learning-rate must be a finite number, got nan"),
        (["--", "--gamma", "2"], "--gamma must be at most 1, got 2.0"),
        (["--", "--env-kwargs", "num_players=3"], "use --num-players"),
        (["--", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
    ],
)
def test_bad_values_are_refused_before_training(capsys, tmp_path, argv, message):
    cut = argv.index("--") if "--" in argv else len(argv)
    argv = [*argv[:cut], "--out-dir", str(tmp_path / "runs"), *argv[cut:]]
    with pytest.raises(SystemExit) as exit_info:
        best_response.main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "runs").exists()
