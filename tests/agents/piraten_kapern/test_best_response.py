"""The best response to a fixed Kapern opponent: the opponent's turn outcomes, the solved game, its play."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.piraten_kapern import best_response as br
from agents.piraten_kapern import race
from agents.piraten_kapern.oracle import policy_turn_value
from pirate_envs.piraten_kapern.rules import NUM_DICE, SEA_BATTLES, card_skulls


@pytest.mark.parametrize("opponent", sorted(br.OPPONENTS))
def test_the_outcomes_add_up_to_the_plans_turn_value(opponent):
    """Every turn ends once, and its points average to the exact expectation of the same plan."""
    plan = br.opponent_plan(opponent)
    outcomes = br.turn_outcomes(plan)
    assert np.allclose(outcomes.own.sum(axis=1) + outcomes.skulls.sum(axis=1), 1.0, atol=1e-12)
    expected = [policy_turn_value(card, plan) / race.UNIT for card in race.RACE_CARDS]
    assert outcomes.expected_points() == pytest.approx(expected, abs=1e-9)


def _skull_dice(k: int) -> float:
    return math.comb(NUM_DICE, k) * (1 / 6) ** k * (5 / 6) ** (NUM_DICE - k)


def test_the_oracle_leaves_the_island_at_once():
    """Its Island turns end with the skulls of the first roll (card skulls counted)."""
    skulls = br.turn_outcomes(br.opponent_plan("oracle")).skulls
    for c, card in enumerate(race.RACE_CARDS):
        extra = card_skulls(card)
        by_hand = np.zeros(skulls.shape[1])
        if card not in SEA_BATTLES:
            for dice in range(max(0, 4 - extra), NUM_DICE + 1):
                by_hand[dice + extra] = _skull_dice(dice)
        assert skulls[c] == pytest.approx(by_hand, abs=1e-12), card


def test_the_heuristic_island_by_hand():
    """The heuristic re-rolls every non-skull die while two are left. From six skull dice: no skull
    25/36 (six), one 10/36 (seven: one die left, over), two 1/36 (eight)."""
    first = np.zeros(NUM_DICE + 1)
    first[6] = 1.0
    skulls = br._island_outcomes(br.opponent_plan("heuristic"), "gold", first, np.arange(NUM_DICE + 1))
    assert skulls[6:9] == pytest.approx([25 / 36, 10 / 36, 1 / 36]) and skulls.sum() == pytest.approx(1.0)


@pytest.fixture(scope="module")
def small_race():
    """The race to 300 points (three units) from -200, and the best response to each opponent there."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(race, "TARGET", 3)
        patch.setattr(race, "FLOOR", -2)
        patch.setattr(race, "DEFAULT_TARGET", 300)
        yield {}


def _solved(small_race, opponent):
    if opponent not in small_race:
        small_race[opponent] = br.solve_best_response(br.turn_outcomes(br.opponent_plan(opponent)))
    return small_race[opponent]


@pytest.mark.parametrize("opponent", ["oracle", pytest.param("heuristic", marks=pytest.mark.slow)])
def test_a_small_best_response_is_solved_and_wins_in_play(small_race, opponent):
    """Copying the opponent wins half the games, so the best response wins at least that; the race
    agent reading its tables wins what the solution says, in 1,000 games to 300 points."""
    result = _solved(small_race, opponent)
    assert result.mover.shape == race._shape() and result.residual <= race.SWEEP_TOLERANCE
    assert result.win_rate > 0.5 + 0.01
    shares = br.best_response_shares(result, opponent, games=1000, seed=7)
    sigma = shares.std() / math.sqrt(len(shares))
    assert abs(shares.mean() - result.win_rate) < 4 * sigma


@pytest.mark.slow
def test_the_start_does_not_change_the_answer(small_race):
    other = br.solve_best_response(br.turn_outcomes(br.opponent_plan("oracle")), start=np.full(race._shape(), 0.9))
    assert other.win_rate == pytest.approx(_solved(small_race, "oracle").win_rate, abs=1e-7)


def test_a_start_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="shape"):
        br.solve_best_response(br.turn_outcomes(br.opponent_plan("oracle")), start=np.zeros((2, 2)))


def test_a_solved_best_response_is_its_own_fixed_point_and_a_bent_one_is_not(small_race):
    result = _solved(small_race, "oracle")
    outcomes = br.turn_outcomes(br.opponent_plan("oracle"))
    assert br.best_response_residual(result, outcomes, samples=30, seed=3) < 1e-6
    bent = br.BestResponse(mover=result.mover * 0.98, opponent=result.opponent, sweeps=1, residual=0.0)
    assert br.best_response_residual(bent, outcomes, samples=30, seed=3) > 1e-3
