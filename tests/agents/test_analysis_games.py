"""Hand-traced scripted games: each collector's statistics checked exactly against the trace.

Every expected figure below is derived by reading the scripted game (the deal, the actions and
the rules), written next to the moves that produce it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import pirate_envs
from agents.analysis import Collector
from agents.analysis.driver import end_game, start_game, step
from agents.lucky_pirate.analysis import LuckyPirateCollector
from agents.piratenpoker.analysis import PiratenpokerCollector
from agents.skull_king.analysis import SkullKingCollector


def play_script(env: Any, collector: Collector, names: Sequence[str], actions: Sequence[int], options: dict) -> Any:
    """Reset ``env`` with ``options``, play ``actions`` in order; the summary (game over: end_game too)."""
    seen = start_game(env, names, collector, 0, 0, options)
    for action in actions:
        assert env.game.legal_mask()[action], f"scripted action {action} is not legal"
        seen = step(env, action, names, collector, 0, seen)
    if env.game.done:
        end_game(env, collector)
    return collector.summary()


def figures(summary: dict, stat: str) -> dict[str, dict[str, tuple]]:
    """``{group: {agent: (value, n)}}`` of one statistic (successes too for a rate)."""
    out = {}
    for group, cells in summary[stat]["groups"].items():
        out[group] = {
            agent: (f["rate"], f["successes"], f["n"]) if "rate" in f else (f["mean"], f["n"])
            for agent, f in cells.items()
        }
    return out


# ----------------------------------------------------------------------------- Skull King
def test_skull_king_two_hands_traced() -> None:
    from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
    from pirate_envs.skull_king.cards import token_index

    def bid(b: int) -> int:
        return BID_OFFSET + b

    def card(name: str) -> int:
        return CARD_OFFSET + token_index(name)

    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2, num_hands=2)
    deals = [
        [["pirate"], ["black-13"]],  # hand 1: A (seat 0) holds a Pirate, B a trump
        [["skull_king", "black-3"], ["pirate", "yellow-2"]],  # hand 2
    ]
    script = [
        # hand 1: dealer seat 0, seat 1 bids and leads first
        bid(1),  # B bids 1
        bid(0),  # A bids 0
        card("black-13"),  # B leads
        card("pirate"),  # A follows with the Pirate: A wins (bonus 0); A's 0 missed, B's 1 missed: -10 each
        # hand 2: dealer seat 1, seat 0 bids and leads
        bid(2),  # A bids 2
        bid(0),  # B bids 0
        card("skull_king"),  # A leads the Skull King
        card("pirate"),  # B's Pirate is caught: A wins, bonus 30
        card("black-3"),  # A leads a trump
        card("yellow-2"),  # B has no black: A wins; A made 2 (40 + 30 = 70), B made 0 (+20)
    ]
    s = play_script(env, SkullKingCollector(), ["A", "B"], script, {"deals": deals})
    assert env.game.done
    assert [r.points for r in env.game.results] == [(-10, -10), (70, 20)]  # the engine agrees with the trace
    assert figures(s, "bid_by_hand") == {"1": {"B": (1, 1), "A": (0, 1)}, "2": {"A": (2, 1), "B": (0, 1)}}
    # strength: hand 1 A pirate = 1, B black-13 = 1; hand 2 A skull_king + black-3 = 2, B pirate = 1
    assert figures(s, "bid_by_strength") == {"1": {"B": (0.5, 2), "A": (0, 1)}, "2": {"A": (2, 1)}}
    assert figures(s, "exact_by_hand") == {"1": {"B": (0, 0, 1), "A": (0, 0, 1)}, "2": {"A": (1, 1, 1), "B": (1, 1, 1)}}
    assert figures(s, "exact") == {"all": {"A": (0.5, 1, 2), "B": (0.5, 1, 2)}}
    # hand 1: A bid 0 took 1, B bid 1 took 0; hand 2: both made their bids
    assert figures(s, "bid_minus_tricks") == {"1": {"B": (1, 1), "A": (-1, 1)}, "2": {"A": (0, 1), "B": (0, 1)}}
    assert figures(s, "zero_bid_by_hand") == {
        "1": {"B": (0, 0, 1), "A": (1, 1, 1)},
        "2": {"A": (0, 0, 1), "B": (1, 1, 1)},
    }
    assert figures(s, "zero_bid_made") == {"all": {"A": (0, 0, 1), "B": (1, 1, 1)}}
    assert figures(s, "special_lead") == {
        "pirate": {"A": (0, 0, 1), "B": (0, 0, 1)},
        "skull_king": {"A": (1, 1, 1)},
    }
    assert figures(s, "special_wins") == {
        "pirate": {"A": (1, 1, 1), "B": (0, 0, 1)},
        "skull_king": {"A": (1, 1, 1)},
    }
    assert figures(s, "special_bonus") == {"pirate": {"A": (0, 1)}, "skull_king": {"A": (30, 1)}}
    assert figures(s, "bonus_taken") == {"1": {"A": (0, 1), "B": (0, 1)}, "2": {"A": (30, 1), "B": (0, 1)}}
    assert figures(s, "bonus_scored") == {"all": {"A": (15, 2), "B": (0, 2)}}
    assert figures(s, "points_per_hand") == {"1": {"A": (-10, 1), "B": (-10, 1)}, "2": {"A": (70, 1), "B": (20, 1)}}


# ----------------------------------------------------------------------------- Piratenpoker
def test_piratenpoker_first_game_traced() -> None:
    from pirate_envs.piratenpoker.actions import ADD, COMMIT, LOOT, PASS, RECIPIENT
    from pirate_envs.piratenpoker.cards import COLOURS, POKER_INDEX

    def add(name: str) -> int:
        return ADD + POKER_INDEX[name]

    env = pirate_envs.make("piratenpoker_v0", raw=True, num_players=3)
    hands = [
        ["green-8", "green-7", "green-1", "green-2", "red-2", "red-3"],
        ["red-1", "red-4", "red-5", "yellow-1", "yellow-3", "yellow-4"],
        ["yellow-2", "yellow-5", "green-3", "green-4", "green-5", "red-6"],
    ]
    loot = {"green": [10], "red": [5], "yellow": [6]}  # on offer: 21 points of fronts
    script = [
        # overboard round (offer 21): A bids 8, B passes, C bids 2: A wins
        add("green-8"), COMMIT, PASS, add("yellow-2"), COMMIT,
        LOOT + COLOURS.index("red"),  # A throws the +5 (not the highest front, 10): its back is a shark
        RECIPIENT + 0,  # ... and keeps it
        # below deck round (offer 10 + 6 = 16): A 7, B 5 (his Pass is used), C 5 + 5 = 10: C wins
        add("green-7"), COMMIT, add("red-5"), COMMIT, add("yellow-5"), add("green-5"), COMMIT,
        LOOT + COLOURS.index("green"),  # C sends the +10, the highest, below deck; he holds no negative card
        # loot round (yellow +6, yellow counts double): A 1, B 4 x 2 = 8, C 6: B wins
        add("green-1"), COMMIT, add("yellow-4"), COMMIT, add("red-6"), COMMIT,
    ]  # fmt: skip
    s = play_script(env, PiratenpokerCollector(), ["A", "B", "C"], script, {"hands": hands, "loot": loot})
    assert env.game.displayed_names()[:2] == [["red:shark"], ["yellow:+6"]]  # the engine agrees
    assert figures(s, "pass_by_round") == {
        "overboard": {"A": (0, 0, 1), "B": (1, 1, 1), "C": (0, 0, 1)},
        "below deck": {"A": (0, 0, 1), "C": (0, 0, 1)},  # B's Pass is played: no choice
        "loot": {"A": (0, 0, 1), "C": (0, 0, 1)},
    }
    assert figures(s, "bid_total_by_round") == {
        "overboard": {"A": (8, 1), "C": (2, 1)},
        "below deck": {"A": (7, 1), "B": (5, 1), "C": (10, 1)},
        "loot": {"A": (1, 1), "B": (8, 1), "C": (6, 1)},
    }
    assert figures(s, "bid_per_loot_point") == {
        "overboard": {"A": (8 / 21, 1), "C": (2 / 21, 1)},
        "below deck": {"A": (7 / 16, 1), "B": (5 / 16, 1), "C": (10 / 16, 1)},
        "loot": {"A": (1 / 6, 1), "B": (8 / 6, 1), "C": (1.0, 1)},
    }
    assert figures(s, "bid_total_by_offer") == {"6": {"A": (1, 1), "B": (8, 1), "C": (6, 1)}}
    assert figures(s, "overboard_highest") == {"all": {"A": (0, 0, 1)}}
    assert figures(s, "overboard_front") == {"all": {"A": (5, 1)}}
    assert figures(s, "overboard_shark") == {"all": {"A": (1, 1, 1)}}
    assert figures(s, "overboard_to_self") == {"shark": {"A": (1, 1, 1)}}
    assert figures(s, "overboard_to_leader") == {"shark": {"A": (0, 0, 1)}}
    assert figures(s, "below_deck_highest") == {"all": {"C": (1, 1, 1)}}
    assert figures(s, "negative_given") == {}


def test_piratenpoker_sets() -> None:
    from agents.piratenpoker.analysis import complete_sets
    from pirate_envs.piratenpoker.cards import DISPLAYED_INDEX, NUM_DISPLAYED_KINDS

    def counts(*names: str) -> list[int]:
        row = [0] * NUM_DISPLAYED_KINDS
        for name in names:
            row[DISPLAYED_INDEX[name]] += 1
        return row

    # three sharks: one set; three +8 fronts of any colour: one set; two +10s and a -4: none
    assert complete_sets(counts("red:shark", "green:shark", "yellow:shark")) == 1
    assert complete_sets(counts("red:+8", "green:+8", "green:+8", "yellow:+10", "red:-4")) == 1
    assert complete_sets(counts("red:+10", "green:+10", "red:-4", "red:shark", "green:shark")) == 0


# ----------------------------------------------------------------------------- Lucky Pirate
def test_lucky_pirate_short_game_traced() -> None:
    from pirate_envs.lucky_pirate.actions import down_action, play_action
    from pirate_envs.lucky_pirate.cards import KIND_INDEX

    def play(name: str) -> int:
        return play_action(KIND_INDEX[name], 1)

    env = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=2)
    deal = [{"hand": ["3"], "up": [], "down": ["1"]}, {"hand": ["5", "parrot"], "up": [], "down": []}]
    script = [
        play("3"),  # A (left of the dealer B) starts on the empty pile, from the hand
        play("5"),  # B
        down_action(0),  # A's hand is empty: his down card, a 1, cannot go on the 5: he picks up the 2-card pile
        play("parrot"),  # B puts his last card, the Parrot, on the empty pile: B wins on his 2nd turn
    ]
    s = play_script(env, LuckyPirateCollector(), ["A", "B"], script, {"dealer": 1, "deal": deal})
    assert env.game.done and env.game.winners() == [1]
    assert figures(s, "pick_up_by_source") == {"hand": {"A": (0, 0, 1), "B": (0, 0, 2)}, "down": {"A": (1, 1, 1)}}
    assert figures(s, "pick_up_by_turn") == {"1-5": {"A": (0.5, 1, 2), "B": (0, 0, 2)}}
    assert figures(s, "pick_up_size") == {"down": {"A": (2, 1)}}
    assert figures(s, "pick_ups_per_game") == {"all": {"A": (1, 1), "B": (0, 1)}}
    assert figures(s, "blind_playable") == {"all": {"A": (0, 0, 1)}}
    assert figures(s, "special_pile_size") == {"parrot": {"B": (0, 1)}}
    assert figures(s, "special_on_empty") == {"parrot": {"B": (1, 1, 1)}}
    assert figures(s, "special_turn") == {"parrot": {"B": (2, 1)}}
    assert figures(s, "special_hand_left") == {"parrot": {"B": (0, 1)}}
    assert figures(s, "turns_to_go_out") == {"all": {"B": (2, 1)}}
    assert figures(s, "first_mate_stranded") == {"all": {"A": (0, 0, 1)}}  # A ends holding 3, 5 and 1
    assert figures(s, "set_aside_stranded") == {"all": {"A": (0, 0, 1), "B": (0, 0, 1)}}


@pytest.mark.parametrize("turn, bucket", [(1, "1-5"), (5, "1-5"), (6, "6-10"), (40, "21-40"), (41, ">40")])
def test_lucky_pirate_turn_buckets(turn: int, bucket: str) -> None:
    from agents.lucky_pirate.analysis import turn_bucket

    assert turn_bucket(turn) == bucket
