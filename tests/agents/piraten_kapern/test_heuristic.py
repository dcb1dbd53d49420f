"""The Piraten Kapern heuristic: its decisions by hand, legal play, and its value against the oracle."""

from __future__ import annotations

import numpy as np
import pytest

from agents.piraten_kapern.heuristic import KapernHeuristic
from agents.piraten_kapern.oracle import decision_view, optimal_turn_value, policy_turn_value, sample_turn_scores
from agents.registry import make_agent
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, NUM_ACTIONS, STOP, reroll_action
from pirate_envs.piraten_kapern.rules import CARDS
from pirate_envs.piraten_kapern_v0 import raw_env

ALL_LEGAL = {"action_mask": np.ones(NUM_ACTIONS, dtype=np.int8)}


def dice(coin=0, diamond=0, monkey=0, parrot=0, sabre=0, skull=0) -> tuple[int, ...]:
    return (coin, diamond, monkey, parrot, sabre, skull)


def plan(card, showing, option_open=False, **changes):
    return KapernHeuristic().plan(decision_view(card, showing, option_open)._replace(**changes))


def test_two_skulls_and_a_real_stake_stop():
    # Gold: 6 diamonds = 1000 + 600, the card's coin 100: 1700 at stake with two skulls.
    assert plan("gold", dice(diamond=6, skull=2)) is None


def test_two_skulls_and_a_tiny_stake_reroll_the_junk():
    # Gold: 1 coin + the card's coin = 200 at stake (not more than 200): re-roll the junk.
    assert plan("gold", dice(coin=1, monkey=2, parrot=2, sabre=1, skull=2)) == [0, 0, 2, 2, 1, 0]


def test_sets_coins_and_diamonds_are_kept():
    # Captain, no skull: 3 monkeys (a set), a coin and a diamond stay; 2 parrots and a sabre go.
    assert plan("captain", dice(coin=1, diamond=1, monkey=3, parrot=2, sabre=1)) == [0, 0, 0, 2, 1, 0]
    # Monkey Business: 2 monkeys + 1 parrot are one set of three.
    assert plan("monkey_business", dice(coin=2, monkey=2, parrot=1, sabre=2, skull=1)) == [0, 0, 0, 0, 2, 0]


def test_no_junk_left_stops():
    assert plan("captain", dice(coin=2, monkey=3, parrot=3)) is None


def test_the_sorceress_rerolls_a_skull():
    assert plan("sorceress", dice(coin=2, monkey=2, parrot=3, skull=1), option_open=True) == [0, 0, 2, 0, 0, 1]
    # Two skulls and 1600 at stake: the lone skull is re-rolled instead of stopping.
    assert plan("sorceress", dice(diamond=6, skull=2), option_open=True) == [0, 0, 0, 0, 0, 1]
    assert plan("sorceress", dice(diamond=6, skull=2), option_open=False) is None


def test_a_sea_battle_chases_sabres():
    # Sea Battle 3 with one sabre: every non-sabre die is re-rolled, even at two skulls.
    assert plan("sea_battle_3", dice(coin=5, sabre=1, skull=2)) == [5, 0, 0, 0, 0, 0]
    # Won (3 sabres): bank at two skulls (coins 100 + 300, sabres 100, bonus 500 at stake).
    assert plan("sea_battle_3", dice(coin=3, sabre=3, skull=2)) is None


def test_peace_rerolls_sabres_padding_with_the_cheapest_die():
    # One sabre and only sets besides: the sabre and one parrot are re-rolled.
    assert plan("peace", dice(monkey=3, parrot=4, sabre=1)) == [0, 0, 0, 1, 1, 0]


def test_storm_keeps_only_coins_and_diamonds():
    assert plan("storm", dice(coin=2, diamond=1, monkey=3, sabre=1, skull=1), option_open=True) == [0, 0, 3, 0, 1, 0]


def test_island_rerolls_every_die_but_skulls():
    assert plan("captain", dice(coin=1, parrot=2, sabre=1, skull=4), island=True) == [1, 0, 0, 2, 1, 0]


def test_treasure_chest_puts_kept_dice_on_the_chest_first():
    view = decision_view("treasure_chest", dice(coin=3, monkey=1, parrot=2, skull=2), False)
    # At stake off the chest: 300 + 100 (3 coins) - 400 on the chest = 0: keep rolling.
    agent = KapernHeuristic()
    assert agent.act(ALL_LEGAL, view) == CHEST_PUT_OFFSET  # a coin onto the chest
    view = view._replace(free=dice(monkey=1, parrot=2, skull=2), chest=dice(coin=3))
    assert agent.act(ALL_LEGAL, view) == reroll_action(dice(monkey=1, parrot=2))


def test_an_illegal_reroll_stops():
    # After the Storm's single re-roll the mask allows only STOP.
    view = decision_view("storm", dice(monkey=3, parrot=3, skull=2), False)
    only_stop = np.zeros(NUM_ACTIONS, dtype=np.int8)
    only_stop[STOP] = 1
    assert KapernHeuristic().act({"action_mask": only_stop}, view) == STOP


def test_heuristic_plays_only_legal_actions_in_full_games():
    """The raw env raises on an illegal action; the heuristic plays 3-player games against random."""
    env = raw_env(num_players=3, promo_cards=True)
    agents = [KapernHeuristic(), make_agent("random", "piraten_kapern_v0", seed=1, env=env), KapernHeuristic()]
    for seed in range(15):
        env.reset(seed=seed)
        game = env.game
        while not game.done:
            seat = game.current_player
            env.step(agents[seat].act(env.observe(env.agent_selection), game.view(seat)))
        assert game.terminated


@pytest.mark.parametrize("card", CARDS)
def test_heuristic_is_below_the_oracle_and_plays_its_value_in_the_env(card):
    """The heuristic's exact turn value is below the oracle's, and the env agrees with it.

    The exact comparison carries the claim: for After the Storm and Skulls 2 the gap is about
    3 points, far below the sampling error of any affordable number of turns.
    """
    exact = policy_turn_value(card, KapernHeuristic().plan)
    assert exact < optimal_turn_value(card) - 1.0
    points = sample_turn_scores(KapernHeuristic(), card, 800, seed=5)
    se = points.std(ddof=1) / np.sqrt(len(points))
    assert abs(points.mean() - exact) < 4 * se, (points.mean(), exact, se)
