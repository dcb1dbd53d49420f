"""``experiments.evaluate`` refuses every bad option value, output folders included, before any game."""

from __future__ import annotations

import json

import pytest

from agents.evaluation import tournament
from agents.evaluation.records import replay
from experiments import cli, evaluate
from tests.helpers import refused

BASE = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "--games", "2", "--no-progress"]


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test as soon as a command would deal a game (instead of playing, or hanging on a huge run)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a game was about to be played")

    monkeypatch.setattr(tournament, "tournament_jobs", refuse)
    monkeypatch.setattr(tournament, "play_jobs", refuse)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--games", "-3"], "--games must be at least 1, got -3"),
        (["--games", "abc"], "invalid int value: 'abc'"),
        (["--games", "1.5"], "invalid int value: '1.5'"),
        (["--games", str(10**12)], f"--games {10**12}: at most 1,000,000 games"),
        (
            ["--games", "600000", "--agents", "heuristic", "random", "oracle", "--players", "2"],
            "--games 600000 x 3 pairings: at most 1,000,000 games",
        ),
        (["--seed", "-1"], "--seed must be at least 0, got -1"),
        (["--seed", "x"], "invalid int value: 'x'"),
        (["--seed", str(2**63)], f"--seed must be at most {2**63 - 1} (a 64-bit integer)"),
        (["--seed", str(2**63 - 1)], f"--seed {2**63 - 1}: the games' seeds run to {2**63}"),
        (["--workers", "0"], "--workers must be at least 1, got 0"),
        (["--workers", "x"], "invalid int value: 'x'"),
        (["--workers", "1000000"], "--workers 1000000: at most the"),
        (["--players", "-1"], "--players must be at least 0, got -1"),
        (["--players", "9"], "--players: piraten_kapern_v0 plays 2-5 players, not 9"),
        (["--players", "1", "--agents", "heuristic", "random", "oracle"], "plays 2-5 players, not 1"),
        (["--agents", "nobody", "random"], "--agents 'nobody': no agent"),
        (["--agents", "ppo:no/such/file.npz", "random"], "--agents 'ppo:no/such/file.npz': no checkpoint file"),
        (["--agents", "mcts:x", "random"], "--agents 'mcts:x'"),
        (["--env-id", "chess_v0"], "--env-id 'chess_v0' is not a game"),
        (["--env-kwargs", "nope"], "--env-kwargs 'nope': expected key=value"),
        (["--env-kwargs", "colour=3"], "--env-kwargs colour=3: unknown keyword argument"),
        (["--env-kwargs", "target_score=-5"], "--env-kwargs target_score=-5: target_score=-5 is out of range"),
        (["--env-kwargs", "num_players=3"], "--env-kwargs num_players=3: the player count comes from"),
        (["--env-kwargs", "promo_cards={1}"], "--env-kwargs promo_cards={1}: Object of type set is not JSON"),
    ],
)
def test_every_bad_value_is_one_line_before_any_game(capsys, tmp_path, no_games, options, message):
    out = tmp_path / "out"
    err = refused(capsys, evaluate.main, [*BASE, *options, "--out", str(out), "--save-games", str(tmp_path / "g")])
    assert message in err
    assert not out.exists() and not (tmp_path / "g").exists()  # the folders are made only once all else is valid


@pytest.mark.parametrize("flag", ["--out", "--save-games"])
def test_an_unwritable_folder_is_refused_before_any_game(capsys, tmp_path, no_games, flag):
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder")
    for folder in (a_file / "sub", a_file):  # under a regular file; a regular file itself
        err = refused(capsys, evaluate.main, [*BASE, flag, str(folder)])
        assert f"{flag} {folder}: {a_file} is not a folder" in err
    assert a_file.read_text() == "not a folder"


def test_output_folders_are_made_and_left_without_probe_files(tmp_path, capsys):
    out, games = tmp_path / "a" / "b" / "out", tmp_path / "c" / "games"
    evaluate.main([*BASE, "--out", str(out), "--save-games", str(games)])
    assert sorted(p.name for p in out.iterdir()) == ["results.json", "results.md", "results.png"]
    assert sorted(p.name for p in games.iterdir()) == ["game_000000.json", "game_000001.json"]


def test_workers_are_capped_at_the_cpus_this_process_may_use(capsys, monkeypatch, no_games):
    monkeypatch.setattr(cli, "available_cpus", lambda: 3)
    err = refused(capsys, evaluate.main, [*BASE, "--workers", "4"])
    assert "--workers 4: at most the 3 CPUs this process may use" in err


def test_a_repeated_agent_fills_a_table_of_all_its_agents(capsys):
    """``--players`` equal to the number of agents is the plain tournament, a name repeated or not."""
    argv = "--env-id piratenpoker_v0 --agents random random heuristic --players 3 --games 3 --no-progress"
    evaluate.main(argv.split())
    assert "piratenpoker_v0: 3 games, seats rotated" in capsys.readouterr().out


def test_env_kwargs_reach_the_games_and_their_records(tmp_path, capsys):
    games = tmp_path / "games"
    evaluate.main([*BASE, "--env-kwargs", "promo_cards=True", "target_score=2000", "--save-games", str(games)])
    for path in sorted(games.iterdir()):
        record = json.loads(path.read_text())
        assert record["env_kwargs"] == {"promo_cards": True, "target_score": 2000, "num_players": 2}
        assert replay(record) == record["scores"]


def test_list_valued_env_kwargs_key_the_tables_they_build():
    # a short Skull King deck given as lists (as a Python caller writes it): the built tables are keyed by the options
    from agents.evaluation.games import play_job, tournament_jobs

    options = {"num_hands": 1, "suits": [0, 3], "ranks": 3, "specials": [1, 1, 1, 1, 0]}
    jobs = tournament_jobs("skull_king_v0", ["heuristic", "random"], 2, **options)
    assert dict(jobs[0].env_kwargs)["suits"] == (0, 3)
    assert [len(play_job(job).scores) for job in jobs] == [2, 2]
