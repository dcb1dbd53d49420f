"""``python -m experiments.analyze``: every game end to end with tiny budgets, and its refusals."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import pirate_envs
from agents.games import game_agents_of
from experiments import analyze
from tests.game_data import by_version
from tests.helpers import refused

#: A small table of each game (the smallest its rules allow: quick): its ``analyze_lineup`` (tests/<game>/).
TABLES = by_version("analyze_lineup")


def figures(stats: dict):
    """Every (statistic, kind, group, agent, figure) of a stats.json ``stats`` block."""
    for name, stat in stats.items():
        for group, cells in stat["groups"].items():
            for agent, figure in cells.items():
                yield name, stat["kind"], group, agent, figure


def test_every_game_has_a_table_here() -> None:
    assert set(TABLES) == {env_id for env_id in pirate_envs.ENV_IDS if game_agents_of(env_id).collector}


@pytest.mark.parametrize("env_id", sorted(TABLES))
def test_end_to_end_writes_the_three_outputs(capsys, tmp_path, env_id: str) -> None:
    out = tmp_path / "analysis"
    argv = ["--env-id", env_id, "--agents", *TABLES[env_id], "--games", "2", "--seed", "3", "--out", str(out)]
    analyze.main(argv)
    printed = capsys.readouterr().out
    assert f"wrote {out}/report.md" in printed
    names = sorted(p.name for p in out.iterdir())
    assert "report.md" in names and "stats.json" in names
    assert any(name.endswith(".png") for name in names)
    assert not [name for name in names if name.endswith(".tmp")]  # written atomically: no temporary left
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "stats.json").read_text())
    assert data["env_id"] == env_id and data["games"] == 2 and data["seed"] == 3
    assert data["agents"] == list(dict.fromkeys(TABLES[env_id]))
    rows = list(figures(data["stats"]))
    assert rows, "no statistic was collected"
    for name, kind, group, agent, figure in rows:
        assert agent in data["agents"], (name, agent)
        assert isinstance(figure["n"], int) and figure["n"] >= 1, (name, group, agent)
        value = figure["rate" if kind == "rate" else "mean"]
        assert math.isfinite(value)
        if kind == "rate":  # a rate always has its Wilson interval around it
            assert 0 <= figure["low"] <= value + 1e-12 and value - 1e-12 <= figure["high"] <= 1, (name, group, agent)
            assert figure["successes"] == round(value * figure["n"])
        elif figure["n"] > 1:
            assert figure["low"] <= value <= figure["high"], (name, group, agent)
        else:  # one value: no interval
            assert figure["low"] is None and figure["high"] is None
    report = (out / "report.md").read_text()
    for agent in data["agents"]:
        assert agent in report
    for stat in data["stats"].values():
        if stat["plot"] and stat["groups"]:
            assert stat["title"] in report
    assert "n=" in report and "[" in report


def test_copies_pool_under_one_name_and_rotate_seats(tmp_path) -> None:
    out = tmp_path / "a"
    argv = ["--env-id", "skull_king_v0", "--agents", "heuristic", "random", "--players", "3", "--games", "3"]
    result = analyze.main([*argv, "--out", str(out)])
    assert result["lineup"] == ["heuristic", "random", "random"]
    assert result["agents"] == ["heuristic", "random"]
    exact = result["stats"]["exact"]["groups"]["all"]
    # 10 hands a game, 3 games: the heuristic's one seat scores 30 hands, the two random seats 60
    assert exact["heuristic"]["n"] == 30 and exact["random"]["n"] == 60


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--agents", "nobody", "random"], "--agents 'nobody': no agent"),
        (["--agents", "oracle", "random"], "--agents 'oracle': no agent 'oracle' for skull_king_v0"),
        (["--env-id", "chess_v0"], "--env-id 'chess_v0' is not a game"),
        (["--env-id", "piratenpoker_v0"], "--agents (one seat each): piratenpoker_v0 plays 3-5 players, not 2"),
        (["--players", "9"], "--players: skull_king_v0 plays 2-6 players, not 9"),
        (["--agents", "heuristic", "random", "random", "--players", "2"], "--players 2: fewer seats than the 3"),
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--seed", str(2**31 - 1), "--games", "2"], "--seed 2147483647: the games' seeds run to 2147483648"),
    ],
)
def test_bad_input_is_one_line_before_any_game(capsys, tmp_path, monkeypatch, options, message) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a game was about to be played")

    monkeypatch.setattr(analyze, "analyze", refuse)
    out = tmp_path / "out"
    err = refused(capsys, analyze.main, ["--env-id", "skull_king_v0", "--games", "1", *options, "--out", str(out)])
    assert message in err
    assert not out.exists() or not any(out.iterdir())


def test_unwritable_out_is_refused(capsys, tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    err = refused(capsys, analyze.main, ["--games", "1", "--out", str(blocker / "sub")])
    assert "--out" in err and "is not a folder" in err


def test_runs_as_a_module(tmp_path) -> None:
    out = tmp_path / "m"
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "--games", "1", "--out", str(out)]
    done = subprocess.run([sys.executable, "-m", "experiments.analyze", *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (out / "stats.json").exists() and (out / "report.md").exists()
