"""``experiments.evaluate --from-records``: saved games summarised as one evaluation, every record replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.evaluation.games import GameRecord
from agents.evaluation.records import load_records, whole_deals
from experiments import evaluate
from tests.helpers import refused

SK = ["--env-id", "skull_king_v0", "--agents", "heuristic", "random", "random", "--no-progress"]


def run(argv: list[str], capsys) -> tuple[list, str]:
    """``evaluate.main(argv)``'s results and what it printed."""
    results = evaluate.main(argv)
    return results, capsys.readouterr().out


def figures(results) -> list[tuple]:
    return [(r.agent, r.seats_played, r.games, r.win_rate, r.win_low, r.mean_score, r.score_low) for r in results]


def test_two_runs_summarised_from_their_records_give_the_one_run_of_all_their_deals(tmp_path, capsys):
    """Deals 5-6 and 7-8 played in two runs, then summarised: the figures of one run of deals 5-8."""
    for seed in (5, 7):
        evaluate.main(
            [*SK, "--games", "6", "--duplicate", "--seed", str(seed), "--save-games", str(tmp_path / f"s{seed}")]
        )
    whole, _ = run([*SK, "--games", "12", "--duplicate", "--seed", "5"], capsys)
    pooled, out = run(["--from-records", str(tmp_path / "s5"), str(tmp_path / "s7"), "--duplicate"], capsys)
    assert figures(pooled) == figures(whole)
    assert "12 saved games from" in out and "seeds 5 to 8" in out and "left out" not in out
    assert all(r.games == 4 for r in pooled)  # the intervals are over the 4 deals


def test_a_run_stopped_short_of_a_rotation_loses_that_deal_and_says_so(tmp_path, capsys):
    folder = tmp_path / "games"
    evaluate.main([*SK, "--games", "9", "--duplicate", "--seed", "5", "--save-games", str(folder)])
    stopped = next(p for p in folder.iterdir() if json.loads(p.read_text())["seed"] == 6)
    stopped.unlink()  # deal 6 played in two rotations of three
    kept, out = run(["--from-records", str(folder), "--duplicate"], capsys)
    first, _ = run([*SK, "--games", "3", "--duplicate", "--seed", "5"], capsys)
    last, _ = run([*SK, "--games", "3", "--duplicate", "--seed", "7"], capsys)
    assert "left out 1 deal short of a rotation (seeds 6)" in out
    assert [r.games for r in kept] == [2, 2]
    heuristic = next(r for r in kept if r.agent == "heuristic")
    expected = [next(r for r in played if r.agent == "heuristic").mean_score for played in (first, last)]
    assert heuristic.mean_score == pytest.approx(sum(expected) / 2)
    every, out = run(["--from-records", str(folder)], capsys)  # games, not deals: all eight count
    assert [r.seats_played for r in every] == [8, 16] and "left out" not in out


def test_a_league_summarised_from_its_records(tmp_path, capsys):
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "oracle", "--players", "2"]
    played, _ = run([*argv, "--games", "4", "--seed", "3", "--save-games", str(tmp_path), "--no-progress"], capsys)
    pooled, out = run(["--from-records", str(tmp_path)], capsys)
    assert sorted(figures(pooled)) == sorted(figures(played))
    assert "league of 2 players" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--games", "4"], "--games: --from-records summarises saved games"),
        (["--agents", "random"], "--agents: --from-records summarises saved games"),
        (["--env-id", "skull_king_v0"], "--env-id: --from-records summarises saved games"),
        (["--seed", "1"], "--seed: --from-records summarises saved games"),
    ],
)
def test_flags_that_choose_games_are_refused_beside_the_records(tmp_path, capsys, extra, message):
    evaluate.main([*SK, "--games", "3", "--save-games", str(tmp_path)])
    assert message in refused(capsys, evaluate.main, ["--from-records", str(tmp_path), *extra])


def test_records_that_cannot_make_one_evaluation_are_refused_naming_the_file(tmp_path, capsys):
    games = tmp_path / "games"
    evaluate.main([*SK, "--games", "3", "--save-games", str(games)])
    assert "the same game (seed 0, seating, actions) is there twice" in refused(
        capsys, evaluate.main, ["--from-records", str(games), str(games)]
    )
    (tmp_path / "empty").mkdir()
    assert "no game records (game_NNNNNN.json) in" in refused(
        capsys, evaluate.main, ["--from-records", str(tmp_path / "empty")]
    )
    assert "not a folder of game records" in refused(capsys, evaluate.main, ["--from-records", str(tmp_path / "none")])
    other = tmp_path / "other"
    evaluate.main([*SK, "--games", "3", "--env-kwargs", "num_hands=2", "--save-games", str(other)])
    assert "another game or env options than" in refused(
        capsys, evaluate.main, ["--from-records", str(games), str(other)]
    )
    four = tmp_path / "four"
    evaluate.main([*SK, "--agents", "heuristic", "randomx3", "--games", "4", "--save-games", str(four)])
    assert "summarise one table size at a time" in refused(
        capsys, evaluate.main, ["--from-records", str(games), str(four)]
    )
    forged = games / "game_000001.json"
    record = json.loads(forged.read_text())
    forged.write_text(json.dumps({**record, "scores": record["scores"][::-1]}))
    message = refused(capsys, evaluate.main, ["--from-records", str(games)])
    assert "game_000001.json: game record of skull_king_v0 seed 1: recorded scores" in message
    forged.write_text("{not json")
    assert "game_000001.json: Expecting property name" in refused(capsys, evaluate.main, ["--from-records", str(games)])
    forged.write_text(json.dumps({**record, "agents": ["heuristic"]}))
    assert "agents must list one agent name per seat (3)" in refused(
        capsys, evaluate.main, ["--from-records", str(games)]
    )


def test_a_deal_is_whole_with_every_rotation_of_its_lineup_copies_included():
    def game(names: str, seed: int) -> tuple[list[str], GameRecord]:
        return names.split(), GameRecord([0.0] * 4, [0.0] * 4, False, seed=seed)

    rotations = ["a b b c", "c a b b", "b c a b", "b b c a"]
    played = [game(s, 1) for s in rotations] + [game(s, 2) for s in rotations[:3]] + [game(rotations[0], 3)] * 4
    kept, left_out = whole_deals(played)
    assert [record.seed for _, record in kept] == [1, 1, 1, 1] and left_out == [2, 3]  # deal 3: one seating 4 times


def test_load_records_reads_folders_in_order_and_numbers_in_numeric_order(tmp_path, capsys):
    evaluate.main([*SK, "--games", "3", "--seed", "9", "--save-games", str(tmp_path)])
    records = load_records([tmp_path])
    assert records.env_id == "skull_king_v0" and "num_players" not in records.env_kwargs
    assert [record.seed for _, record in records.played] == [9, 10, 11]
    assert all(isinstance(names, list) and len(names) == 3 for names, _ in records.played)


def test_the_results_files_name_the_records(tmp_path, capsys):
    evaluate.main([*SK, "--games", "3", "--save-games", str(tmp_path / "g")])
    evaluate.main(["--from-records", str(tmp_path / "g"), "--out", str(tmp_path / "out")])
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["args"]["from_records"] == [str(tmp_path / "g")]
    assert "3 saved games from" in (tmp_path / "out" / "results.md").read_text()
    assert Path(tmp_path / "out" / "results.png").exists()


@pytest.mark.parametrize("kind", ["fifo", "device", "oversized"])
def test_a_record_that_is_no_regular_file_or_too_large_is_refused_at_once(tmp_path, capsys, monkeypatch, kind):
    """A FIFO (never written to), a link to ``/dev/zero`` or a file over the cap: one line, no wait, no read."""
    import os

    evaluate.main([*SK, "--games", "2", "--seed", "9", "--save-games", str(tmp_path)])
    bad = tmp_path / "game_000002.json"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "device":
        bad.symlink_to("/dev/zero")
    else:
        monkeypatch.setattr("agents.evaluation.records.MAX_RECORD_BYTES", 100)
        bad = tmp_path / "game_000000.json"
    err = refused(capsys, evaluate.main, ["--from-records", str(tmp_path)])
    expected = "more than a record may (100)" if kind == "oversized" else "not a regular file"
    assert str(bad) in err and expected in err, err


def test_agent_names_from_records_are_escaped_in_results_md(tmp_path, capsys):
    """A record's agent names cannot add table cells, rows or HTML to ``results.md``."""
    folder = tmp_path / "g"
    evaluate.main([*SK, "--games", "3", "--seed", "9", "--save-games", str(folder)])
    hostile = ["a|b", "<script>alert(1)</script>", "two\nlines"]
    for path in folder.iterdir():
        record = json.loads(path.read_text())
        record["agents"] = [{"heuristic": hostile[0], "random": hostile[1]}[name] for name in record["agents"]]
        record["agents"][record["agents"].index(hostile[1], record["agents"].index(hostile[1]) + 1)] = hostile[2]
        path.write_text(json.dumps(record))
    evaluate.main(["--from-records", str(folder), "--out", str(tmp_path / "out")])
    page = (tmp_path / "out" / "results.md").read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page and "two lines" in page
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    widths = {line.replace("\\|", "").count("|") for line in rows[:4]}  # the results table: one width
    assert len(widths) == 1 and "a\\|b" in page, page
