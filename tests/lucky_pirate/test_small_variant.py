"""Lucky Pirate's small variant: the short-deck options, a game traced by hand, OpenSpiel's exact solution.

The variant (``pirate_envs.openspiel.SMALL_VARIANTS["lucky_pirate_small"]``): two players, a deck of
three 1s, three 2s and three Captains, three hands of a down, an up and a hand card (one put aside).
"""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs.core.chance import ScriptedChance
from pirate_envs.lucky_pirate.actions import ACTIONS
from pirate_envs.lucky_pirate.cards import DEFAULT_DECK, KIND_INDEX, UP_DOWN_CARDS
from pirate_envs.lucky_pirate.engine import Config, LuckyPirateEngine

SMALL = {"num_players": 2, "ranks": 2, "copies": 3, "specials": 1, "up_down_cards": 1, "max_turns": 12}
ONE, TWO, CAPTAIN = KIND_INDEX["1"], KIND_INDEX["2"], KIND_INDEX["captain"]
#: The deck's shuffle: card ``i`` goes to hand ``i % 3`` (hand 0 left of the dealer, hand 2 put aside),
#: each hand's cards being its down, up and hand card in turn.
SHUFFLED = [TWO, CAPTAIN, TWO, ONE, TWO, CAPTAIN, ONE, ONE, CAPTAIN]
DEALER = 1


@pytest.fixture
def pyspiel():
    return pytest.importorskip("pyspiel", reason="the open-spiel wheel is not installed (extra 'openspiel')")


def act(engine: LuckyPirateEngine, label: str) -> None:
    legal = [ACTIONS.to_string(a) for a in engine.legal_actions()]
    assert label in legal, f"{label!r} not legal; legal: {legal}"
    engine.apply(ACTIONS.from_string(label))


#: The traced game's moves: seat 0, seat 1, then seat 0 twice (a cleared pile lets him play again).
MOVES = ["play 1 x 1", "play 1 x 1", "play 1 x 1", "play down card 1 blind"]


def test_the_defaults_keep_todays_deck_and_up_down_cards():
    for players in range(2, 7):
        config = Config(num_players=players)
        assert config.deck == dict(DEFAULT_DECK) and config.up_down == UP_DOWN_CARDS[players]


def test_the_short_deck_options_cut_the_deck():
    assert {kind: n for kind, n in Config(**SMALL).deck.items() if n} == {"1": 3, "2": 3, "captain": 3}
    short = Config(num_players=3, ranks=4, copies=2, specials=3, up_down_cards=2)
    assert {kind: n for kind, n in short.deck.items() if n} == {
        **{str(v): 2 for v in range(1, 5)},
        **{"captain": 2, "kraken": 2, "first_mate": 2},
    }


def test_a_short_game_traced_from_the_rule_text():
    engine = LuckyPirateEngine(Config(**SMALL))
    engine.reset(ScriptedChance([DEALER, SHUFFLED]))
    # seat 0 (left of the dealer): down 2, up 1, hand 1; seat 1: down Captain, up 2, hand 1
    assert engine.current_player == 0
    assert [engine.downs[s] for s in range(2)] == [[TWO], [CAPTAIN]]
    assert engine.ups[:, [ONE, TWO]].tolist() == [[1, 0], [0, 1]]
    assert engine.hands[:, ONE].tolist() == [1, 1] and engine.hand_size.tolist() == [1, 1]
    act(engine, MOVES[0])  # seat 0 starts the pile with his hand's 1
    # seat 1 must play an equal or higher card from his hand: his 1 (his up 2 waits for an empty hand)
    assert [ACTIONS.to_string(a) for a in engine.legal_actions()] == [MOVES[1]]
    act(engine, MOVES[1])
    # seat 0's hand is empty: he plays his up 1, the third 1 in a row, which clears the pile; he plays again
    act(engine, MOVES[2])
    assert engine.pile == [] and engine.current_player == 0
    # only his down card is left: played blind, a 2 on the empty pile; he has shed every card and wins
    act(engine, MOVES[3])
    assert engine.terminated and engine.wins.tolist() == [1, 0]


def test_the_same_game_on_openspiel_with_chance_nodes(pyspiel):
    from pirate_envs import openspiel as ps

    state = ps.load_variant("lucky_pirate_small").new_initial_state()
    assert dict(state.chance_outcomes()) == {0: 0.5, 1: 0.5}  # the dealer
    state.apply_action(DEALER)
    ids = {ONE: 0, TWO: 1, CAPTAIN: 2}  # a shuffle's outcome ids: the deck's kinds by first appearance
    for kind in SHUFFLED:
        if not state.is_chance_node():
            break  # the rest was forced
        state.apply_action(ids[kind])
    for label in MOVES:
        state.apply_action(ACTIONS.from_string(label))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_random_simulations_pass_openspiels_checks(pyspiel):
    from pirate_envs import openspiel as ps

    pyspiel.random_sim_test(ps.load_variant("lucky_pirate_small"), num_sims=5, serialize=False, verbose=False)


def test_chance_odds_sum_to_one_on_every_chance_node_of_random_walks(pyspiel):
    from pirate_envs import openspiel as ps

    game, rng = ps.load_variant("lucky_pirate_small"), np.random.default_rng(4)
    for _ in range(20):
        state, nodes = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, odds = zip(*state.chance_outcomes())
                assert sum(odds) == pytest.approx(1.0) and all(p > 0 for p in odds)
                nodes += 1
                state.apply_action(int(rng.choice(outcomes, p=odds)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert 1 < nodes <= 1 + 9  # the dealer, then the deck's positions until the rest is forced


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"ranks": 0}, r"ranks=0 .*1\.\.8"),
        ({"ranks": 9}, r"ranks=9 .*1\.\.8"),
        ({"copies": 7}, r"copies=7 .*1\.\.6"),
        ({"specials": 10}, r"specials=10 .*0\.\.9"),
        ({"up_down_cards": 5}, r"up_down_cards=5 .*0\.\.4"),
        ({"ranks": 1, "copies": 1, "specials": 0}, r"leave 1 cards; 2 players with up_down_cards=1 need at least 6"),
    ],
)
def test_bad_short_decks_are_refused_in_one_line(options, error):
    with pytest.raises(ValueError, match=error) as refused:
        Config(**{**SMALL, **options})
    assert "\n" not in str(refused.value)


def test_the_batched_engine_plays_the_small_variant_as_the_reference():
    pytest.importorskip("numba", reason="the batched engine needs numba")
    from pirate_envs.testing import check_lockstep

    report = check_lockstep("lucky_pirate_v0", num_envs=4, games=12, seed=1, **SMALL)
    assert report.games >= 12
