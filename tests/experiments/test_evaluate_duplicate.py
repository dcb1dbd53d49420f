"""Duplicate deals, parallel games, progress and saved game records of ``experiments.evaluate``."""

from __future__ import annotations

import json

import pytest

import pirate_envs
from agents.evaluation.games import GameRecord, play_job, play_jobs, tournament_jobs
from agents.evaluation.records import replay
from agents.evaluation.stats import mean_interval
from agents.evaluation.summary import summarise
from agents.evaluation.tournament import run_tournament
from experiments import evaluate
from tests.game_data import by_version

PLAY_JOB = play_job
#: A lineup by version whose saved games are replayed: each game's ``saved_games_lineup`` (tests/<game>/).
LINEUPS = by_version("saved_games_lineup")


def test_duplicate_plays_each_deal_once_per_rotation():
    jobs = tournament_jobs("piratenpoker_v0", ["heuristic", "random", "mcts:2"], 6, seed=10, duplicate=True)
    assert [(j.seed, j.rotation) for j in jobs] == [(10, 0), (10, 1), (10, 2), (11, 0), (11, 1), (11, 2)]
    # within a deal every agent sits every seat once
    for deal in (jobs[:3], jobs[3:]):
        for seat in range(3):
            assert sorted(j.seat_names()[seat] for j in deal) == ["heuristic", "mcts:2", "random"]
    plain = tournament_jobs("piratenpoker_v0", ["heuristic", "random", "mcts:2"], 6, seed=10)
    assert [j.seed for j in plain] == list(range(10, 16))
    with pytest.raises(ValueError, match="multiple of 3"):
        tournament_jobs("piratenpoker_v0", ["heuristic", "random", "mcts:2"], 4, duplicate=True)


def test_same_deal_same_cards_in_every_rotation():
    """The games of a deal start from the same state: the same seed deals the same cards and dice."""
    _, records = run_tournament("piraten_kapern_v0", ["random", "random"], 4, seed=3, duplicate=True)
    first_states = []
    for record in records:
        env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2)
        env.reset(seed=record.seed)
        first_states.append(env.game.render())
    assert first_states[0] == first_states[1] and first_states[2] == first_states[3]
    assert first_states[0] != first_states[2]


def test_duplicate_intervals_are_over_deals():
    """Two deals of a two-seat rotation: the interval is the normal one over the two deal means."""

    def game(seed, shares, scores):
        return GameRecord(scores, shares, False, None, seed)

    played = [
        (["a", "b"], game(0, [1.0, 0.0], [10.0, 2.0])),
        (["b", "a"], game(0, [1.0, 0.0], [8.0, 4.0])),
        (["a", "b"], game(1, [1.0, 0.0], [6.0, 0.0])),
        (["b", "a"], game(1, [0.0, 1.0], [1.0, 9.0])),
    ]
    a = next(r for r in summarise(played, duplicate=True) if r.agent == "a")
    assert a.seats_played == 4
    p, lo, hi = mean_interval([0.5, 1.0])  # deal 0: a won one of its two seats; deal 1: both
    assert (a.win_rate, a.win_low, a.win_high) == (p, max(0.0, lo), min(1.0, hi))
    m, mlo, mhi = mean_interval([7.0, 7.5])  # a's mean score per deal: (10 + 4) / 2, (6 + 9) / 2
    assert (a.mean_score, a.score_low, a.score_high) == (m, mlo, mhi)
    plain = next(r for r in summarise(played) if r.agent == "a")
    assert plain.win_rate == 0.75 and plain.win_low != a.win_low  # Wilson over single games


def test_parallel_workers_give_the_same_records():
    jobs = tournament_jobs("skull_king_v0", ["heuristic", "random", "random"], 3, seed=5, duplicate=True)
    assert play_jobs(jobs, workers=2) == play_jobs(jobs, workers=1)


@pytest.mark.parametrize("env_id", list(LINEUPS))
def test_saved_games_replay_exactly(tmp_path, env_id, capsys):
    agents = LINEUPS[env_id]
    out = tmp_path / "games"
    evaluate.main(
        [
            "--env-id",
            env_id,
            "--agents",
            *agents,
            "--games",
            str(len(agents)),
            "--duplicate",
            "--save-games",
            str(out),
            "--no-progress",
        ]
    )
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"game_{i:06d}.json" for i in range(len(agents))]  # no temporary files left
    for path in files:
        record = json.loads(path.read_text())
        assert set(record) >= {"env_id", "env_kwargs", "seed", "actions", "agents", "scores"}
        assert record["env_id"] == env_id and sorted(record["agents"]) == sorted(agents)
        assert record["actions"] and replay(record) == record["scores"]


def test_replay_refuses_an_unfinished_record():
    record = {"env_id": "piraten_kapern_v0", "env_kwargs": {"num_players": 2}, "seed": 0, "actions": []}
    record["scores"] = [0, 0]
    with pytest.raises(ValueError, match="not over"):
        replay(record)


def test_duplicate_needs_a_multiple_of_the_table(capsys):
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "--games", "3", "--duplicate"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(argv)
    assert exit_info.value.code == 2
    assert "multiple of 2" in capsys.readouterr().err


def test_progress_on_stderr(capsys):
    evaluate.main(["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "--games", "2"])
    err = capsys.readouterr().err
    assert "2/2 games" in err and "left" in err


def blas_threads() -> list[int]:
    """numpy's BLAS thread counts as threadpoolctl sees them."""
    from threadpoolctl import threadpool_info

    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def play_and_count(job):
    """A game's record and the BLAS thread counts it was played under (module level: workers unpickle it)."""
    return PLAY_JOB(job), blas_threads()


@pytest.mark.parametrize("workers", [1, 2])
def test_games_are_played_on_one_blas_thread(monkeypatch, workers):
    """The networks' small products: several BLAS threads spin against each other (four times the CPU)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from agents.evaluation import games

    if not blas_threads():
        pytest.skip("numpy's BLAS is not one threadpoolctl sees")
    monkeypatch.setattr(games, "play_job", play_and_count)
    jobs = tournament_jobs("skull_king_v0", ["heuristic", "random", "random"], 2, seed=5)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        seen = [threads for _, threads in games.play_jobs(jobs, workers=workers)]
        assert set(blas_threads()) == {2}, "the limit outlived the games"
    assert seen == [[1] * len(seen[0])] * len(jobs)
