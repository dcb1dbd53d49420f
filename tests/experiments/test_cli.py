"""Command lines refuse bad values up front; evaluation tables and plots."""

from __future__ import annotations

import json

import pytest

from experiments import evaluate, play
from pirate_envs import player_counts
from tests.helpers import one_table_agent_file, refused


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env-id", "skull_king_v0", "--agents", "heuristc:0.5", "random"], "--agents 'heuristc:0.5': no agent"),
        (["--env-id", "piratenpoker_v0", "--agents", "heuristic", "random"], "plays 3-5 players, not 2"),
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--games", "-3"], "--games must be at least 1, got -3"),
        (["--env-id", "chess_v0"], "--env-id 'chess_v0' is not a game"),
        (["--agents", "heuristic", "heuristic", "random", "random", "--players", "3"], "at most 2 here"),
    ],
)
def test_evaluate_refuses_bad_values_before_any_game(capsys, tmp_path, argv, message):
    err = refused(capsys, evaluate.main, [*argv, "--out", str(tmp_path / "out")])
    assert message in err
    assert not (tmp_path / "out").exists()


def test_help_shows_every_default_and_each_games_agents(capsys, monkeypatch):
    from experiments import train

    monkeypatch.setenv("COLUMNS", "250")  # no wrapping inside a default
    defaults = {
        evaluate.main: ["(default: 30)", "(default: ['oracle', 'heuristic', 'random'])"],
        train.main: ["(default: 200000)", "(default: None)", "(default: ['self:0.5', 'heuristic:0.3', 'random:0.2'])"],
        play.main: ["(default: ['heuristic'])", "(default: 0)"],
    }
    for main, shown in defaults.items():
        with pytest.raises(SystemExit):
            main(["--help"])
        out = capsys.readouterr().out
        expected = ["piratenpoker_v0 (3-5, default 4):", "random heuristic oracle", "ppo:skull_king_v0 (2/3/4/5/6p)"]
        for line in [*shown, *expected]:
            assert line in out, (main.__module__, line)


def test_player_counts_come_from_the_game():
    assert player_counts("piratenpoker_v0") == (3, 4, 5)
    assert player_counts("skull_king_v0") == (2, 3, 4, 5, 6)


def test_league_tables_give_the_head_to_head_matrix(tmp_path, capsys):
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "oracle", "--players", "2"]
    evaluate.main([*argv, "--games", "4", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "Head to head" in out and "| win rate of ↓ with → | heuristic | random | oracle |" in out
    payload = json.loads((tmp_path / "results.json").read_text())
    matrix = payload["head_to_head"]
    for a in ("heuristic", "random", "oracle"):
        for b in ("heuristic", "random", "oracle"):
            if a != b:  # two-player games: each pair's win rates add up to one (no truncation in Kapern)
                assert matrix[a][b]["games"] == 4
                assert matrix[a][b]["win_rate"] + matrix[b][a]["win_rate"] == pytest.approx(1.0)
    assert "| win rate of ↓ with →" in (tmp_path / "results.md").read_text()


def test_short_labels_read_names_by_the_grammar():
    """A search's budget and network word stay; a Python agent keeps its file name and factory."""
    from agents.evaluation import plots

    names = ["halving:64:ppo:runs/x/latest.npz", "mcts:200", "examples/my_agent.py:make", "rules:cards/mine.json"]
    assert plots.short_labels(names) == ["halving:64:ppo:latest", "mcts:200", "my_agent.py:make", "rules:mine"]


def test_plots_use_short_labels_and_draw_chance(tmp_path, monkeypatch):
    from agents.evaluation import plots

    long = "ppo:runs/some_long_run_name/checkpoints/step_1000000.npz#sample"
    label, heuristic = plots.short_labels([long, "heuristic"])
    assert heuristic == "heuristic" and len(label) <= plots.MAX_LABEL and label.startswith("ppo:step_1000000")
    assert plots.short_labels(["ppo:a/latest.npz", "ppo:b/latest.npz"]) == ["ppo:latest (1)", "ppo:latest (2)"]
    figures = []
    monkeypatch.setattr(plots.plt, "close", figures.append)
    rows = [
        {"agent": long, "win_rate": 0.5, "win_low": 0.4, "win_high": 0.6},
        {"agent": "heuristic", "win_rate": 0.2, "win_low": 0.1, "win_high": 0.3},
    ]
    plots.tournament_chart(rows, tmp_path / "chart.png", chance=0.25)
    ax = figures[0].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [label, "heuristic"]
    assert any(list(line.get_ydata()) == [0.25, 0.25] for line in ax.lines)
    history = [{"timesteps": 0, "opponent": "heuristic", "win_rate": 0.1, "win_low": 0.0, "win_high": 0.2}]
    plots.learning_curve(history, tmp_path / "curve.png", chance=0.5)
    assert any(list(line.get_ydata()) == [0.5, 0.5] for line in figures[1].axes[0].lines)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "heuristc"], "--agents 'heuristc': no agent"),
        (["--env-id", "piratenpoker_v0", "--agents", "heuristic"], "plays 3-5 players, not 2"),
        (["--seat", "5"], "--seat 5"),
    ],
)
def test_play_refuses_bad_values(capsys, argv, message):
    assert message in refused(capsys, play.main, argv)


def test_the_readme_command_lines_parse():
    """Every ``python -m experiments.<script>`` line of the README and of its long form (the tour page) names
    flags the script has."""
    import re
    import shlex
    from pathlib import Path

    from experiments import export, train
    from experiments.cli import build_parser

    scripts = {"train": train.TrainArgs, "evaluate": evaluate.EvalArgs, "play": play.PlayArgs}
    scripts["export"] = export.ExportArgs
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    pages = readme + (root / "docs" / "guides" / "tour.md").read_text()
    commands = re.findall(r"python -m experiments\.(\w+)((?: [^&\n`]+)?)", pages)
    assert {"train", "evaluate", "play", "export"} <= {script for script, _ in commands}
    for script, argv in commands:
        if script in scripts and "--help" not in argv:
            build_parser(scripts[script]).parse_args(shlex.split(argv.replace("<", "x").replace(">", "x")))
    main = readme.split("# main-command\n", 1)[1].split("\n", 1)[0]
    assert "ppo:runs/main-job/checkpoints/latest.npz" in main  # the data-only file train writes


def test_evaluate_refuses_an_agent_at_a_table_it_does_not_play(capsys, tmp_path):
    agent = one_table_agent_file(tmp_path / "four.npz", "skull_king_v0", 4)
    argv = ["--env-id", "skull_king_v0", "--agents", f"ppo:{agent}", "heuristic", "random"]
    assert "plays 4 players, not 3" in refused(capsys, evaluate.main, argv)
