"""The options for readings of the rules where the English and French texts are silent or disagree.

Each game is scripted from the hands of ``test_engine.HANDS`` and traced by hand:
seat 0 green-8 green-7 red-6 yellow-5 green-1 red-2; seat 1 red-8 yellow-7 green-6 red-5
yellow-4 green-3; seat 2 yellow-8 red-7 yellow-6 green-5 red-4 red-3.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from pirate_envs.piratenpoker.actions import ACTIONS
from pirate_envs.piratenpoker.cards import DISPLAYED_INDEX, FRONT_VALUES
from pirate_envs.piratenpoker.engine import Config, Phase, PiratenpokerEngine
from pirate_envs.piratenpoker.rules import bid_winner
from tests.piratenpoker.test_engine import HANDS, act, bid, face_up, new_engine

LOOT = {"green": [5], "red": [10], "yellow": [6]}  # backs: green shark, red -5, yellow -3


def legal_labels(engine) -> list[str]:
    return [ACTIONS.to_string(a) for a in engine.legal_actions()]


def win_round_one(engine) -> None:
    """Seat 0 wins round 1 with green-8 against green-3 and green-5."""
    bid(engine, 0, ["green-8"])
    bid(engine, 1, ["green-3"])
    bid(engine, 2, ["green-5"])
    assert engine.phase == Phase.PICK_LOOT and engine.chooser == 0


def seat_zero_passes_round_one(engine) -> None:
    """Round 1: Pass, red-8, red-7; seat 1 wins and gives the yellow -3 to seat 0."""
    bid(engine, 0, [])
    bid(engine, 1, ["red-8"])
    bid(engine, 2, ["red-7"])
    act(engine, "choose yellow loot")
    act(engine, "to seat +2")


def test_overboard_negative_to_another_player_and_the_shark_kept():
    engine = new_engine({"hands": HANDS, "loot": LOOT}, overboard_gift="negative_to_other")
    win_round_one(engine)
    kept = copy.deepcopy(engine)
    act(kept, "choose green loot")  # the shark back: the winner keeps it, no recipient to choose
    assert kept.displayed_names() == [["green:shark"], [], []] and kept.scores().tolist() == [4, 0, 0]
    assert kept.phase == Phase.BID and kept.round == 1
    act(engine, "choose red loot")  # the -5 back goes to another player
    assert engine.phase == Phase.RECIPIENT and legal_labels(engine) == ["to seat +1", "to seat +2"]
    act(engine, "to seat +1")
    assert engine.displayed_names() == [[], ["red:-5"], []]


def test_overboard_default_gives_any_card_to_anybody():
    engine = new_engine({"hands": HANDS, "loot": LOOT})
    win_round_one(engine)
    act(engine, "choose green loot")
    assert legal_labels(engine) == ["to self", "to seat +1", "to seat +2"]


@pytest.mark.parametrize(("gifts", "given"), [(1, 1), (2, 2)])
def test_below_deck_gifts_limit_the_negative_cards_given(gifts, given):
    engine = new_engine({"hands": HANDS, "loot": LOOT}, below_deck_gifts=gifts)
    win_round_one(engine)
    act(engine, "choose red loot")
    act(engine, "to self")  # seat 0 displays red:-5
    for name in ("yellow:-3", "green:-4"):  # two more negative cards, so that three are on display
        engine.displayed[0, DISPLAYED_INDEX[name]] += 1
    # round 2: green-7 red-6 = 13 beats green-6 and red-7
    bid(engine, 0, ["green-7", "red-6"])
    bid(engine, 1, ["green-6"])
    bid(engine, 2, ["red-7"])
    act(engine, "choose green loot")
    for _ in range(given):
        assert engine.phase == Phase.GIFT
        negatives = [label for label in legal_labels(engine) if label.startswith("give")]
        act(engine, negatives[0])
        act(engine, "to seat +1")
    assert engine.phase == Phase.BID and engine.round == 2  # gifts used up, one negative card left
    assert sum(engine.displayed[0, DISPLAYED_INDEX[n]] for n in ("red:-5", "yellow:-3", "green:-4")) == 3 - given


def test_all_tied_loot_removed_from_the_game():
    loot = {"green": [8, 6], "red": [10, 5], "yellow": [6, 8]}
    engine = new_engine({"loot": loot}, all_tied_loot="removed")
    assert face_up(engine) == [8, 10, 6]
    for seat in range(3):
        bid(engine, seat, [])
    # nobody can win: the three cards leave the game (default: under their stacks, 6 left each)
    assert engine.games_played == 2 and face_up(engine) == [6, 5, 8]
    assert [len(s) for s in engine.stacks] == [5, 5, 5]
    removed = [FRONT_VALUES.index(v) for v in (8, 10, 6)]
    for colour, front in enumerate(removed):  # the removed front of each colour: one copy fewer in the game
        in_game = engine.stacks[colour].count(front) + (engine.face_up[colour] == front)
        assert in_game == engine.config.loot_fronts.count(FRONT_VALUES[front]) - 1


def test_pass_sits_out_the_rest_of_the_game():
    engine = new_engine({"hands": HANDS, "loot": LOOT}, pass_sits_out=True)
    seat_zero_passes_round_one(engine)
    # round 2: seat 0 holds six cards but has passed: he bids nothing
    assert engine.round == 1 and engine.current_player == 1 and engine.committed[0]
    bid(engine, 1, ["yellow-7"])
    bid(engine, 2, ["yellow-8"])
    assert engine.last_bids[0].sum() == 0 and engine.chooser == 2
    # the default: he is asked, and must bid cards
    default = new_engine({"hands": HANDS, "loot": LOOT})
    seat_zero_passes_round_one(default)
    assert default.current_player == 0 and "pass" not in legal_labels(default)


def test_a_sitting_out_seat_is_not_redrawn_to_bid():
    engine = new_engine({"hands": HANDS, "loot": LOOT}, pass_sits_out=True)
    seat_zero_passes_round_one(engine)
    bid(engine, 1, ["yellow-7"])
    assert engine.current_player == 2
    rng = np.random.default_rng(5)
    for _ in range(200):
        twin = copy.deepcopy(engine)
        twin.resample_hidden(2, rng)
        assert not twin.bid_names[0] and not twin.passed[0] and twin.hand_size[0] == 6
        assert twin.view(2) == engine.view(2)


def test_pass_can_win_only_by_default():
    bids = [["green-8"], [], ["yellow-8"]]  # seats 0 and 2 tie exactly and are set aside
    assert bid_winner(bids, None) == 1
    assert bid_winner(bids, None, empty_can_win=False) is None
    engine = new_engine({"hands": HANDS, "loot": LOOT}, pass_can_win=False)
    bid(engine, 0, ["green-8"])
    bid(engine, 1, [])
    bid(engine, 2, ["yellow-8"])
    assert engine.last_winner == -1 and engine.games_played == 2  # nobody wins: a new game


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("overboard_gift", "keep", ValueError),
        ("below_deck_gifts", 0, ValueError),
        ("all_tied_loot", "lost", ValueError),
        ("pass_sits_out", "yes", TypeError),
        ("pass_can_win", 1, TypeError),
        ("hand_size", 7, ValueError),
    ],
)
def test_bad_ruling_options_name_the_field(field, value, error):
    with pytest.raises(error, match=field):
        Config(**{field: value})


def test_hand_size_five_deals_and_refills_five():
    engine = new_engine({"hands": [hand[:5] for hand in HANDS], "loot": LOOT}, hand_size=5)
    assert engine.hand_size == [5, 5, 5]
    bid(engine, 0, ["green-8", "green-7"])  # 15 beats red-8 and the Pass
    bid(engine, 1, ["red-8"])
    bid(engine, 2, [])
    act(engine, "choose green loot")
    act(engine, "to self")
    bid(engine, 0, [])  # round 2: yellow-8 beats yellow-7; seat 2 has no negative card
    bid(engine, 1, ["yellow-7"])
    bid(engine, 2, ["yellow-8"])
    act(engine, "choose red loot")
    bid(engine, 0, ["green-1"])  # round 3, yellow loot: red-7 = 7 beats green-1 and the Pass
    bid(engine, 1, [])
    bid(engine, 2, ["red-7"])
    assert engine.displayed_names() == [["green:shark"], [], ["yellow:+6"]]
    assert engine.games_played == 2 and engine.hand_size == [5, 5, 5]  # spent 3, 2, 2; refilled to five
    assert engine.hands.sum(axis=1).tolist() == [5, 5, 5]


OTHER_READINGS = {
    "overboard_gift": "negative_to_other",
    "below_deck_gifts": 3,
    "all_tied_loot": "removed",
    "pass_sits_out": True,
    "pass_can_win": False,
    "hand_size": 5,
}


@pytest.mark.parametrize("num_players", [3, 5])
def test_random_play_under_the_other_readings(num_players):
    """Every option away from its default: games end, masks hold a move, resamples keep the View."""
    engine = PiratenpokerEngine(Config(num_players=num_players, **OTHER_READINGS))
    rng = np.random.default_rng(num_players)
    for _game in range(10):
        engine.reset(rng)
        while not engine.done:
            mask = engine.legal_mask()
            np.testing.assert_array_equal(mask, engine._compute_mask())
            assert all(size <= 5 for size in engine.hand_size)
            seat = engine.current_player
            twin = copy.deepcopy(engine)
            twin.resample_hidden(seat, rng)
            assert twin.view(seat) == engine.view(seat)
            legal = np.flatnonzero(mask)
            engine.apply(int(legal[rng.integers(legal.size)]))
        assert engine.terminated
