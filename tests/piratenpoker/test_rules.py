"""Hand-traced checks of the pure Piratenpoker helpers (round winner, final score, ranking, config)."""

from __future__ import annotations

import pytest

from pirate_envs.piratenpoker.cards import DECK_SIZE, DISPLAYED_NAMES, NEGATIVE_KINDS, POKER_NAMES
from pirate_envs.piratenpoker.engine import Config
from pirate_envs.piratenpoker.rules import bid_strength, bid_winner, final_score, final_winners


def test_deck_and_loot_names():
    assert DECK_SIZE == 84
    assert len(POKER_NAMES) == 24 and POKER_NAMES[0] == "green-1" and POKER_NAMES[-1] == "yellow-8"
    assert "green:+8" in DISPLAYED_NAMES and "red:-4" in DISPLAYED_NAMES and "yellow:shark" in DISPLAYED_NAMES
    assert sorted(DISPLAYED_NAMES[k].split(":")[1] for k in NEGATIVE_KINDS) == ["-3"] * 3 + ["-4"] * 3 + ["-5"] * 3


# ----------------------------------------------------------------------------- bid_winner
@pytest.mark.parametrize(
    ("bids", "colour", "winner"),
    [
        # 8 beats 7 beats a Pass (0)
        ([["green-5", "red-3"], ["yellow-7"], []], None, 0),
        # all 8: highest cards 4 / 6 / 5 -> the 6
        ([["green-4", "red-4"], ["yellow-6", "green-2"], ["red-5", "red-3"]], None, 1),
        # 8 = 6+2 against 6+1+1: the second card decides
        ([["green-6", "red-2"], ["red-6", "green-1", "yellow-1"]], None, 0),
        # two exact (5,3) ties are set aside: the second-highest total (4) wins
        ([["green-5", "red-3"], ["yellow-5", "green-3"], ["red-4"], []], None, 2),
        # two exactly tied pairs: nobody can win
        ([["green-5"], ["red-5"], ["green-2"], ["yellow-2"]], None, None),
        # everybody passes: nobody can win
        ([[], [], []], None, None),
        # the Pass (worth 0) wins when the two bidders tie exactly
        ([["green-5"], ["red-5"], []], None, 2),
        # round 3, red loot: red-4 + green-1 = 9, green-8 = 8, red-3 + red-1 = 8
        ([["red-4", "green-1"], ["green-8"], ["red-3", "red-1"]], "red", 0),
        # the same bids without doubling: 5, 8, 4
        ([["red-4", "green-1"], ["green-8"], ["red-3", "red-1"]], None, 1),
        # yellow loot: yellow-4 counts 8 and ties exactly with green-8; red-7 wins
        ([["yellow-4"], ["green-8"], ["red-7"]], "yellow", 2),
        # doubled values break the tie: green-3 + green-1 (6,2) against red-5 + yellow-3 (5,3)
        ([["green-3", "green-1"], ["red-5", "yellow-3"]], "green", 0),
    ],
)
def test_bid_winner(bids, colour, winner):
    assert bid_winner(bids, colour) == winner


def test_bid_strength_doubles_the_loot_colour():
    assert bid_strength(["red-4", "green-1", "red-2"], "red") == (13, (8, 4, 1))
    assert bid_strength([], "red") == (0, ())


def test_bid_winner_rejects_bad_names():
    with pytest.raises(ValueError, match="blue-5"):
        bid_winner([["blue-5"], []], None)
    with pytest.raises(ValueError, match="green-9"):
        bid_winner([["green-9"], []], None)
    with pytest.raises(ValueError, match="purple"):
        bid_winner([["green-5"], []], "purple")


# ----------------------------------------------------------------------------- final_score
@pytest.mark.parametrize(
    ("displayed", "score"),
    [
        ([], 0),
        (["green:+8", "red:-4", "yellow:shark"], 8),
        (["green:shark", "red:shark"], 8),
        (["green:shark", "red:shark", "green:shark"], 17),  # 12 + 5
        (["green:shark"] * 5, 25),  # 20 + one set
        (["red:shark"] * 6, 34),  # 24 + two sets
        (["green:+6", "red:+6", "yellow:+6"], 23),  # 18 + 5, colour ignored
        (["green:+8", "red:+8", "yellow:+8", "green:+8"], 37),  # 32 + one set
        (["green:+10"] * 6, 70),  # 60 + two sets
        (["green:-3", "red:-3", "yellow:-3"], -9),  # backs form no set
        (["green:+5", "red:+5", "yellow:shark", "green:shark"], 18),  # +5 fronts and sharks do not mix
        (["green:+8", "red:+8", "yellow:+8", "green:shark", "red:shark", "yellow:shark", "red:-5"], 41),
    ],
)
def test_final_score(displayed, score):
    assert final_score(displayed) == score


def test_final_score_rejects_bad_names():
    for bad in ("green:+7", "green:-6", "blue:+8", "green:8"):
        with pytest.raises(ValueError, match="displayed loot"):
            final_score([bad])


# ----------------------------------------------------------------------------- final ranking
@pytest.mark.parametrize(
    ("displayed", "winners"),
    [
        ([["green:+10"], ["red:+8"], []], [0]),
        # 10 - 4 = 6 against 6: the +10 is the highest card
        ([["green:+10", "red:-4"], ["green:+6"], []], [0]),
        # 10 each: (8, 6, -4) against (8, 5, -3): the second card decides
        ([["green:+8", "red:+6", "yellow:-4"], ["red:+8", "green:+5", "yellow:-3"], ["red:+6"]], [0]),
        # the same cards in other colours: a shared win
        ([["green:+8"], ["red:+8"], ["yellow:+6"]], [0, 1]),
        # 12 + 5 bonus = 17 beats 16
        ([["green:shark", "red:shark", "yellow:shark"], ["green:+8", "red:+8"], []], [0]),
    ],
)
def test_final_winners(displayed, winners):
    assert final_winners(displayed) == winners


# ----------------------------------------------------------------------------- config
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 2}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"loot_fronts": (5, 7)}, r"loot_fronts\[1\]"),
        ({"loot_fronts": ()}, r"len\(loot_fronts\)"),
        ({"loot_fronts": "5"}, "loot_fronts"),
        ({"max_games": 0}, "max_games"),
    ],
)
def test_config_rejects_bad_values(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Config(**kwargs)


def test_config_defaults():
    config = Config(loot_fronts=[8, 10])
    assert config.loot_fronts == (8, 10)
    assert Config().loot_fronts == (5, 5, 6, 6, 8, 8, 10)
    assert Config().num_players == 4
