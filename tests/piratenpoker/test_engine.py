"""Whole Piratenpoker games scripted from a chosen deal, with results traced by hand from the rules."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import pytest

from pirate_envs.piratenpoker.actions import ACTIONS
from pirate_envs.piratenpoker.cards import DECK_COUNTS, DECK_SIZE, FRONT_VALUES, POKER_INDEX, POKER_NAMES, names_of
from pirate_envs.piratenpoker.engine import Config, Phase, PiratenpokerEngine
from pirate_envs.piratenpoker.rules import final_score

HANDS = [
    ["green-8", "green-7", "red-6", "yellow-5", "green-1", "red-2"],
    ["red-8", "yellow-7", "green-6", "red-5", "yellow-4", "green-3"],
    ["yellow-8", "red-7", "yellow-6", "green-5", "red-4", "red-3"],
]
DECK = ["green-4", "green-4", "red-4", "yellow-3", "yellow-3", "yellow-1", "red-1", "green-2"]


def new_engine(options: dict, **config) -> PiratenpokerEngine:
    engine = PiratenpokerEngine(Config(**{"num_players": 3, **config}))
    engine.reset(np.random.default_rng(7), options)
    return engine


def act(engine: PiratenpokerEngine, label: str) -> None:
    action = ACTIONS.from_string(label)
    legal = [ACTIONS.to_string(a) for a in engine.legal_actions()]
    assert label in legal, f"{label!r} not legal; legal: {legal}"
    engine.apply(action)


def bid(engine: PiratenpokerEngine, seat: int, cards: Sequence[str]) -> None:
    """``seat`` bids ``cards`` (an empty list: the Pass)."""
    assert engine.current_player == seat and engine.phase == Phase.BID
    for card in cards:
        act(engine, f"bid {card}")
    act(engine, "commit bid" if cards else "pass")


def hand_of(engine: PiratenpokerEngine, seat: int) -> dict[str, int]:
    counts = engine.view(seat).hand
    return {name: int(counts[k]) for name, k in POKER_INDEX.items() if counts[k]}


def cards(*names: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for name in names:
        out[name] = out.get(name, 0) + 1
    return out


def face_up(engine: PiratenpokerEngine) -> list[int | None]:
    return [None if f < 0 else FRONT_VALUES[f] for f in engine.face_up]


def test_scripted_whole_game():
    """Three players, two loot cards per colour: two games, then the yellow stack is empty."""
    engine = new_engine(
        {"hands": HANDS, "deck": DECK, "loot": {"green": [10, 5], "red": [5, 10], "yellow": [10, 5]}},
        loot_fronts=(5, 10),
    )
    # --- game 1: green +10, red +5, yellow +10 revealed
    assert engine.games_played == 1 and face_up(engine) == [10, 5, 10]
    assert [len(s) for s in engine.stacks] == [1, 1, 1]
    # round 1 (overboard): 1, 3, Pass -> seat 1
    bid(engine, 0, ["green-1"])
    bid(engine, 1, ["green-3"])
    bid(engine, 2, [])
    assert engine.phase == Phase.PICK_LOOT and engine.current_player == 1
    act(engine, "choose yellow loot")
    assert engine.phase == Phase.RECIPIENT and "to self" in [ACTIONS.to_string(a) for a in engine.legal_actions()]
    act(engine, "to seat +2")  # seat 1 -> seat 0
    assert engine.displayed_names() == [["yellow:-5"], [], []]
    assert engine.scores().tolist() == [-5, 0, 0]
    # round 2 (below deck): Pass, 4, 3 -> seat 1, who holds no negative card (no gift)
    bid(engine, 0, [])
    bid(engine, 1, ["yellow-4"])
    bid(engine, 2, ["red-3"])
    act(engine, "choose green loot")
    assert engine.stacks[0] == [0, 3]  # the +5, then the +10 put under it
    assert engine.phase == Phase.BID and engine.round == 2
    # round 3, red +5: red-6 red-2 = 12+4 = 16, red-8 = 16, yellow-6 = 6; seat 2 has spent his Pass
    bid(engine, 0, ["red-6", "red-2"])
    bid(engine, 1, ["red-8"])
    assert ACTIONS.from_string("pass") not in engine.legal_actions()
    bid(engine, 2, ["yellow-6"])
    # 16 (16) beats 16 (12, 4) on the highest card
    assert engine.displayed_names() == [["yellow:-5"], ["red:+5"], []]
    assert engine.scores().tolist() == [-5, 5, 0]
    assert int(engine.discard.sum()) == 8
    # --- game 2: refill in seat order from the chosen deck, Pass cards back
    assert engine.games_played == 2 and face_up(engine) == [5, 10, 5]
    assert hand_of(engine, 0) == cards("green-8", "green-7", "yellow-5", "green-4", "green-4", "red-4")
    assert hand_of(engine, 1) == cards("yellow-7", "green-6", "red-5", "yellow-3", "yellow-3", "yellow-1")
    assert hand_of(engine, 2) == cards("yellow-8", "red-7", "green-5", "red-4", "red-1", "green-2")
    assert engine.pass_available == [True, True, True]
    # round 1: 8 (8), 7, 8 (8): seats 0 and 2 tie exactly and are set aside -> seat 1
    bid(engine, 0, ["green-8"])
    bid(engine, 1, ["green-6", "yellow-1"])
    bid(engine, 2, ["yellow-8"])
    assert engine.current_player == 1
    act(engine, "choose green loot")
    act(engine, "to self")  # a shark back is worth +4: keep it
    assert engine.displayed_names()[1] == ["green:shark", "red:+5"]
    # round 2: 11, Pass, 7 -> seat 0 sends red +10 below deck and gives his -5 away
    bid(engine, 0, ["green-7", "green-4"])
    bid(engine, 1, [])
    bid(engine, 2, ["red-7"])
    act(engine, "choose red loot")
    assert engine.phase == Phase.GIFT
    legal = sorted(ACTIONS.to_string(a) for a in engine.legal_actions())
    assert legal == ["give yellow:-5", "keep negatives"]
    act(engine, "give yellow:-5")
    assert engine.scores().tolist() == [0, 9, 0]  # the giver's score changes at once (seat 1: 5 + 4)
    assert "to self" not in [ACTIONS.to_string(a) for a in engine.legal_actions()]
    act(engine, "to seat +2")  # seat 0 -> seat 2
    # round 3, yellow +5: yellow-5 = 10, yellow-7 = 14, red-4 red-1 = 5
    bid(engine, 0, ["yellow-5"])
    assert engine.current_player == 1 and ACTIONS.from_string("pass") not in engine.legal_actions()
    bid(engine, 1, ["yellow-7"])
    bid(engine, 2, ["red-4", "red-1"])
    assert engine.displayed_names() == [[], ["green:shark", "red:+5", "yellow:+5"], ["yellow:-5"]]
    assert engine.scores().tolist() == [0, 14, -5]
    # --- game 3 cannot start: the yellow stack is empty
    assert engine.terminated and not engine.truncated and engine.games_played == 2
    assert engine.winners() == [1]
    assert not engine.legal_mask().any()


def test_all_tied_round_restarts_with_new_loot():
    engine = new_engine({"loot": {"green": [8, 6], "red": [10, 5], "yellow": [6, 8]}})
    assert face_up(engine) == [8, 10, 6]
    hands_before = [hand_of(engine, s) for s in range(3)]
    for seat in range(3):
        bid(engine, seat, [])
    # nobody can win: the three loot cards go under their stacks, a new game starts
    assert engine.last_winner == -1 and engine.games_played == 2
    assert face_up(engine) == [6, 5, 8]
    assert [FRONT_VALUES[s[-1]] for s in engine.stacks] == [8, 10, 6]
    assert [len(s) for s in engine.stacks] == [6, 6, 6]
    # public stack contents (+5, +6, +8, +10): green lost a +6, red a +5, yellow a +8
    assert engine.view(0).table.stack_contents == (2, 1, 2, 1) + (1, 2, 2, 1) + (2, 2, 1, 1)
    assert engine.pass_available == [True, True, True]
    assert [hand_of(engine, s) for s in range(3)] == hands_before
    assert engine.round == 0 and engine.phase == Phase.BID


def test_all_tied_second_round_returns_both_cards_and_refills():
    hands = [["green-5", "green-4", "red-3"], ["red-5", "red-4", "yellow-3"], ["yellow-5", "yellow-4", "green-3"]]
    engine = new_engine(
        {"hands": hands, "deck": ["red-6"] * 4, "loot": {"green": [8, 6], "red": [10, 5], "yellow": [6, 8]}}
    )
    # hands were refilled to six at the start of game 1: 3 chosen cards + 3 drawn
    assert engine.hand_size == [6, 6, 6]
    bid(engine, 0, ["green-4"])
    bid(engine, 1, ["yellow-3"])
    bid(engine, 2, ["green-3"])
    # 4 is the highest total (the two 3s also tie exactly)
    assert engine.current_player == 0
    act(engine, "choose red loot")
    act(engine, "to seat +1")
    assert engine.displayed_names()[1] == ["red:-5"]
    for seat, card in enumerate(["green-5", "red-5", "yellow-5"]):
        bid(engine, seat, [card])
    # (5,) three times: nobody wins, green +8 and yellow +6 go back under their stacks
    assert engine.games_played == 2
    assert [FRONT_VALUES[s[-1]] for s in (engine.stacks[0], engine.stacks[2])] == [8, 6]
    assert face_up(engine) == [6, 5, 8]
    assert engine.hand_size == [6, 6, 6]
    assert engine.displayed_names()[1] == ["red:-5"]


def test_all_tied_third_round_returns_the_loot():
    hands = [
        ["green-5", "green-4", "red-3", "yellow-5", "red-1", "green-1"],
        ["red-5", "yellow-1", "red-4", "yellow-4", "green-6", "red-6"],
        ["red-5", "green-2", "yellow-4", "green-6", "red-6", "yellow-6"],
    ]
    engine = new_engine({"hands": hands, "loot": {"green": [8, 6], "red": [10, 5], "yellow": [6, 8]}})
    # round 1: 4 against two Passes (0 and 0 tie exactly): seat 0 throws red -5 to seat 1
    bid(engine, 0, ["green-4"])
    bid(engine, 1, [])
    bid(engine, 2, [])
    act(engine, "choose red loot")
    act(engine, "to seat +1")
    # round 2: 3, 1, 2 (the Passes are spent): seat 0 puts yellow +6 under its stack
    bid(engine, 0, ["red-3"])
    bid(engine, 1, ["yellow-1"])
    bid(engine, 2, ["green-2"])
    act(engine, "choose yellow loot")
    # round 3, green +8: no green card, three times (5,): nobody wins, the +8 goes under its stack
    assert engine.round == 2
    bid(engine, 0, ["yellow-5"])
    bid(engine, 1, ["red-5"])
    bid(engine, 2, ["red-5"])
    assert engine.last_winner == -1 and engine.games_played == 2
    assert engine.displayed_names() == [[], ["red:-5"], []]
    assert [FRONT_VALUES[s[-1]] for s in (engine.stacks[0], engine.stacks[2])] == [8, 6]
    assert face_up(engine) == [6, 5, 8]
    assert engine.hand_size == [6, 6, 6] and engine.pass_available == [True, True, True]


def test_reshuffle_when_the_draw_pile_runs_out():
    engine = new_engine({"hands": HANDS, "deck": ["green-2", "green-2"], "rest_to_discard": True})
    assert len(engine.draw) == 2 and int(engine.discard.sum()) == DECK_SIZE - 18 - 2
    rounds = [["green-8", "green-3", "red-3"], ["green-7", "red-8", "red-7"], ["green-1", "yellow-4", "yellow-6"]]
    for bids in rounds:  # winners: seat 0 (8), seat 1 (8), one of the distinct round-3 totals
        for seat, card in enumerate(bids):
            bid(engine, seat, [card])
        if engine.phase == Phase.PICK_LOOT:
            act(engine, ACTIONS.to_string(engine.legal_actions()[0]))
            while engine.phase in (Phase.GIFT, Phase.RECIPIENT):
                act(engine, ACTIONS.to_string(engine.legal_actions()[-1]))
    # game 2: seat 0 drew the two green-2, then the 64 + 9 discarded cards were shuffled
    assert engine.games_played == 2
    assert hand_of(engine, 0)["green-2"] == 2
    assert int(engine.discard.sum()) == 0
    assert len(engine.draw) == 64 + 9 - 1 - 3 - 3
    assert engine.hand_size == [6, 6, 6]
    total = engine.hands.sum() + engine.bids.sum() + engine.discard.sum() + len(engine.draw)
    assert total == DECK_SIZE


def test_guard_truncates_after_max_games():
    engine = new_engine({}, max_games=2)
    for _game in range(2):
        for seat in range(3):
            bid(engine, seat, [])
    assert engine.truncated and not engine.terminated and engine.games_played == 2


def test_empty_hand_and_spent_pass_bids_nothing():
    hands = [["green-8"], ["red-1", "red-2", "red-3", "red-4", "red-5", "red-6"], ["yellow-1"]]
    engine = new_engine({"hands": hands, "deck": [], "loot": {"green": [8]}})
    # refilled: seat 0 and 2 drew five each; seat 0 plays all six in round 1
    all_cards = [k for k, c in hand_of(engine, 0).items() for _ in range(c)]
    bid(engine, 0, all_cards)
    bid(engine, 1, ["red-1"])
    bid(engine, 2, ["yellow-1"])
    assert engine.current_player == 0
    act(engine, "choose green loot")
    act(engine, "to seat +1")
    # round 2: seat 0 has only his Pass
    assert engine.current_player == 0
    assert [ACTIONS.to_string(a) for a in engine.legal_actions()] == ["pass"]
    bid(engine, 0, [])
    bid(engine, 1, ["red-2"])
    bid(engine, 2, [])
    act(engine, ACTIONS.to_string(engine.legal_actions()[0]))
    while engine.phase in (Phase.GIFT, Phase.RECIPIENT):
        act(engine, ACTIONS.to_string(engine.legal_actions()[-1]))
    # round 3: seat 0 has neither cards nor Pass and is skipped (bids nothing, total 0)
    assert engine.round == 2 and engine.current_player == 1


def test_unknown_reset_option_is_refused():
    with pytest.raises(ValueError, match="colour"):
        new_engine({"colour": 1})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hands": [["green-1"], ["green-1"], []]}, "green-1"),
        ({"hands": [[], []]}, "hands"),
        ({"deck": ["green-10"]}, "green-10"),
        ({"loot": {"green": [10, 10]}}, "loot"),
        ({"loot": {"blue": [10]}}, "blue"),
    ],
)
def test_bad_reset_options(options, message):
    with pytest.raises(ValueError, match=message):
        new_engine(options)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_random_play_keeps_cards_loot_and_masks_consistent(num_players):
    engine = PiratenpokerEngine(Config(num_players=num_players))
    rng = np.random.default_rng(num_players)
    loot_cards = 3 * len(engine.config.loot_fronts)
    for _game in range(20):
        engine.reset(rng)
        while not engine.done:
            poker = engine.hands.sum() + engine.bids.sum() + engine.discard.sum() + len(engine.draw)
            pending = engine.phase == Phase.RECIPIENT
            loot = engine.displayed.sum() + sum(map(len, engine.stacks)) + sum(f >= 0 for f in engine.face_up)
            assert (poker, loot + pending) == (DECK_SIZE, loot_cards)
            assert all(0 <= size <= 6 for size in engine.hand_size)
            assert engine.scores().tolist() == [final_score(names) for names in engine.displayed_names()]
            for seat, names in enumerate(engine.bid_names):  # the names kept for the reveal
                assert sorted(names) == names_of(engine.bids[seat], POKER_NAMES)
            mask = engine.legal_mask()
            np.testing.assert_array_equal(mask, engine._compute_mask())  # the incremental bid mask
            legal = np.flatnonzero(mask)
            engine.apply(int(legal[rng.integers(legal.size)]))
        assert engine.terminated and any(not stack for stack in engine.stacks)


# ----------------------------------------------------------------------------- resampling after a reshuffle
RESHUFFLE_GAMES = 3  # random episodes per table size
RESHUFFLE_DECISIONS = 400  # decisions per episode at most
MIN_WORLDS_AFTER_RESHUFFLE = 500  # per table size (1,128 to 3,810 are made)


class PileWitness:
    """Records, from outside the engine, the discard reshuffled into the draw pile and who drew what since.

    It wraps ``engine._draw_card``: an empty pile before a draw means the discard (public) becomes
    the new pile; the card goes to the first seat below the hand size (hands are dealt and
    refilled in seat order).
    """

    def __init__(self, engine: PiratenpokerEngine):
        self.new_pile: np.ndarray | None = None  # the discard shuffled into the current pile
        self.drawn = np.zeros((engine.num_players, len(POKER_NAMES)), dtype=np.int64)  # per seat, since
        draw_card = engine._draw_card

        def witnessed_draw() -> int | None:
            seat = next(s for s in range(engine.num_players) if engine.hand_size[s] < engine.config.hand_size)
            if not engine.draw:
                self.new_pile = engine.discard.astype(np.int64)
                self.drawn[:] = 0
            kind = draw_card()
            if kind is not None:
                self.drawn[seat, kind] += 1
            return kind

        engine._draw_card = witnessed_draw


def check_world(world: PiratenpokerEngine, truth: PiratenpokerEngine, seat: int, witness: PileWitness) -> None:
    """``world`` (``truth`` resampled from ``seat``) is a possible state for ``seat`` after the reshuffle."""
    deck = DECK_COUNTS.astype(np.int64)
    pile = np.bincount(world.draw, minlength=len(POKER_NAMES))
    held = world.cards.sum(axis=1)  # per seat: hand and bid
    assert (held.sum(axis=0) + pile + world.discard == deck).all(), "cards were created or lost"
    assert world.view(seat) == truth.view(seat)
    assert (held[seat] == truth.cards[seat].sum(axis=0)).all()
    unseen = deck - held[seat] - world.discard  # what the seat cannot see as elsewhere
    assert (pile <= unseen).all(), "the draw pile holds a card the seat sees elsewhere"
    # public: the pile is the reshuffled discard less the cards drawn since (the seat knows his own)
    possible = witness.new_pile - witness.drawn[seat]
    excess = np.maximum(pile - possible, 0)
    assert not excess.any(), (
        f"the draw pile holds {names_of(excess, POKER_NAMES)} beyond the reshuffled discard less the seat's draws"
    )
    assert len(world.draw) == len(truth.draw)
    assert (held.sum(axis=1) == truth.cards.sum(axis=(1, 2))).all(), "a seat holds another number of cards"


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_resample_after_a_reshuffle_keeps_the_pile_to_the_reshuffled_discard(num_players):
    """Every world ``resample_hidden`` makes after a reshuffle is possible for the resampling seat."""
    rng = np.random.default_rng(num_players)
    worlds = 0
    for game in range(RESHUFFLE_GAMES):
        engine = PiratenpokerEngine(Config(num_players=num_players))
        witness = PileWitness(engine)
        engine.reset(np.random.default_rng(1000 * num_players + game))
        for _ in range(RESHUFFLE_DECISIONS):
            if engine.done:
                break
            if witness.new_pile is not None:
                for seat in range(num_players):
                    world = copy.deepcopy(engine)
                    world.resample_hidden(seat, np.random.default_rng(rng.integers(1 << 30)))
                    check_world(world, engine, seat, witness)
                    worlds += 1
            engine.apply(int(rng.choice(engine.legal_actions())))
    assert worlds >= MIN_WORLDS_AFTER_RESHUFFLE
