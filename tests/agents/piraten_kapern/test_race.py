"""The two-player Kapern race solved for the win: the turn solver, the final round, the table, the agent."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from agents.piraten_kapern import race
from agents.piraten_kapern import race_kernels as kernels
from agents.piraten_kapern.oracle import _tables, solve_turn
from agents.registry import agent_player_counts, make_agent

KAPERN = "piraten_kapern_v0"


@pytest.mark.parametrize("card", race.RACE_CARDS)
def test_a_utility_linear_in_points_gives_the_oracles_turn_value(card):
    """Utility = own points (units), the Island worth 0 to the mover: the one-turn oracle's expectation."""
    arr = race._arrays()
    space = race._Workspace()
    space.u_own[:] = np.arange(arr.min_points, arr.max_points + 1)
    space.u_skulls[:] = 0.0
    worth = space.turn(race.RACE_CARDS.index(card))
    assert worth == pytest.approx(solve_turn(card).turn_value / race.UNIT, abs=1e-8)


def test_the_island_by_hand():
    """Worth = skulls; 8 dice. Six skull dice: stop (6) or re-roll both others: 25/36 none (6), 10/36 one
    (7, and one die left: over), 1/36 two (8): 228/36. Five: three dice re-rolled beat two."""
    u_skulls = np.arange(11, dtype=np.float64)
    value, choice = np.zeros(9), np.zeros(9, dtype=np.int64)
    kernels.island(u_skulls, 0, 8, value, choice, 1e-7)
    assert value[7] == 7 and choice[7] == 0 and value[8] == 8
    assert value[6] == pytest.approx(228 / 36) and choice[6] == 2
    three = (125 * 5 + 75 * 228 / 36 + 15 * 7 + 1 * 8) / 216
    two = (25 * 5 + 10 * 228 / 36 + 1 * 7) / 36
    assert three > two and value[5] == pytest.approx(three) and choice[5] == 3
    kernels.island(-u_skulls, 0, 8, value, choice, 1e-7)  # a player who dislikes skulls stops at once
    assert not choice.any() and value[4] == -4


def test_outcomes_follow_the_final_round():
    """The mover's worth of each outcome, by hand, on a made-up table."""
    rows, cols = race._shape()
    values = np.random.default_rng(0).random((rows, cols))
    floor, target, low = race.FLOOR, race.TARGET, race._arrays().min_points
    u_own = np.empty(race._arrays().max_points - low + 1)
    u_skulls = np.empty(5)

    def at(a, b):  # the table's entry for the mover at a, the other at b
        return values[a - floor, b - floor]

    kernels.own_utilities(values, 30, 45, floor, target, low, u_own)  # a normal turn: the other moves next
    assert u_own[0 - low] == 1 - at(45, 30) and u_own[40 - low] == 1 - at(45, 70)
    assert u_own[-10 - low] == 1 - at(45, 20)
    kernels.own_utilities(values, floor + 3, 45, floor, target, low, u_own)  # below the floor counts as the floor
    assert u_own[-10 - low] == 1 - at(45, floor)
    kernels.own_utilities(values, 50, 64, floor, target, low, u_own)  # the last turn: beat 6,400
    assert u_own[15 - low] == 1 and u_own[14 - low] == 0.5 and u_own[13 - low] == 0 and u_own[-5 - low] == 0
    penalty = np.array([0, 1, 2, 4, 9])  # units lost by the other per Island ending
    kernels.island_utilities(values, 50, 64, floor, target, penalty, u_skulls)
    assert u_skulls[0] == u_skulls[1] == u_skulls[3] == 0  # 6,400 to 6,000: the final round stands, he lost
    assert u_skulls[4] == 1 - at(55, 50)  # below 6,000: the final round is cancelled, the other moves


def test_the_island_at_the_target_keeps_the_final_round():
    """6,000 exactly is still the target reached: the mover (below it) has lost."""
    rows, cols = race._shape()
    values = np.full((rows, cols), 0.25)
    u_skulls = np.empty(3)
    kernels.island_utilities(values, 50, 64, race.FLOOR, race.TARGET, np.array([0, 4, 5]), u_skulls)
    assert u_skulls.tolist() == [0.0, 0.0, 0.75]


def test_the_shipped_table_solves_the_race():
    table = race.load_race_table()
    assert table.values.shape == race._shape() and table.residual <= race.SWEEP_TOLERANCE
    assert race.bellman_residual(table, samples=12, seed=1) < 1e-7
    assert np.all(np.diff(table.values, axis=0) >= -1e-9)  # more points of one's own never hurt
    assert table.win_probability(5900, 0) > table.win_probability(0, 5900)


def test_the_table_is_refused_when_it_is_not_one(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, values=np.zeros((3, 3)), meta=np.array('{"format": "other"}'))
    with pytest.raises(ValueError, match="not a race table"):
        race.load_race_table(bad)
    np.savez(bad, values=np.zeros(race._shape()))  # no meta
    with pytest.raises(ValueError, match="not a race table"):
        race.load_race_table(bad)
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a race table"):
        race.load_race_table(bad)


def test_the_race_agent_plays_two_players_only():
    assert agent_player_counts("race", KAPERN) == (2,)
    env = pirate_envs.make(KAPERN, raw=True, num_players=3)
    with pytest.raises(ValueError, match="plays piraten_kapern_v0 at 2 players, not 3"):
        make_agent("race", KAPERN, env=env)


@pytest.mark.parametrize("options", [{"target_score": 5000}, {"promo_cards": True}, {"num_dice": 6}])
def test_the_race_agent_refuses_other_games(options):
    env = pirate_envs.make(KAPERN, raw=True, num_players=2, **options)
    agent = make_agent("race", KAPERN, env=env)
    with pytest.raises(ValueError):
        for _ in range(200):  # the promo cards: refused once their copies are seen in the deck
            env.reset(seed=len(options))
            while not env.game.done:
                env.step(agent.act(env.observe(env.agent_selection), env.game.view(env.game.current_player)))


def test_the_race_agent_plays_whole_games_against_the_oracle():
    env = pirate_envs.make(KAPERN, raw=True, num_players=2)
    agents = [make_agent("race", KAPERN, env=env), make_agent("oracle", KAPERN, env=env)]
    for seed in range(3):
        env.reset(seed=seed)
        while not env.game.done:
            seat = env.game.current_player
            observation = env.observe(env.agent_selection)
            action = agents[seat].act(observation, env.game.view(seat))
            assert observation["action_mask"][action]
            env.step(action)
        assert env.game.terminated


def test_the_race_plays_for_the_win_in_the_last_turn():
    """The final round, the other player at 6,000. Four coins, two diamonds and two skulls (800
    points): 1,000 behind, banking them loses for sure, so the race re-rolls where the points-maximising
    oracle banks. Six coins and two diamonds (2,300 with the full chest): 200 behind, banking them wins,
    so the race stops where the oracle re-rolls the diamonds for more."""
    table = race.load_race_table()
    card, oracle = "monkey_business", solve_turn("monkey_business")
    behind = (4, 2, 0, 0, 0, 2)
    assert oracle.best_action(behind) == race.STOP
    assert race.solve_race_turn(table, 5000, 6000, card).best_action(behind) != race.STOP
    ahead = (6, 2, 0, 0, 0, 0)
    assert oracle.best_action(ahead) != race.STOP
    turn = race.solve_race_turn(table, 5800, 6000, card)
    assert turn.best_action(ahead) == race.STOP and turn.values[False][_state(ahead)] == pytest.approx(1.0)


def _state(showing):
    return _tables().state_index(showing)


def test_a_small_race_is_solved_and_the_threads_do_not_change_it(monkeypatch):
    """The race to 300 points (three units) from -200: every state of the table solves again to
    itself, and one thread and two give the same table."""
    monkeypatch.setattr(race, "TARGET", 3)
    monkeypatch.setattr(race, "FLOOR", -2)
    one = race.build_race_table(threads=1)
    two = race.build_race_table(threads=2)
    assert np.array_equal(one.values, two.values) and one.sweeps == two.sweeps
    assert race.bellman_residual(one, samples=25, seed=2) < 1e-7
    assert one.values.shape == (5, 3 + race._arrays().max_points + 2)
