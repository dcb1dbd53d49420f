"""Games and batches played in worker processes: results in order, and a killed worker stops the caller.

A `multiprocessing.Pool` gave the game of a worker killed by the out-of-memory killer to nobody, and
the tournament waited for it forever; the scripts below run in a subprocess with a wide timeout, so
that the code before fails them instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from agents.processes import WorkerDied, in_processes

#: Patches the agent maker of the tournaments so that ``heuristic`` kills its worker process on its
#: first move there (as the kernel's out-of-memory killer would); the parent plays it unharmed.
DYING_HEURISTIC = """
import os, signal, sys
import numpy as np
import agents.evaluation.games as games

PARENT = os.getpid()
real = games.make_agent


class DiesInAWorker:
    name = "heuristic"

    def reset(self, seed=None):
        pass

    def act(self, observation, view=None):
        if os.getpid() != PARENT:
            os.kill(os.getpid(), signal.SIGKILL)
        return int(np.flatnonzero(observation["action_mask"])[0])


def make_agent(name, env_id, seed=None, env=None):
    return DiesInAWorker() if name == "heuristic" else real(name, env_id, seed=seed, env=env)


games.make_agent = make_agent
"""

PLAY_JOBS = """
from agents.evaluation.games import play_jobs, tournament_jobs
from agents.processes import WorkerDied

try:
    play_jobs(tournament_jobs("piraten_kapern_v0", ["random", "heuristic"], 8), workers=2)
except WorkerDied as error:
    print("WorkerDied:", error)
"""


def _run(script: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=600
    )  # seconds at most when it works; the code before waited forever


def test_a_worker_killed_in_a_tournament_raises_instead_of_waiting():
    done = _run(DYING_HEURISTIC + PLAY_JOBS)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ("WorkerDied: a worker process died while playing a game (killed: out of memory?)"), (
        done.stdout
    )


def test_the_evaluate_command_says_in_one_line_that_a_worker_died_and_where_the_games_are(tmp_path):
    script = DYING_HEURISTIC + "import sys\nfrom experiments.evaluate import main\nmain(sys.argv[1:])\n"
    saved = tmp_path / "games"
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "random", "heuristic", "--games", "8"]
    done = _run(script, *argv, "--workers", "2", "--save-games", str(saved))
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "evaluate: a worker process died while playing a game (killed: out of memory?); "
        f"the games that ended are saved in {saved}"
    )


def _square_after(job: tuple[int, float]) -> int:
    number, pause = job
    time.sleep(pause)
    return number * number


def test_results_come_in_job_order_where_asked_and_all_of_them_either_way():
    jobs = [(0, 0.5), (1, 0.0), (2, 0.2), (3, 0.0)]  # the first finishes last
    ordered = list(in_processes(_square_after, jobs, 2, ordered=True, playing="a job"))
    assert ordered == [0, 1, 4, 9]
    assert sorted(in_processes(_square_after, jobs, 2, ordered=False, playing="a job")) == [0, 1, 4, 9]


def _kill_self(job: int) -> int:
    import os
    import signal

    if job == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return job


def test_a_dead_worker_names_what_was_playing_and_what_was_kept():
    with pytest.raises(WorkerDied) as raised:
        list(in_processes(_kill_self, [0, 1, 2], 2, ordered=True, playing="a batch", kept="batches kept in x"))
    assert (
        str(raised.value) == "a worker process died while playing a batch (killed: out of memory?); batches kept in x"
    )


def test_a_tournament_stopped_by_an_error_shuts_its_workers_down_at_once():
    """An error where the games go (``on_record``: a full disk, say) stops the workers before it
    comes out, instead of leaving them to play the queued games."""
    import multiprocessing

    from agents.evaluation.games import play_jobs, tournament_jobs

    def full_disk(job, record):
        raise OSError("no space left on device")

    jobs = tournament_jobs("piraten_kapern_v0", ["random", "random"], 400)
    try:
        play_jobs(jobs, workers=2, on_record=full_disk)
    except OSError as error:  # its traceback, held here, keeps every frame of the call alive
        assert "no space left" in str(error)
        assert multiprocessing.active_children() == []
    else:
        raise AssertionError("the error did not come out")
