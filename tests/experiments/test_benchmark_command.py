"""``experiments.benchmark``: bad arguments are refused in one line before any game; a run writes its results."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")
pytest.importorskip("stable_baselines3")

from agents.benchmark import run
from experiments import benchmark
from tests.helpers import refused


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test as soon as the command would play a line-up."""

    def refuse(*args, **kwargs):
        raise AssertionError("a game was about to be played")

    monkeypatch.setattr(run, "play_lineups", refuse)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env-id", "nope", "--out", "x"], "--env-id 'nope' is not a game"),
        (["--agent", "zzz", "--out", "x"], "--agent 'zzz': no agent 'zzz' for skull_king_v0"),
        (["--players", "9", "--out", "x"], "--players: skull_king_v0 plays 2-6 players, not 9"),
        (["--env-id", "piratenpoker_v0", "--players", "2", "--out", "x"], "plays 3-5 players, not 2"),
        (["--opponents", "bob", "--out", "x"], "--opponents 'bob' is not a line-up of pirate-bench v2"),
        (["--deals", "10001", "--out", "x"], "--deals must be at most 10000"),
        (["--deals", "-1", "--out", "x"], "--deals must be at least 0"),
        (["--workers", "100000", "--out", "x"], "--workers 100000: at most"),
        (["--agent", "mcts:0", "--out", "x"], "--agent 'mcts:0'"),
        ([], "--out: give a folder"),
        (["--leaderboard", "lb.md", "--env-id", "skull_king_v0"], "--env-id: a --leaderboard run plays every game"),
        (["--leaderboard", "lb.md", "--agent", "random", "--players", "3"], "--agent and --players: a --leaderboard"),
        (["--opponents", "random", "heuristic", "random", "--out", "x"], "'random' is named twice; give each once"),
        (["--all-sizes", "--out", "x"], "--all-sizes: only --leaderboard uses it; leave it out"),
        (["--search-deals", "5", "--out", "x"], "--search-deals: only --leaderboard uses it"),
    ],
)
def test_bad_arguments_one_line(capsys, no_games, argv, message):
    assert message in refused(capsys, benchmark.main, argv)


@pytest.mark.parametrize("flag", ["--out", "--leaderboard"])
def test_an_output_under_a_file_is_refused(capsys, no_games, tmp_path, flag):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert "is not a folder" in refused(capsys, benchmark.main, [flag, str(blocker / "sub" / "x.md")])


def test_a_reduced_run_writes_results(tmp_path, capsys):
    argv = ["--env-id", "piraten_kapern_v0", "--agent", "heuristic", "--players", "2", "--deals", "3"]
    document = benchmark.main([*argv, "--opponents", "random", "--out", str(tmp_path), "--no-progress"])
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved == json.loads(json.dumps(document))
    assert saved["protocol"] == "pirate-bench v2" and saved["full_protocol"] is False
    assert [x["lineup"] for x in saved["lineups"]] == ["2p vs random"]
    page = (tmp_path / "results.md").read_text()
    assert page.startswith("# pirate-bench v2: heuristic on piraten_kapern_v0") and "| 2p vs random | 3 |" in page
    assert "Reduced run" in page


def test_one_deal_writes_strict_json(tmp_path):
    """One deal leaves the intervals over deals undefined: null in the JSON, never Infinity or NaN."""
    argv = ["--env-id", "piraten_kapern_v0", "--agent", "random", "--players", "2", "--deals", "1"]
    benchmark.main([*argv, "--opponents", "heuristic", "--out", str(tmp_path), "--no-progress"])
    text = (tmp_path / "results.json").read_text()
    saved = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in results.json"))
    win = saved["lineups"][0]["estimates"]["win"]
    assert win["raw"][1:] == [None, None] and win["variance_ratio"] is None
    assert "[—]" in (tmp_path / "results.md").read_text()
