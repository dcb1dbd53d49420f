"""``python -m experiments.explain``: a position from a record or from moves, each agent's figures, one-line errors."""

from __future__ import annotations

import json

import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.evaluation.records import replay, save_games
from agents.registry import make_agent
from experiments import explain


@pytest.fixture
def record_file(tmp_path):
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2)
    agents = [make_agent("heuristic", "skull_king_v0", seed=s) for s in range(2)]
    record = play_game(env, agents, seed=9)
    return save_games(tmp_path, "skull_king_v0", [(["heuristic", "heuristic"], record)])[0]


def test_record_move_prints_the_seats_screen_and_every_agents_answer(record_file, capsys):
    answers = explain.main(["--record", str(record_file), "--move", "3", "--agents", "heuristic", "ppo:skull_king_v0",
                            "mcts:20", "--top", "2"])  # fmt: skip
    out = capsys.readouterr().out
    record = json.loads(record_file.read_text())
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2)
    env.reset(seed=record["seed"])
    for action in record["actions"][:3]:
        env.step(action)
    assert "you are" in out and f"{env.agent_selection} decides, after 3 moves" in out
    assert [a.agent for a in answers] == ["heuristic", "ppo:skull_king_v0", "mcts:20"]
    assert "probability" in out and "visits" in out
    for answer in answers:
        assert f"{answer.agent}: plays {answer.choice_label}" in out
        assert len(answer.moves) <= 2


def test_default_agents_are_the_heuristic_and_the_shipped_network(capsys):
    answers = explain.main(["--env-id", "piraten_kapern_v0", "--seed", "2"])
    assert [a.agent for a in answers] == ["heuristic", "ppo:piraten_kapern_v0"]


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "name one position"),
        (["--record", "RECORD"], "needs --move"),
        (["--record", "RECORD", "--move", "100000"], "the record has moves 0.."),
        (["--record", "missing.json", "--move", "0"], "is not a file"),
        (["--record", "FORGED", "--move", "0"], "recorded scores"),
        (["--record", "NOTJSON", "--move", "0"], "is not JSON"),
        (["--env-id", "chess"], "is not a game"),
        (["--env-id", "skull_king_v0", "--move", "2"], "--move is the move of a --record"),
        (["--record", "RECORD", "--move", "0", "--actions", "1"], "--actions and --players are for --env-id"),
        (["--env-id", "skull_king_v0", "--actions", "9999"], "--actions: action 0 (9999) is not a legal move"),
        (["--env-id", "skull_king_v0", "--agents", "nobody"], "--agents 'nobody'"),
        (["--env-id", "skull_king_v0", "--players", "9"], "--players"),
    ],
)
def test_bad_arguments_end_with_one_line(argv, message, record_file, tmp_path, capsys):
    forged = json.loads(record_file.read_text())
    forged["scores"] = [s + 1 for s in forged["scores"]]
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    (tmp_path / "bad.json").write_text("{not json")
    names = {"RECORD": str(record_file), "FORGED": str(tmp_path / "forged.json"), "NOTJSON": str(tmp_path / "bad.json")}
    with pytest.raises(SystemExit) as exit_info:
        explain.main([names.get(word, word) for word in argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert replay(json.loads(record_file.read_text()))  # the record itself is sound
