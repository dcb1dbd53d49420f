"""The one-turn Piraten Kapern oracle: hand-derived values, an independent certificate, the env.

Hand numbers are derived in the comments from the rule text (sets 3:100 4:200 5:500 6:1000
7:2000 8:4000, +100 per coin and diamond, +500 full chest, After the Storm: only coins and
diamonds, doubled, one re-roll, three skulls score nothing for the player).
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict

import numpy as np
import pytest

from agents.piraten_kapern.oracle import (
    KapernOracleAgent,
    optimal_turn_value,
    oracle_plan,
    policy_turn_value,
    sample_turn_scores,
    solve_turn,
)
from pirate_envs.piraten_kapern.actions import STOP
from pirate_envs.piraten_kapern.rules import (
    CARDS,
    SEA_BATTLES,
    card_skulls,
    disqualified_score,
    objects_points,
    score_counts,
)

SKULL = 5
OPTION_CARDS = ("sorceress", "storm")


def counts(coin=0, diamond=0, monkey=0, parrot=0, sabre=0, skull=0) -> tuple[int, ...]:
    return (coin, diamond, monkey, parrot, sabre, skull)


# ---------------------------------------------------------------------------- by hand
def test_eight_diamonds_with_the_captain_stop_at_once():
    # 8 diamonds: set of 8 (4000) + 8 x 100 + full chest 500 = 5300, doubled = 10600; nothing beats it.
    solution = solve_turn("captain")
    dice = counts(diamond=8)
    assert solution.state_value(dice) == pytest.approx(10600)
    assert solution.best_action(dice) == STOP


def test_storm_stop_beats_rerolling_the_monkeys():
    # Storm, 2 skulls, 4 coins, 2 monkeys: stop = 2 x (4 x 100 + 200) = 1200.
    # Re-rolling the two monkeys (then the turn must end): any skull busts (3 skulls -> 0).
    # Per die coin 1/6, diamond 1/6, other 3/6, skull 1/6; outcomes x 36:
    # CC 1 -> 2(600+1000)=3200, CD 2 -> 2(600+500)=2200, C-other 6 -> 2(500+500)=2000,
    # DD 1 -> 2(600+200)=1600, D-other 6 -> 2(500+200)=1400, other-other 9 -> 1200.
    solution = solve_turn("storm")
    reroll_worth = (3200 + 2 * 2200 + 6 * 2000 + 1600 + 6 * 1400 + 9 * 1200) / 36  # 40400 / 36
    assert solution.kept_value(counts(coin=4, skull=2), option_open=False) == pytest.approx(reroll_worth)
    dice = counts(coin=4, monkey=2, skull=2)
    assert solution.state_value(dice, option_open=True) == pytest.approx(1200)
    assert solution.best_action(dice, option_open=True) == STOP


def test_storm_rerolling_beats_a_small_stake():
    # Storm, 2 skulls, 2 coins, 4 monkeys: stop = 2 x 200 = 400. Keeping 2 coins and 2 monkeys
    # and re-rolling two monkeys, outcomes x 36 (any skull busts: 0):
    # CC 1 x 2(400+200)=1200, CD 2 x 2(400+100)=1000, C-other 6 x 2(300+100)=800,
    # DD 1 x 2(400)=800, D-other 6 x 2(300)=600, other-other 9 x 2(200)=400 -> 16000/36 = 444.4.
    solution = solve_turn("storm")
    worth = (1200 + 2 * 1000 + 6 * 800 + 800 + 6 * 600 + 9 * 400) / 36
    assert solution.kept_value(counts(coin=2, monkey=2, skull=2)) == pytest.approx(worth)
    dice = counts(coin=2, monkey=4, skull=2)
    assert solution.state_value(dice, option_open=True) >= worth - 1e-9
    assert solution.best_action(dice, option_open=True) != STOP
    # Once the re-roll is made, the only move is to stop.
    assert solution.state_value(dice, option_open=False) == pytest.approx(400)


def test_the_sorceress_rerolls_a_skull_rather_than_stop():
    # Sorceress, 6 diamonds + 2 skulls: stop = 1000 + 600 = 1600. Re-rolling the skull alone
    # and then stopping is worth at least 1/6 x 1600 (skull again) + 1/6 x 2700 (7 diamonds:
    # 2000 + 700) + 1/6 x 1700 (a coin) + 3/6 x 1600 = 1800.
    solution = solve_turn("sorceress")
    dice = counts(diamond=6, skull=2)
    assert solution.state_value(dice, option_open=False) == pytest.approx(1600)
    assert solution.state_value(dice, option_open=True) >= 1800 - 1e-9
    assert solution.best_action(dice, option_open=True) != STOP


def test_a_lost_sea_battle_is_never_stopped():
    # Sea Battle 2, 2 skulls, 1 sabre, 5 monkeys: stopping and busting both give -300, and a
    # re-roll of the monkeys may bring the second sabre: re-rolling is strictly better.
    solution = solve_turn("sea_battle_2")
    dice = counts(monkey=5, sabre=1, skull=2)
    assert solution.state_value(dice) > -300
    assert solution.best_action(dice) != STOP


@pytest.mark.parametrize("card", CARDS)
def test_values_are_at_least_stopping_and_bust_states_are_over(card):
    solution = solve_turn(card)
    for option_open in (False, True) if card in OPTION_CARDS else (False,):
        for dice in _roll_distributions()[8]:
            value = solution.state_value(dice, option_open)
            if dice[SKULL] + card_skulls(card) >= 3:
                assert value == disqualified_score(dice, card)
                assert solution.best_action(dice, option_open) == STOP
            else:
                assert value >= score_counts(dice, card) - 1e-9


def test_always_stopping_is_worth_the_first_roll_score():
    # Policy evaluation of "stop at once": E over the first roll of its score (Island 0).
    for card in ("captain", "treasure_chest", "sea_battle_3", "peace"):
        expected = 0.0
        for dice, prob in _roll_distributions()[8].items():
            island = dice[SKULL] + card_skulls(card) >= 4 and card not in SEA_BATTLES
            expected += prob * (0 if island else score_counts(dice, card))
        assert policy_turn_value(card, lambda view: None) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("card", ["sorceress", "treasure_chest", "storm"])
def test_evaluating_the_oracle_policy_gives_its_value(card):
    assert policy_turn_value(card, oracle_plan) == pytest.approx(optimal_turn_value(card), abs=1e-6)


# ---------------------------------------------------------------------------- independent certificate
@functools.cache
def _roll_distributions() -> dict[int, dict[tuple[int, ...], float]]:
    """Face-count distribution of m fair dice, m = 0..8, built one die at a time."""
    dists = {0: {(0,) * 6: 1.0}}
    for m in range(1, 9):
        nxt: dict[tuple[int, ...], float] = defaultdict(float)
        for dice, prob in dists[m - 1].items():
            for face in range(6):
                nxt[tuple(n + (f == face) for f, n in enumerate(dice))] += prob / 6
        dists[m] = dict(nxt)
    return dists


def _plus(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b))


def _certify(card: str) -> None:
    """Check the Bellman optimality equation of the oracle's values, recomputed in pure Python.

    Every policy ends the turn with probability one (each re-roll of two or more dice brings a
    skull with probability >= 11/36; the Sorceress's skull re-roll happens once), so the
    equation has a unique solution: the optimal values.
    """
    dists = _roll_distributions()
    solution = solve_turn(card)
    modes = (False, True) if card in OPTION_CARDS else (False,)
    value = {m: {dice: solution.state_value(dice, m) for dice in dists[8]} for m in modes}
    if card == "storm":  # after the single re-roll the turn can only stop
        value[False] = {dice: score_counts(dice, card) for dice in dists[8]}

    def landing(dice, kept, mode):
        if dice[SKULL] + card_skulls(card) >= 3:
            if card == "treasure_chest":  # the kept dice wait on the chest
                return objects_points((*kept[:SKULL], 0), card)
            return disqualified_score(dice, card)
        return value[mode][dice]

    worth = {
        mode: {
            kept: sum(p * landing(_plus(kept, o), kept, mode) for o, p in dists[8 - sum(kept)].items())
            for size in range(8)
            for kept in dists[size]
        }
        for mode in value
    }
    for mode in modes:
        for dice in dists[8]:
            best = score_counts(dice, card)
            if dice[SKULL] + card_skulls(card) < 3:
                best = max([best, *_reroll_worths(card, dice, mode, worth)])
            assert value[mode][dice] == pytest.approx(best, abs=1e-6), (card, mode, dice)
    first = 0.0
    for dice, prob in dists[8].items():
        skulls = dice[SKULL] + card_skulls(card)
        if skulls >= 4 and card not in SEA_BATTLES:
            continue  # the Island of Skulls: nothing for the player
        first += prob * (disqualified_score(dice, card) if skulls >= 3 else value[card in OPTION_CARDS][dice])
    assert optimal_turn_value(card) == pytest.approx(first, abs=1e-6)


def _reroll_worths(card, dice, mode, worth) -> list[float]:
    """Worth of every legal re-roll from ``dice`` (``mode``: the card's option still open)."""
    if card == "storm" and not mode:
        return []
    out = []
    for taken in itertools.product(*(range(n + 1) for n in dice[:SKULL])):
        kept = (*(n - t for n, t in zip(dice, taken)), dice[SKULL])
        if sum(taken) >= 2:
            out.append(worth[False if card == "storm" else mode][kept])
        if card == "sorceress" and mode and dice[SKULL]:  # the skull too, alone or with others
            out.append(worth[False][(*kept[:SKULL], dice[SKULL] - 1)])
    return out


@pytest.mark.parametrize("card", ["sorceress", "treasure_chest", "storm", "peace", "sea_battle_4", "skulls_1"])
def test_oracle_values_satisfy_the_bellman_equation(card):
    _certify(card)


@pytest.mark.slow
@pytest.mark.parametrize("card", CARDS)
def test_oracle_values_satisfy_the_bellman_equation_every_card(card):
    _certify(card)


# ---------------------------------------------------------------------------- the env
def _check_mean(points: np.ndarray, value: float) -> None:
    se = points.std(ddof=1) / np.sqrt(len(points))
    assert abs(points.mean() - value) < 4 * se, (points.mean(), value, se)


@pytest.mark.parametrize("card", CARDS)
def test_oracle_agent_scores_the_optimal_value_in_the_env(card):
    _check_mean(sample_turn_scores(KapernOracleAgent(), card, 1500, seed=11), optimal_turn_value(card))


@pytest.mark.slow
@pytest.mark.parametrize("card", CARDS)
def test_oracle_agent_scores_the_optimal_value_in_the_env_long(card):
    _check_mean(sample_turn_scores(KapernOracleAgent(), card, 10_000, seed=12), optimal_turn_value(card))


def test_gold_and_diamond_are_worth_the_same():
    assert optimal_turn_value("gold") == pytest.approx(optimal_turn_value("diamond"), abs=1e-9)


def test_unknown_card_is_rejected():
    with pytest.raises(ValueError, match="unknown fortune card"):
        optimal_turn_value("kraken")


def test_bad_dice_counts_are_rejected():
    solution = solve_turn("gold")
    with pytest.raises(ValueError, match="face counts of eight dice"):
        solution.state_value(counts(coin=7))
    with pytest.raises(ValueError, match=r"face counts of 0\.\.7 kept dice"):
        solution.kept_value(counts(coin=8))
