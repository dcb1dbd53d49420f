"""Resampling what one Piratenpoker seat cannot see: the others' hidden bids of this round and their cards."""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np

from pirate_envs.piratenpoker.actions import ACTIONS
from pirate_envs.piratenpoker.cards import DECK_SIZE, HAND_SIZE, POKER_NAMES, names_of
from pirate_envs.piratenpoker.engine import Phase, PiratenpokerEngine
from tests.piratenpoker.test_engine import HANDS, bid, new_engine

RESAMPLES = 2000
PASS = "pass"


def resamples(engine: PiratenpokerEngine, seat: int, count: int = RESAMPLES):
    """``count`` independent resamples of ``engine`` for ``seat``, each checked against his View."""
    view = engine.view(seat)
    rng = np.random.default_rng(11)
    for _ in range(count):
        twin = copy.deepcopy(engine)
        twin.resample_hidden(seat, rng)
        assert twin.view(seat) == view
        poker = twin.hands.sum() + twin.bids.sum() + twin.discard.sum() + len(twin.draw)
        assert poker == DECK_SIZE
        for s, names in enumerate(twin.bid_names):
            assert sorted(names) == names_of(twin.bids[s], POKER_NAMES)
            assert twin.hand_size[s] == twin.hands[s].sum()
        yield twin


def choice(engine: PiratenpokerEngine, s: int) -> str | int:
    """Seat ``s``'s choice of this round: ``"pass"`` or the number of cards in his bid."""
    if engine.passed[s]:
        assert not engine.bid_names[s] and not engine.pass_available[s]
        return PASS
    return len(engine.bid_names[s])


def test_committed_bids_are_redrawn_pass_or_cards_and_how_many():
    engine = new_engine({"hands": HANDS})
    bid(engine, 0, [])  # the Pass
    bid(engine, 1, HANDS[1][:3])
    patterns = Counter((choice(twin, 0), choice(twin, 1)) for twin in resamples(engine, 2))
    # seat 2 cannot tell the true pattern from "seat 0 bid one card, seat 1 passed"
    assert patterns[(PASS, 3)] > 0 and patterns[(1, PASS)] > 0
    options = [PASS, *range(1, HAND_SIZE + 1)]  # both held six cards and the Pass
    for s in (0, 1):
        counts = Counter(pattern[s] for pattern in patterns.elements())
        assert sorted(counts, key=str) == sorted(options, key=str)
        for option in options:  # uniform: 1/7 each, 2,000 draws (standard deviation 0.008)
            assert abs(counts[option] / RESAMPLES - 1 / len(options)) < 0.04, (s, option, counts)


def test_public_facts_bound_the_redrawn_bids():
    hands = [["green-8"], ["red-1", "red-2", "red-3", "red-4", "red-5", "red-6"], ["yellow-1"]]
    engine = new_engine({"hands": hands, "deck": [], "loot": {"green": [8]}})
    bid(engine, 0, names_of(engine.hands[0], POKER_NAMES))  # all six cards: his hand is empty
    bid(engine, 1, [])  # the Pass: spent for this game, as everybody saw at the reveal
    bid(engine, 2, ["yellow-1"])
    engine.apply(engine.legal_actions()[0])  # the winner, seat 0, picks a loot card ...
    while engine.phase != Phase.BID:
        engine.apply(engine.legal_actions()[-1])  # ... and gives it
    assert engine.round == 1 and engine.current_player == 0
    bid(engine, 0, [])  # his only choice: the Pass
    bid(engine, 1, ["red-1", "red-2"])
    seen = Counter((choice(twin, 0), choice(twin, 1)) for twin in resamples(engine, 2, 700))
    assert {c0 for c0, _ in seen} == {PASS}  # no card in hand: the Pass it was
    assert {c1 for _, c1 in seen} == set(range(1, HAND_SIZE + 1))  # six cards, no Pass


def test_the_bid_being_built_is_redrawn_from_nothing_to_every_card():
    engine = new_engine({"hands": HANDS})
    bid(engine, 0, HANDS[0][:1])
    for card in HANDS[1][:2]:
        engine.apply(ACTIONS.from_string(f"bid {card}"))
    assert engine.current_player == 1 and not engine.committed[1]
    sizes = Counter()
    for twin in resamples(engine, 0, 700):
        assert not twin.committed[1] and not twin.passed[1] and twin.pass_available[1]
        sizes[len(twin.bid_names[1])] += 1
        legal = [ACTIONS.to_string(a) for a in twin.legal_actions()]
        assert ("pass" in legal) == (not twin.bid_names[1]) and ("commit bid" in legal) == bool(twin.bid_names[1])
    assert sorted(sizes) == list(range(HAND_SIZE + 1))


def test_revealed_rounds_keep_every_seat_on_his_cards_count():
    engine = new_engine({"hands": HANDS})
    for s in range(3):
        bid(engine, s, HANDS[s][: s + 1])
    assert engine.phase == Phase.PICK_LOOT
    for twin in resamples(engine, 0, 50):
        assert twin.hand_size == engine.hand_size and twin.passed == engine.passed
        assert not twin.bids.any()
        np.testing.assert_array_equal(twin.hands[0], engine.hands[0])
