"""One agent against copies of another: ``--players`` beyond the names, ``NAMEx<k>``, and intervals over games."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from agents.evaluation.games import seat_names
from agents.evaluation.stats import t_quantile, wilson_interval
from agents.evaluation.summary import COPIES_PER_GAME, ONE_SEAT_A_GAME, summarise
from agents.evaluation.tournament import run_tournament
from experiments import evaluate
from tests.helpers import refused

#: Student t 97.5% quantiles from printed tables (degrees of freedom: quantile).
T_TABLE = {1: 12.7062, 2: 4.3027, 5: 2.5706, 11: 2.2010, 29: 2.0452, 100: 1.9840, 1000: 1.9623}

GAMES = 12
ARGV = ["--env-id", "skull_king_v0", "--games", str(GAMES), "--seed", "5", "--no-progress"]


def per_game_interval(shares: list[float]) -> tuple[float, float, float]:
    """The t interval of per-game shares, by hand: mean ± t(n-1) * sd / sqrt(n), clipped to [0, 1]."""
    mean, n = statistics.fmean(shares), len(shares)
    half = T_TABLE[n - 1] * statistics.stdev(shares) / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


@pytest.mark.parametrize("df", sorted(T_TABLE))
def test_t_quantile_matches_the_printed_tables(df):
    assert t_quantile(df) == pytest.approx(T_TABLE[df], abs=1e-4)


def test_copies_of_random_get_an_interval_over_games_not_seats():
    """1 random against 5 copies of random, seeded: the copies' interval is over per-game shares."""
    _, records = run_tournament("skull_king_v0", ["random"] * 6, GAMES, seed=5)
    # label agent 0 of the rotation "one" and the five others "copies" (seats rotate per game)
    played = [
        (["one" if n == 0 else "copies" for n in seats], r)
        for seats, r in zip(seat_names(list(range(6)), records), records)
    ]
    results = {r.agent: r for r in summarise(played)}
    copies, one = results["copies"], results["one"]
    shares = [sum(w for n, w in zip(names, r.win_shares) if n == "copies") / 5 for names, r in played]
    p, low, high = per_game_interval(shares)
    assert (copies.win_rate, copies.win_low, copies.win_high) == pytest.approx((p, low, high), abs=1e-4)
    assert (copies.seats_played, copies.games, copies.interval) == (5 * GAMES, GAMES, COPIES_PER_GAME)
    naive = wilson_interval(sum(shares) * 5, 5 * GAMES)  # as if the 60 seats were independent
    assert abs((high - low) - (naive[2] - naive[1])) > 0.05
    one_shares = [r.win_shares[names.index("one")] for names, r in played]
    assert (one.win_rate, one.win_low, one.win_high) == wilson_interval(sum(one_shares), GAMES)
    assert (one.games, one.interval) == (GAMES, ONE_SEAT_A_GAME)


def test_two_names_at_a_bigger_table_seat_the_first_against_copies_of_the_second(tmp_path, capsys):
    """``--agents heuristic random --players 6`` and ``--agents heuristic randomx5``: the same six seats."""
    runs = {}
    for spelling in (["heuristic", "random", "--players", "6"], ["heuristic", "randomx5"]):
        folder = tmp_path / "x".join(spelling)
        evaluate.main([*ARGV, "--agents", *spelling, "--out", str(folder / "out"), "--save-games", str(folder / "g")])
        out = capsys.readouterr().out
        assert f"skull_king_v0: {GAMES} games, seats rotated: heuristic randomx5" in out
        assert "Student t interval" in out
        payload = json.loads((folder / "out" / "results.json").read_text())
        assert payload["lineup"] == ["heuristic"] + ["random"] * 5
        records = [json.loads(p.read_text()) for p in sorted((folder / "g").iterdir())]
        assert all(sorted(r["agents"]) == ["heuristic"] + ["random"] * 5 for r in records)
        runs[spelling[1]] = payload["results"], records
        random = next(r for r in payload["results"] if r["agent"] == "random")
        shares = [sum(w for n, w in zip(r["agents"], r["win_shares"]) if n == "random") / 5 for r in records]
        p, low, high = per_game_interval(shares)  # from the saved records, by hand
        assert (random["win_rate"], random["win_low"], random["win_high"]) == pytest.approx((p, low, high), abs=1e-4)
        assert (random["seats_played"], random["games"]) == (5 * GAMES, GAMES)
    assert runs["random"][1] == runs["randomx5"][1]  # the same games
    assert runs["random"][0] == runs["randomx5"][0]


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        (["heuristic", "randomx7"], "--agents randomx7: at most 6 copies, the largest table"),
        (["heuristic", "randomx0"], "--agents 'randomx0': no agent"),
        (["heuristic", "randomx5", "random"], "plays 2-6 players, not 7"),
        (["heuristicx2", "randomx5", "--players", "3"], "--players 3: a league seats distinct agents, at most 2 here"),
    ],
)
def test_bad_copies_are_one_line(capsys, agents, message):
    assert message in refused(capsys, evaluate.main, [*ARGV, "--agents", *agents])
