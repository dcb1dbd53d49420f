"""Skull King's short deck (options ``suits``, ``ranks``, ``specials``): the deck, checks, a traced hand, the batch."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.chance import ScriptedChance
from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import COPIES, DECK, KIND_NAMES, kind_index
from pirate_envs.skull_king.engine import Config, SkullKingEngine

#: Yellow and black (trump) 1..3, one Escape, Pirate, Mermaid and Skull King: ten cards.
SHORT = {"suits": (0, 3), "ranks": 3, "specials": (1, 1, 1, 1, 0)}
SHORT_NAMES = ["yellow-1", "yellow-2", "yellow-3", "black-1", "black-2", "black-3", "escape", "pirate", "mermaid"]


def test_the_full_deck_is_the_default():
    config = Config()
    assert config.copies == COPIES and config.deck.tolist() == DECK.tolist() and config.deck_size == 66


def test_a_short_deck_holds_the_chosen_suits_ranks_and_specials():
    config = Config(num_players=2, num_hands=1, **SHORT)
    assert [KIND_NAMES[k] for k in config.deck] == [*SHORT_NAMES, "skull_king"]
    assert config.deck_size == 10
    assert (
        Config(num_players=2, num_hands=1, suits=[3], ranks=1, specials=[0, 2, 0, 0, 0]).copies[kind_index("pirate")]
        == 2
    )  # lists (from --env-kwargs) are taken as tuples


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"suits": (0, 0)}, r"^suits=\[0, 0\] names a suit twice; allowed: distinct indices 0\.\.3$"),
        ({"suits": (4,)}, r"^suits\[0\]=4 is out of range; allowed: 0\.\.3$"),
        ({"suits": "0,3"}, r"^suits="),
        ({"ranks": 0}, r"^ranks=0 is out of range; allowed: 1\.\.13$"),
        ({"ranks": 14}, r"^ranks=14 is out of range"),
        ({"specials": (1, 1)}, r"^specials=\(1, 1\) has 2 items; expected a list of 5 copies of \['escape'"),
        ({"specials": (6, 0, 0, 0, 0)}, r"^specials \(escape\)=6 is out of range; allowed: 0\.\.5$"),
        ({"specials": (0, 0, 0, 2, 0)}, r"^specials \(skull_king\)=2 is out of range; allowed: 0\.\.1$"),
        ({"suits": (0,), "ranks": 2, "specials": (0, 0, 0, 0, 0), "num_hands": 2}, r"^num_hands=2 is out of range"),
    ],
)
def test_bad_short_deck_options_are_refused_in_one_line(kwargs, error):
    with pytest.raises((ValueError, TypeError), match=error) as refused:  # a string for a list: TypeError
        pirate_envs.make("skull_king_v0", num_players=2, **{"num_hands": 1, **kwargs})
    assert "\n" not in str(refused.value)


def test_a_short_deck_deals_only_its_cards():
    env = pirate_envs.make("skull_king_v0", num_players=3, num_hands=3, **SHORT)
    deck = Config(num_players=3, num_hands=3, **SHORT).copies
    for seed in range(20):
        env.reset(seed=seed)
        game = env.unwrapped.game
        for _ in range(3):  # the three hands, each dealt from the short deck
            assert (game.hands.sum(axis=0) <= np.asarray(deck)).all() and game.hands.sum() == 3 * game.hand_number
            while game.hand_number == _ + 1 and not game.terminated:
                game.apply(game.legal_actions()[0])


def test_a_deal_beyond_the_short_deck_is_refused():
    engine = SkullKingEngine(Config(num_players=2, num_hands=1, **SHORT))
    with pytest.raises(ValueError, match="skull_king is given 2 times; the deck holds 1"):
        engine.reset(np.random.default_rng(0), {"deal": [["skull_king"], ["skull_king"]]})
    with pytest.raises(ValueError, match="blue-1 is given 1 times; the deck holds 0"):
        engine.reset(np.random.default_rng(0), {"deal": [["blue-1"], ["pirate"]]})


def test_a_traced_short_deck_hand():
    """One hand, two players, the ten-card deck, traced from the rules.

    Seat 0 deals, so seat 1 bids first and leads. The deck is shuffled so that seat 0 gets
    black-2 and seat 1 yellow-3 (the engine deals the first card to seat 0, the next to seat 1).
    Seat 1 bids 0 and seat 0 bids 1; seat 1 leads yellow-3; seat 0 holds no yellow and plays
    black-2: "the skull and crossbones flag (black) is the highest suit and it trumps all other
    suits", so seat 0 takes the trick. Seat 0 made a bid of 1: 20 points per trick won, 20.
    Seat 1 made a bid of 0 in round 1: "round 1 times 10 points", 10. Seat 0 wins the game.
    """
    config = Config(num_players=2, num_hands=1, **SHORT)
    order = [kind_index("black-2"), kind_index("yellow-3")]
    rest = [int(k) for k in config.deck if int(k) not in order]
    engine = SkullKingEngine(config)
    engine.reset(ScriptedChance([order + rest]))
    assert engine.view(0).hand_cards() == ["black-2"] and engine.view(1).hand_cards() == ["yellow-3"]
    assert engine.current_player == 1
    engine.apply(BID_OFFSET + 0)
    engine.apply(BID_OFFSET + 1)
    assert engine.current_player == 1 and engine.legal_actions() == [CARD_OFFSET + kind_index("yellow-3")]
    engine.apply(CARD_OFFSET + kind_index("yellow-3"))
    assert engine.legal_actions() == [CARD_OFFSET + kind_index("black-2")]  # no yellow: any card
    engine.apply(CARD_OFFSET + kind_index("black-2"))
    assert engine.terminated and engine.tricks_won == [1, 0]
    assert engine.scores().tolist() == [20.0, 10.0] and engine.winners() == [0]


def test_the_batched_engine_plays_a_short_deck_as_the_reference_engine():
    pytest.importorskip("numba")
    from pirate_envs.testing import check_lockstep

    report = check_lockstep("skull_king_v0", 8, games=40, seed=5, num_players=3, num_hands=3, **SHORT)
    assert report.games >= 40 and report.engine_checks > 0
