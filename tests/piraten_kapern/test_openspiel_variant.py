"""Piraten Kapern under OpenSpiel's explicit chance: the small variant ``piraten_kapern_two_dice``.

Every deck shuffle and every roll is a chance node (`pirate_envs.openspiel.ExplicitRules`); the
variant's options (two dice, a one-Gold deck, one re-roll at most, one turn each) come from
``docs/rulings.md``. Skipped where the ``open-spiel`` wheel is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs import openspiel as ps
from pirate_envs.core.chance import count_vectors
from pirate_envs.piraten_kapern.actions import STOP, reroll_action

VARIANT = "piraten_kapern_two_dice"


@pytest.fixture
def pyspiel():
    return pytest.importorskip("pyspiel", reason="the open-spiel wheel is not installed (extra 'openspiel')")


def roll(coin: int = 0, diamond: int = 0, monkey: int = 0, parrot: int = 0, sabre: int = 0, skull: int = 0) -> int:
    """The chance outcome id of a roll showing these counts per face."""
    return count_vectors(coin + diamond + monkey + parrot + sabre + skull).index(
        (coin, diamond, monkey, parrot, sabre, skull)
    )


def test_a_game_of_the_variant_traced_by_hand(pyspiel):
    """Traced from the rule text with the variant's options (two dice, the Gold card, two rolls a turn).

    * Seat 0 draws Gold (the deck's one card: no chance node) and rolls coin, monkey (2/36): two
      coins with the card's, 200 at stake. He re-rolls both: coin, coin (1/36): three coins, a set
      (100) plus 300, and both dice score: the full chest, 500: 900. The roll limit leaves only
      stopping; 900 reaches the target (100): the final round, seat 1 has his final turn.
    * Seat 1 rolls diamond, diamond (1/36): 100 for the card's coin, 200 for the diamonds, both dice
      score (500): 800 at stake, short of 900. He re-rolls both: skull, skull (1/36): two skulls do
      not end the turn (three do), only the card's coin scores: 100. He stops: seat 0 wins.
    """
    game = ps.load_variant(VARIANT)
    assert game.max_chance_outcomes() == len(count_vectors(2)) == 21
    state = game.new_initial_state()
    assert state.is_chance_node()
    odds = dict(state.chance_outcomes())
    assert odds[roll(coin=1, monkey=1)] == pytest.approx(2 / 36) and odds[roll(coin=2)] == pytest.approx(1 / 36)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, roll(coin=1, monkey=1)) == "roll coin x1, monkey x1"
    state.apply_action(roll(coin=1, monkey=1))
    engine = state.table.engine
    assert state.current_player() == 0 and engine.turn.card == "gold" and engine.turn_points == 200
    both = reroll_action([1, 0, 1, 0, 0, 0])
    assert state.legal_actions() == [STOP, both]
    state.apply_action(both)
    assert state.is_chance_node()
    state.apply_action(roll(coin=2))
    assert state.table.engine.turn_points == 900 and state.legal_actions() == [STOP]
    state.apply_action(STOP)
    assert state.is_chance_node()  # seat 1's first roll (the engine stands before the stop until it is rolled)
    state.apply_action(roll(diamond=2))
    engine = state.table.engine
    assert state.current_player() == 1 and engine.final_trigger == 0 and engine.scores().tolist() == [900, 0]
    assert engine.turn_points == 800
    state.apply_action(reroll_action([0, 2, 0, 0, 0, 0]))
    state.apply_action(roll(skull=2))
    assert state.current_player() == 1 and state.table.engine.turn_points == 100
    assert state.legal_actions() == [STOP]
    state.apply_action(STOP)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.table.engine.scores().tolist() == [900, 100]


def test_openspiels_random_simulation_checks_pass(pyspiel):
    pyspiel.random_sim_test(ps.load_variant(VARIANT), num_sims=5, serialize=False, verbose=False)


def is_shuffle(state, outcome: int) -> bool:
    return state.action_to_string(-1, outcome).startswith("shuffle")


def test_chance_probabilities_sum_to_one_at_every_chance_node_of_a_whole_tree(pyspiel):
    """Every node of a whole tree: one roll a turn, a deck of Gold and Skulls 1 (one shuffle node), one turn each.

    Counted by hand: the shuffle (1 node, 1/2 each), seat 0's roll (2 nodes), seat 1's roll (2 x 21);
    2 x 21 x 21 ends. Seat 0 decides after each roll but one (Skulls 1 and two skulls: three, the
    turn is over), seat 1 likewise (21 such ends when seat 0 drew Gold).
    """
    game = ps.load_variant(VARIANT, max_rolls=1, fortune_deck="0,0,0,1,0,0,0,0,0,1,0", target_score=1000)
    bound, outcomes = game.max_chance_nodes_in_history(), game.max_chance_outcomes()
    kinds = {"chance": 0, "decision": 0, "terminal": 0}
    stack = [(game.new_initial_state(), 0)]
    while stack:
        state, chance_nodes = stack.pop()
        if state.is_terminal():
            kinds["terminal"] += 1
        elif state.is_chance_node():
            kinds["chance"] += 1
            pairs = state.chance_outcomes()
            assert sum(p for _, p in pairs) == pytest.approx(1.0, abs=1e-12)
            assert all(p > 0 and 0 <= a < outcomes for a, p in pairs) and chance_nodes < bound
            if is_shuffle(state, pairs[0][0]):
                assert [p for _, p in pairs] == [0.5, 0.5]
            stack += [(state.child(a), chance_nodes + 1) for a, _ in pairs]
        else:
            kinds["decision"] += 1
            stack += [(state.child(a), chance_nodes) for a in state.legal_actions()]
    assert kinds == {"chance": 1 + 2 + 2 * 21, "decision": (2 * 21 - 1) + (2 * 21 * 21 - 21), "terminal": 2 * 21 * 21}


def test_chance_probabilities_sum_to_one_along_random_games(pyspiel):
    """The variant, and a two-card deck over four turns: the deck is shuffled at the start and again at turn 3."""
    rng = np.random.default_rng(3)
    longer = {"fortune_deck": "0,0,0,1,0,0,0,0,0,1,0", "max_turns": 4, "target_score": 1000}
    for game, shuffles_per_game in ((ps.load_variant(VARIANT), 0), (ps.load_variant(VARIANT, **longer), 2)):
        for _ in range(50):
            state, chance_nodes, shuffles = game.new_initial_state(), 0, 0
            while not state.is_terminal():
                if state.is_chance_node():
                    ids, odds = zip(*state.chance_outcomes())
                    assert sum(odds) == pytest.approx(1.0, abs=1e-12)
                    chance_nodes += 1
                    shuffles += is_shuffle(state, ids[0])
                    state.apply_action(int(rng.choice(ids, p=odds)))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
            assert chance_nodes <= game.max_chance_nodes_in_history() and shuffles == shuffles_per_game
            assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_rolls": 0}, r"^chance='explicit' needs max_rolls >= 1 for piraten_kapern_v0 "),
        ({"num_dice": 9}, r"^num_dice=9 is out of range; allowed: 2\.\.8$"),
        ({"fortune_deck": "4,4"}, r"^fortune_deck=\(4, 4\) must be 11 copy counts, one per card of "),
        ({"fortune_deck": "1,x"}, r"^fortune_deck='1,x' must be comma-separated integers"),
        ({"fortune_deck": "0,0,0,5,0,0,0,0,0,0,0"}, r"^fortune_deck\[gold\]=5 is out of range; allowed: 0\.\.4$"),
    ],
)
def test_bad_variant_parameters_are_refused_in_one_line(pyspiel, params, message):
    with pytest.raises(ValueError, match=message) as error:
        ps.load_variant(VARIANT, **params)
    assert "\n" not in str(error.value)


def test_cfr_solves_one_turn_of_the_variant(pyspiel):
    """One turn of the variant for its score (``returns="score"``, ``max_turns=1``): CFR finds the best play.

    With Gold and two dice, a coin and a monkey score 200; re-rolling both scores 225 on average
    (the card's coin, 100 per coin or diamond, the full chest when both dice score): CFR's average
    policy re-rolls, and its NashConv falls far below uniform play's.
    """
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability

    game = ps.load_variant(VARIANT, returns="score", max_turns=1)
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    assert 0.0 <= exploitability.nash_conv(game, average) < uniform / 10
    state = game.new_initial_state()
    state.apply_action(roll(coin=1, monkey=1))
    both = reroll_action([1, 0, 1, 0, 0, 0])
    assert average.action_probabilities(state)[both] > 0.9
