"""Kapern's shipped best responses: each file solves its game, and the registry's agents play them.

Apart from ``test_best_response.py``, whose module fixture shrinks the race while it lives."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from agents.evaluation.games import play_game
from agents.piraten_kapern import best_response as br
from agents.piraten_kapern import race
from agents.registry import agent_names, agent_player_counts, make_agent

KAPERN = "piraten_kapern_v0"


@pytest.mark.parametrize("opponent", sorted(br.OPPONENTS))
def test_the_shipped_best_responses_solve_their_games(opponent):
    """The files the package ships are the solutions against their opponents at the full race."""
    result = br.shipped_best_response(opponent)
    assert result.mover.shape == race._shape() and result.residual <= race.SWEEP_TOLERANCE
    outcomes = br.turn_outcomes(br.opponent_plan(opponent))
    assert br.best_response_residual(result, outcomes, samples=12, seed=1) < 1e-6
    assert result.win_rate > 0.5  # copying the opponent wins half: the best response wins more


def test_a_shipped_file_of_another_opponent_is_refused(tmp_path, monkeypatch):
    swapped = tmp_path / "best_response_oracle.npz"
    swapped.write_bytes(br.SHIPPED["heuristic"].read_bytes())
    monkeypatch.setitem(br.SHIPPED, "oracle", swapped)
    br.shipped_best_response.cache_clear()
    try:
        with pytest.raises(ValueError, match="the best response to 'heuristic', not 'oracle'"):
            br.shipped_best_response("oracle")
    finally:
        br.shipped_best_response.cache_clear()


@pytest.mark.parametrize("opponent", sorted(br.OPPONENTS))
def test_the_best_response_agents_play_two_player_games_from_their_tables(opponent):
    name = f"best_response:{opponent}"
    assert name in agent_names(KAPERN) and agent_player_counts(name, KAPERN) == (2,)
    env = pirate_envs.make(KAPERN, raw=True, num_players=2)
    agent = make_agent(name, KAPERN, env=env)
    assert agent.name == name and agent.table.values is br.shipped_best_response(opponent).opponent
    assert not np.array_equal(agent.table.values, race.load_race_table().values)  # not the race's table
    seats = [agent, make_agent(opponent, KAPERN, env=env)]
    for seed in range(2):  # an illegal move would raise
        record = play_game(env, seats[::-1] if seed else seats, seed)
        assert not record.truncated and len(record.actions) > 10
    with pytest.raises(ValueError, match="plays piraten_kapern_v0 at 2 players, not 3"):
        make_agent(name, KAPERN, env=pirate_envs.make(KAPERN, raw=True, num_players=3))
    shorter = pirate_envs.make(KAPERN, raw=True, num_players=2, target_score=5000)
    shorter.reset(seed=0)
    with pytest.raises(ValueError, match=f"'{name}' is solved to 6000 points; this game plays to 5000"):
        agent.act(shorter.observe(shorter.agent_selection), shorter.game.view(shorter.game.current_player))
