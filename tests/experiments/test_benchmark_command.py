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
        (["--env-id", "lucky_pirate_v1", "--out", "x"], "--env-id lucky_pirate_v1: not a game of pirate-bench v3"),
        (["--agent", "zzz", "--out", "x"], "--agent 'zzz': no agent 'zzz' for skull_king_v0"),
        (["--players", "9", "--out", "x"], "--players: skull_king_v0 plays 2-6 players, not 9"),
        (["--env-id", "piratenpoker_v0", "--players", "2", "--out", "x"], "plays 3-5 players, not 2"),
        (["--opponents", "bob", "--out", "x"], "--opponents 'bob' is not a line-up of pirate-bench v3"),
        (["--opponents", "mcts", "--out", "x"], "--opponents 'mcts' is not a line-up of pirate-bench v3"),
        (["--protocol", "v2", "--opponents", "search", "--out", "x"], "is not a line-up of pirate-bench v2"),
        (["--protocol", "v1", "--out", "x"], "--protocol 'v1': versions v2, v3"),
        (["--agent", "no_such_pkg.mod:make", "--out", "x"], "--agent 'no_such_pkg.mod:make': cannot import"),
        (["--agent", "missing/bot.py:make", "--out", "x"], "no file 'bot.py'"),
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
        (["--leaderboard", "lb.md", "--resume"], "--resume: a --leaderboard run plays every game and agent"),
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
    argv = [
        "--env-id",
        "piraten_kapern_v0",
        "--agent",
        "heuristic",
        "--players",
        "2",
        "--deals",
        "3",
        "--protocol",
        "v2",
    ]
    document = benchmark.main([*argv, "--opponents", "random", "--out", str(tmp_path), "--no-progress"])
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved == json.loads(json.dumps(document))
    assert saved["protocol"] == "pirate-bench v2" and saved["full_protocol"] is False
    assert [x["lineup"] for x in saved["lineups"]] == ["2p vs random"]
    page = (tmp_path / "results.md").read_text()
    assert page.startswith("# pirate-bench v2: heuristic on piraten_kapern_v0") and "| 2p vs random | 3 |" in page
    assert "Reduced run" in page


def test_a_run_resumed_reads_its_kept_batches_back(tmp_path, capsys):
    argv = ["--env-id", "piraten_kapern_v0", "--agent", "heuristic", "--players", "2", "--deals", "3"]
    argv += ["--opponents", "random", "--out", str(tmp_path)]
    first = benchmark.main(argv)
    assert len(list((tmp_path / "batches").glob("*.npz"))) == 1
    capsys.readouterr()
    resumed = benchmark.main([*argv, "--resume"])
    assert "read back 1 of 1 batches kept in" in capsys.readouterr().err
    assert resumed["lineups"][0]["win_rate"] == first["lineups"][0]["win_rate"]
    assert resumed["provenance"]["resumed"]["batches_reused"] == 1


def test_one_deal_writes_strict_json(tmp_path):
    """One deal leaves the intervals over deals undefined: null in the JSON, never Infinity or NaN."""
    argv = ["--env-id", "piraten_kapern_v0", "--agent", "random", "--players", "2", "--deals", "1"]
    benchmark.main([*argv, "--opponents", "heuristic", "--out", str(tmp_path), "--no-progress"])
    text = (tmp_path / "results.json").read_text()
    saved = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in results.json"))
    win = saved["lineups"][0]["estimates"]["win"]
    assert win["raw"][1:] == [None, None] and win["variance_ratio"] is None
    assert "[—]" in (tmp_path / "results.md").read_text()


AGENT_FILE = """
import numpy as np


class LastLegal:
    name = "last-legal"

    def reset(self, seed=None):
        pass

    def act(self, observation, view=None):
        return int(np.flatnonzero(observation["action_mask"])[-1])


def make(env_id, seed, env):
    return LastLegal()


def broken(env_id, seed, env):
    raise RuntimeError("not today")
"""


def test_a_python_agent_file_runs_through_the_command(tmp_path):
    """A user's agent in a file: played, named by its file name and hash, its folder never recorded."""
    import hashlib

    source = tmp_path / "code" / "my_bot.py"
    source.parent.mkdir()
    source.write_text(AGENT_FILE)
    out = tmp_path / "out"
    argv = ["--env-id", "piraten_kapern_v0", "--agent", f"{source}:make", "--players", "2", "--deals", "2"]
    document = benchmark.main([*argv, "--opponents", "heuristic", "--out", str(out), "--no-progress"])
    text = (out / "results.json").read_text()
    assert str(tmp_path) not in text and str(tmp_path) not in (out / "results.md").read_text()
    saved = json.loads(text)
    assert saved["protocol"] == "pirate-bench v3.1" and saved["candidate"] == "my_bot.py:make"
    assert saved["agents"]["candidate"] == {
        "name": "my_bot.py:make",
        "file": "my_bot.py",
        "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "kind": "python",
    }
    assert saved["lineups"][0]["games"] == 4 and document["reduced"]["players"] == [2]
    assert "the first 2 of the published list" in json.dumps(saved["reduced"])


def test_a_python_agent_that_fails_to_build_is_refused_in_one_line(tmp_path, capsys, no_games):
    source = tmp_path / "my_bot.py"
    source.write_text(AGENT_FILE)
    message = refused(capsys, benchmark.main, ["--agent", f"{source}:broken", "--out", str(tmp_path / "o")])
    assert "RuntimeError: not today" in message
    assert "no callable 'nope'" in refused(capsys, benchmark.main, ["--agent", f"{source}:nope", "--out", "x"])


def test_the_web_table_does_not_offer_python_agents(tmp_path):
    """Only the benchmark command and API load a user's code: the web table refuses such a name."""
    from experiments.web.sessions import AgentCatalog, RequestError

    catalog = AgentCatalog()
    source = tmp_path / "my_bot.py"
    source.write_text(AGENT_FILE)
    for name in (f"{source}:make", "tests.experiments.test_benchmark_command:refused"):
        with pytest.raises(RequestError, match="unknown agent"):
            catalog.build(name, "piraten_kapern_v0", 0, None)


DYING_AGENT_FILE = """
import os
import signal

import numpy as np

PARENT = os.getpid()  # the command's process: the forked workers inherit this module


class DiesInAWorker:
    name = "dies-in-a-worker"

    def reset(self, seed=None):
        pass

    def act(self, observation, view=None):
        if os.getpid() != PARENT:  # as the kernel's out-of-memory killer would
            os.kill(os.getpid(), signal.SIGKILL)
        return int(np.flatnonzero(observation["action_mask"])[0])


def make(env_id, seed, env):
    return DiesInAWorker()
"""


def test_a_worker_killed_stops_the_run_in_one_line_instead_of_waiting(tmp_path):
    """A worker process killed in the middle of a batch (for memory, say) ends the command with one line
    that says what was kept; a `multiprocessing.Pool` waited for that batch forever."""
    import subprocess
    import sys

    source = tmp_path / "dying.py"
    source.write_text(DYING_AGENT_FILE)
    argv = ["--env-id", "piraten_kapern_v0", "--agent", f"{source}:make", "--players", "2", "--deals", "2"]
    argv += ["--opponents", "random", "heuristic", "--workers", "2", "--out", str(tmp_path / "out"), "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.benchmark", *argv], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 1, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("benchmark: a worker process died while playing a batch (killed: out of memory?)")
    assert "the same command with --resume goes on" in last and "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "results.json").exists()
