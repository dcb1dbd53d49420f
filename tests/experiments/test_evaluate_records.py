"""Saved game records of ``experiments.evaluate``: never overwritten, and checked as they are replayed."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import pirate_envs
from agents.evaluation import records
from agents.evaluation.games import play_job
from agents.evaluation.records import replay, save_games
from agents.evaluation.tournament import run_league
from experiments import evaluate

ARGV = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "--games", "2", "--no-progress"]


def saved_record(tmp_path: Path, env_id: str = "piraten_kapern_v0", seed: int = 1) -> dict:
    """A record as ``--save-games`` writes it: one game of the heuristic and random agents."""
    agents = ["heuristic"] + ["random"] * (pirate_envs.game_spec(env_id).min_players - 1)  # the fewest seats
    folder = tmp_path / f"record-{env_id}-{seed}"
    argv = f"--env-id {env_id} --games 1 --seed {seed} --no-progress --save-games".split()
    evaluate.main([*argv, str(folder), "--agents", *agents])
    return json.loads((folder / "game_000000.json").read_text())


def test_a_second_run_into_a_folder_numbers_on_and_overwrites_nothing(tmp_path, capsys):
    games = tmp_path / "games"
    evaluate.main([*ARGV, "--seed", "1", "--save-games", str(games)])
    first = {p.name: p.read_bytes() for p in games.iterdir()}
    evaluate.main([*ARGV, "--seed", "7", "--save-games", str(games)])
    assert "wrote 2 game records to" in capsys.readouterr().out.splitlines()[-1]
    files = {p.name: p.read_bytes() for p in games.iterdir()}
    assert sorted(files) == [f"game_{i:06d}.json" for i in range(4)]  # no temporary file left
    assert {name: files[name] for name in first} == first  # the first run's records, untouched
    assert [json.loads(files[f"game_{i:06d}.json"])["seed"] for i in range(4)] == [1, 2, 7, 8]


def test_a_name_taken_meanwhile_is_kept_and_skipped(tmp_path, monkeypatch, capsys):
    """Another writer took the next name after the folder was read: its file stays, ours goes on."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "game_000003.json").write_text("theirs")
    monkeypatch.setattr(records, "next_record_index", lambda folder: 3)
    _, played = run_league("piraten_kapern_v0", ["heuristic", "random"], 2, 2)
    paths = save_games(games, "piraten_kapern_v0", played)
    assert [p.name for p in paths] == ["game_000004.json", "game_000005.json"]
    assert (games / "game_000003.json").read_text() == "theirs"
    assert sorted(p.name for p in games.iterdir()) == [f"game_{i:06d}.json" for i in (3, 4, 5)]


def test_write_new_never_replaces_a_file(tmp_path):
    path = tmp_path / "game_000000.json"
    records.write_new(path, "first")
    with pytest.raises(FileExistsError):
        records.write_new(path, "second")
    assert path.read_text() == "first" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_replay_refuses_forged_scores(tmp_path, capsys):
    record = saved_record(tmp_path)
    assert replay(record) == record["scores"]
    record["scores"] = [record["scores"][1], record["scores"][0] + 100]
    with pytest.raises(ValueError, match=r"recorded scores \[.*\], but the replay gives"):
        replay(record)


def legal_all_the_way(record: dict, actions: list[int]) -> list[float] | None:
    """The final scores of ``actions`` replayed from the record's deal, if every one is legal and the game ends."""
    env = pirate_envs.make(record["env_id"], raw=True, **record["env_kwargs"])
    env.reset(seed=record["seed"])
    for action in actions:
        if env.game.done or not env.is_legal(action):
            return None
        env.step(action)
    return env.game.scores().tolist() if env.game.done else None


@pytest.mark.parametrize("env_id", ["piraten_kapern_v0", "piratenpoker_v0"])
def test_replay_refuses_a_legal_action_swapped_for_another(tmp_path, capsys, env_id):
    """A record whose action at some step was swapped for another legal one, the game still ending,
    with other final scores: replayed action by action it is legal, and refused for its scores."""
    record = saved_record(tmp_path, env_id)
    env = pirate_envs.make(env_id, raw=True, **record["env_kwargs"])
    env.reset(seed=record["seed"])
    forged = None
    for step, action in enumerate(record["actions"]):
        for other in (a for a in range(env.num_actions) if env.is_legal(a)):
            actions = [*record["actions"][:step], other, *record["actions"][step + 1 :]]
            scores = legal_all_the_way(record, actions) if other != action else None
            if scores is not None and scores != record["scores"]:
                forged = {**record, "actions": actions}
                break
        if forged:
            break
        env.step(action)
    assert forged is not None, "no swap of one legal action changes the scores and keeps the rest legal"
    with pytest.raises(ValueError, match=r"recorded scores .*, but the replay gives"):
        replay(forged)


def _with(record: dict, **changes) -> dict:
    forged = copy.deepcopy(record)
    for key, value in changes.items():
        if value is _DROP:
            del forged[key]
        else:
            forged[key] = value
    return forged


_DROP = object()


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda r: _with(r, scores=_DROP), "no 'scores' field"),
        (lambda r: _with(r, seed="1"), "seed='1' must be an integer, not str"),
        (lambda r: _with(r, seed=True), "seed=True must be an integer, not bool"),
        (lambda r: _with(r, seed=-1), "the seed must be a non-negative integer"),
        (lambda r: _with(r, actions="0 1 2"), "actions='0 1 2' must be a list, not str"),
        (lambda r: _with(r, env_kwargs=[2]), r"env_kwargs=\[2\] must be an object, not list"),
        (lambda r: _with(r, env_kwargs={"num_players": 2, "colour": 1}), "env_kwargs .*unknown keyword"),
        (lambda r: _with(r, env_id="chess_v0"), "env_id 'chess_v0' is not a game"),
        (lambda r: _with(r, actions=[1.0, *r["actions"][1:]]), "action 0 is 1.0, not an integer"),
        (lambda r: _with(r, actions=[True, *r["actions"][1:]]), "action 0 is True, not an integer"),
        (lambda r: _with(r, actions=[*r["actions"][:3], 10**6, *r["actions"][4:]]), "action 3: illegal action 1000000"),
        (lambda r: _with(r, actions=[*r["actions"][:3], -1, *r["actions"][4:]]), "action 3: illegal action -1"),
        (lambda r: _with(r, actions=r["actions"][:-1]), "not over after its"),
        (lambda r: _with(r, actions=[*r["actions"], 0]), "the game is over after .* actions, but the record has"),
        (lambda r: _with(r, win_shares=r["win_shares"][::-1]), "recorded win_shares"),
        (lambda r: _with(r, truncated=True), "recorded truncated True"),
    ],
)
def test_replay_names_the_fault_of_a_bad_record(tmp_path, capsys, forge, message):
    record = saved_record(tmp_path)
    assert record["win_shares"] != record["win_shares"][::-1]  # one winner: a swap is a forgery
    with pytest.raises(ValueError, match=message):
        replay(forge(record))


def test_replay_refuses_what_is_not_a_record():
    with pytest.raises(ValueError, match="a game record is a JSON object, not list"):
        replay([1, 2, 3])


class Stopped(RuntimeError):
    """The stop of a run part-way (its fourth game fails)."""


def _stops_at_the_fourth(job):  # module level: the workers of --workers 2 get it by name
    if job.seed == 3:
        raise Stopped("stopped")
    return play_job(job)  # the real one, imported before the test replaces it


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_stopped_part_way_keeps_the_games_it_finished(tmp_path, monkeypatch, workers):
    """Records are written as games end: a run that stops at its fourth game leaves the three
    games before it saved whole, and each replays."""
    from agents.evaluation import games

    monkeypatch.setattr(games, "play_job", _stops_at_the_fourth)
    folder = tmp_path / "games"
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "heuristic", "random", "--games", "6", "--no-progress"]
    with pytest.raises(Stopped):
        evaluate.main([*argv, "--workers", str(workers), "--save-games", str(folder)])
    saved = sorted(folder.glob("game_*.json"))
    assert [p.name for p in saved] == ["game_000000.json", "game_000001.json", "game_000002.json"]
    for path in saved:
        record = json.loads(path.read_text())
        replay(record)
        assert record["seed"] == int(path.stem[-1])  # game g of an independent-deal run has seed g
