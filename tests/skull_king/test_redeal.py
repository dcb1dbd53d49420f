"""Redealing hidden cards under public voids."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pirate_envs.skull_king.rules as rules
from pirate_envs.skull_king.cards import counts_of, kind_index, suit_of
from pirate_envs.skull_king.engine import Config, SkullKingEngine
from pirate_envs.skull_king.rules import _constructive_deal, redeal

NO_VOIDS = (False, False, False, False)
YELLOW_VOID = (True, False, False, False)
RED_VOID = (False, True, False, False)


def pool_of(names: list[str]) -> np.ndarray:
    return np.array([kind_index(n) for n in names])


@pytest.mark.parametrize("deal", [redeal, _constructive_deal])
def test_the_only_consistent_deal_is_found(deal) -> None:
    pool = pool_of(["yellow-1", "yellow-2", "red-1", "red-2"])
    voids = {0: YELLOW_VOID, 1: RED_VOID}
    for seed in range(5):
        hands = deal(pool, {0: 2, 1: 2}, voids, np.random.default_rng(seed))
        assert sorted(hands[0].tolist()) == [kind_index("red-1"), kind_index("red-2")]
        assert sorted(hands[1].tolist()) == [kind_index("yellow-1"), kind_index("yellow-2")]


@pytest.mark.parametrize("deal", [redeal, _constructive_deal])
def test_impossible_voids_give_none(deal) -> None:
    pool = pool_of(["yellow-1", "yellow-2"])
    assert deal(pool, {0: 1, 1: 1}, {0: YELLOW_VOID, 1: YELLOW_VOID}, np.random.default_rng(0)) is None


def test_deals_keep_sizes_cards_and_voids() -> None:
    names = [f"{s}-{r}" for s in ("yellow", "red", "blue") for r in range(1, 8)] + ["escape"] * 4 + ["pirate"]
    pool = pool_of(names)
    sizes = {0: 5, 2: 5, 3: 4}
    voids = {0: YELLOW_VOID, 2: RED_VOID, 3: NO_VOIDS}
    rng = np.random.default_rng(3)
    for _ in range(50):
        hands = redeal(pool, sizes, voids, rng)
        assert {s: len(h) for s, h in hands.items()} == sizes
        dealt = [n for h in hands.values() for n in h.tolist()]
        assert (np.bincount(dealt, minlength=57) <= np.bincount(pool, minlength=57)).all()
        for s, h in hands.items():
            assert all(suit_of(k) < 0 or not voids[s][suit_of(k)] for k in h.tolist())
    assert counts_of(names).sum() == len(pool)


def test_without_voids_every_card_is_equally_likely_anywhere() -> None:
    pool = pool_of([f"blue-{r}" for r in range(1, 11)])
    rng = np.random.default_rng(0)
    held_by_0 = np.zeros(57)
    trials = 4000
    for _ in range(trials):
        hands = redeal(pool, {0: 3, 1: 3}, {0: NO_VOIDS, 1: NO_VOIDS}, rng)
        held_by_0[hands[0]] += 1
    # each of the 10 cards is in seat 0's 3 cards with probability 0.3
    assert np.allclose(held_by_0[pool] / trials, 0.3, atol=0.04)


def test_constructive_deal_moves_placed_cards_to_make_room() -> None:
    # seat 0 (void in yellow) must hold both reds, seat 1 (void in red) both yellows; placing the
    # escapes first can fill a seat, and then cards already placed must move to make room
    pool = pool_of(["yellow-1", "yellow-2", "red-1", "red-2", "escape", "escape"])
    voids = {0: YELLOW_VOID, 1: RED_VOID}
    for seed in range(200):
        hands = _constructive_deal(pool, {0: 3, 1: 3}, voids, np.random.default_rng(seed))
        assert sorted(hands[0].tolist()) == sorted(pool_of(["red-1", "red-2", "escape"]).tolist())
        assert sorted(hands[1].tolist()) == sorted(pool_of(["yellow-1", "yellow-2", "escape"]).tolist())


def test_resample_never_keeps_the_true_hands_for_want_of_a_deal(monkeypatch) -> None:
    """With the uniform tries switched off, the constructive deal alone must redeal the hands."""
    monkeypatch.setattr(rules, "REJECTION_TRIES", 0)
    monkeypatch.setattr(rules, "GREEDY_TRIES", 0, raising=False)  # the fallback of older code
    engine = SkullKingEngine(Config())
    rng = np.random.default_rng(5)
    engine.reset(rng, {"first_hand": 8})
    while not any(any(v) for v in engine.voids[1:]):  # play until another seat shows a void
        engine.apply(int(rng.choice(engine.legal_actions())))
    truth = engine.hands.copy()
    changed = 0
    for seed in range(20):
        world = copy.deepcopy(engine)
        world.resample_hidden(0, np.random.default_rng(seed))
        changed += not np.array_equal(world.hands[1:], truth[1:])
        for s in range(1, engine.num_players):
            held_suits = {suit_of(k) for k in np.flatnonzero(world.hands[s])}
            assert not any(engine.voids[s][suit] for suit in held_suits if suit >= 0)
    assert changed >= 15
