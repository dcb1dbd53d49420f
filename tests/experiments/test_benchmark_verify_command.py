"""``experiments.benchmark --verify`` and the ``--leaderboard`` guards: refused or failed before any game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")
pytest.importorskip("stable_baselines3")

from agents.benchmark.protocol import TITLE
from agents.piraten_kapern.batched_heuristic import KapernHeuristicBatch
from experiments import benchmark
from tests.experiments.test_benchmark_command import no_games  # noqa: F401 (a fixture)
from tests.helpers import refused

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "message"),
    [("", "--leaderboard is empty"), ("docs", "must name a .md file"), ("docs/leaderboard.md", "that page is of")],
)
@pytest.mark.usefixtures("no_games")
def test_a_leaderboard_path_is_checked_before_any_game(capsys, path, message):
    """An empty path, a folder, or the v3 page that the v2 leaderboard would overwrite."""
    assert message in refused(capsys, benchmark.main, ["--leaderboard", path])


@pytest.mark.usefixtures("no_games")
def test_a_leaderboard_page_of_its_own_version_may_be_rewritten(tmp_path):
    page = tmp_path / "board.md"
    page.write_text("# Leaderboard\n\npirate-bench v2 at 128 deals\n")
    args = benchmark.BenchmarkArgs(leaderboard=str(page))
    benchmark.check(args, {"leaderboard"})  # no error: the page is v2's


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--verify", "nowhere"], "--verify 'nowhere': no results files"),
        (["--verify", "docs/results/data", "--agent", "random"], "plays nothing; leave out --agent"),
    ],
)
@pytest.mark.usefixtures("no_games")
def test_bad_verify_arguments_one_line(capsys, argv, message):
    assert message in refused(capsys, benchmark.main, argv)


def test_verify_exits_non_zero_on_a_changed_opponent(tmp_path, capsys, monkeypatch):
    argv = ["--env-id", "piraten_kapern_v0", "--agent", "random", "--players", "2", "--deals", "1"]
    benchmark.main([*argv, "--opponents", "heuristic", "--out", str(tmp_path), "--no-progress"])
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["protocol"] == TITLE and saved["provenance"]["command"].startswith("python -m experiments.benchmark")
    assert "--deals 1" in saved["provenance"]["command"] and str(tmp_path) not in saved["provenance"]["command"]
    original = KapernHeuristicBatch.act_batch

    def always_first_legal(self, games, observations, masks):
        original(self, games, observations, masks)
        return masks.argmax(axis=1).astype("int64")

    monkeypatch.setattr(KapernHeuristicBatch, "act_batch", always_first_legal)
    monkeypatch.setattr("agents.benchmark.verify.FOLDER", tmp_path / "no package here")  # the results file only
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        benchmark.main(["--verify", str(tmp_path), "--no-progress"])
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert "DIFFERS: " in out and "heuristic in piraten_kapern_v0 at 2 players: position" in out
    assert "1 files checked, 1 differences" in out


def test_verify_says_a_v3_0_file_was_checked_against_its_set_and_cannot_be_reproduced(tmp_path, capsys, monkeypatch):
    committed = ROOT / "docs" / "results" / "data" / "piratenpoker_v0" / "random.json"
    (tmp_path / "random.json").write_text(committed.read_text())
    monkeypatch.setattr("agents.benchmark.verify.FOLDER", tmp_path / "no package here")  # the results file only
    benchmark.main(["--verify", str(tmp_path), "--no-progress"])  # no SystemExit: it holds against v3.0's set
    out = capsys.readouterr().out
    assert f"verified against its revision's fingerprints: {tmp_path / 'random.json'} was made under " in out
    assert "pirate-bench v3.0, cannot be reproduced at the current code: halving:50 in piratenpoker_v0" in out
    assert "1 files checked, 0 differences" in out and "not verified" not in out
