"""The analyzer on the batched engine: the same statistics as the AEC path when both play the same games."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")

import pirate_envs.vector
from agents.analysis import analyze, collector_for
from agents.analysis.batched import choose_engine, run_games_batched
from agents.analysis.driver import run_games
from experiments import analyze as analyze_command
from tests.game_data import by_version
from tests.helpers import refused

#: Deterministic lineups by version (a shipped network plays argmax; the heuristics choose as their one-game
#: forms): each game's ``analysis_lineup`` in ``tests/<game>/short_games.json``.
LINEUPS = by_version("analysis_lineup")


def batched_deal(env_id: str, seed: int, num_players: int):
    """``deal(g)`` for the AEC driver: game ``g`` as the documented rule deals it, a one-row batched engine
    seeded ``seed + g`` (its reference engine and reset options)."""

    def deal(g: int):
        venv = pirate_envs.vector.make(env_id, 1, seed=seed + g, num_players=num_players)
        venv.reset()
        return venv.reference_engine(0), venv.reset_options(0)

    return deal


def as_json(stats: dict) -> str:
    return json.dumps(stats, sort_keys=True)


@pytest.mark.parametrize("env_id", sorted(LINEUPS))
def test_batched_path_gives_the_aec_paths_statistics_on_the_same_games(env_id: str) -> None:
    lineup, games, seed = LINEUPS[env_id], 5, 7
    # batch size 2: three batches, the last one short; the deals must not depend on it
    batched = run_games_batched(env_id, lineup, games, seed, collector_for(env_id), batch_size=2).summary()
    aec = run_games(
        env_id, lineup, games, seed, collector_for(env_id), deal=batched_deal(env_id, seed, len(lineup))
    ).summary()
    counts = [figure["n"] for stat in aec.values() for cells in stat["groups"].values() for figure in cells.values()]
    assert counts and sum(counts) > 0, "no statistic was collected"
    assert as_json(batched) == as_json(aec)


def test_batch_size_does_not_change_the_games() -> None:
    lineup = ["heuristic", "random", "random"]  # random draws from one stream: same batch size, same choices
    one = run_games_batched("skull_king_v0", lineup, 3, 1, collector_for("skull_king_v0"), batch_size=3).summary()
    again = run_games_batched("skull_king_v0", lineup, 3, 1, collector_for("skull_king_v0"), batch_size=3).summary()
    assert as_json(one) == as_json(again)
    heuristic = ["heuristic", "heuristic"]
    whole = run_games_batched("skull_king_v0", heuristic, 3, 1, collector_for("skull_king_v0"), batch_size=3)
    split = run_games_batched("skull_king_v0", heuristic, 3, 1, collector_for("skull_king_v0"), batch_size=1)
    assert as_json(whole.summary()) == as_json(split.summary())


def test_auto_picks_batched_only_when_every_agent_has_a_batched_form() -> None:
    assert choose_engine("auto", "skull_king_v0", ["ppo:skull_king_v0", "heuristic", "random"]) == "batched"
    assert choose_engine("auto", "skull_king_v0", ["mcts", "random"]) == "aec"
    assert choose_engine("auto", "piraten_kapern_v0", ["oracle", "random"]) == "batched"  # its table lookup
    assert choose_engine("auto", "piraten_kapern_v0", ["mcts", "oracle"]) == "aec"
    assert choose_engine("aec", "skull_king_v0", ["heuristic", "random"]) == "aec"
    with pytest.raises(ValueError, match="'mcts' has no batched form") as error:
        choose_engine("batched", "skull_king_v0", ["mcts", "random"])
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="engine 'gpu' is not valid; choose from auto, aec, batched"):
        choose_engine("gpu", "skull_king_v0", ["random", "random"])


def test_analyze_records_the_engine_that_played() -> None:
    meta, _ = analyze("piraten_kapern_v0", ["heuristic", "random"], 1, 0, engine="auto")
    assert meta["engine"] == "batched"
    meta, _ = analyze("piraten_kapern_v0", ["mcts:4", "random"], 1, 0, engine="auto")
    assert meta["engine"] == "aec"


def test_command_plays_batched_by_default_and_says_so(capsys, tmp_path) -> None:
    out = tmp_path / "a"
    argv = ["--env-id", "skull_king_v0", "--agents", "heuristic", "random", "--games", "2", "--out", str(out)]
    result = analyze_command.main(argv)
    assert result["engine"] == "batched"
    assert "2 games on the batched engine" in capsys.readouterr().out
    assert json.loads((out / "stats.json").read_text())["engine"] == "batched"
    result = analyze_command.main([*argv, "--engine", "aec"])
    assert result["engine"] == "aec"
    assert json.loads((out / "stats.json").read_text())["engine"] == "aec"


def test_command_refuses_batched_for_an_agent_without_a_batched_form(capsys, tmp_path, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a game was about to be played")

    monkeypatch.setattr(analyze_command, "analyze", refuse)
    argv = ["--agents", "mcts", "random", "--engine", "batched", "--games", "1", "--out", str(tmp_path / "o")]
    err = refused(capsys, analyze_command.main, argv)
    assert "--engine batched: agent 'mcts' has no batched form" in err
    err = refused(capsys, analyze_command.main, ["--engine", "gpu", "--games", "1", "--out", str(tmp_path / "o")])
    assert "gpu" in err
