"""Two histories a seat cannot tell apart give it the same resampled worlds, in every game.

``resample_hidden(seat, rng)`` may use only what ``seat`` can know. Each test builds two games
that look the same to seat 0 (equal View) but differ in what it cannot see, at a moment after
each reshuffle or pick-up the rules have: Piratenpoker's discard reshuffled into a new draw pile
while older cards are still held (a card revealed later may have come from either pile), Skull
King's deck reshuffled for the next hand, Lucky Pirate's pile picked up, Kapern's fortune deck
reshuffled. Both are redrawn with equal seeds through `SortedDraws` (the hidden cards sorted
before each shuffle, so their current order does not count): the worlds must be equal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import pirate_envs
from agents.search.ismcts import CanonicalDraws
from pirate_envs.core.chance import Chance
from pirate_envs.piratenpoker.cards import DECK_SIZE
from pirate_envs.piratenpoker.engine import Config, Phase, PiratenpokerEngine
from pirate_envs.skull_king.cards import NUM_RANKS, NUM_SUIT_CARDS
from tests.piratenpoker.test_engine import bid

WORLDS = 200  # seeds per pair of histories


#: The search's canonical draws: a 1-D input of ``permutation`` or ``shuffle`` sorted first.
SortedDraws = CanonicalDraws


class PileTop(Chance):
    """Shuffles by putting ``top`` (card kinds, first drawn first) on top of the sorted rest."""

    def __init__(self, top: list[int]):
        self.top = top

    def permutation(self, items: Any) -> np.ndarray:
        rest = sorted(np.asarray(items).tolist())
        for kind in self.top:
            rest.remove(kind)
        return np.array(rest + self.top[::-1], dtype=np.asarray(items).dtype)

    def shuffle(self, items: list) -> None:
        items[:] = self.permutation(items).tolist()

    def integers(self, low: int, high: int | None = None) -> int:
        raise AssertionError("not drawn in this script")

    def roll_dice(self, n: int) -> tuple[int, ...]:
        raise AssertionError("not drawn in this script")

    def clone(self) -> PileTop:
        return PileTop(list(self.top))


def worlds(engine: Any, seat: int, hidden: Any) -> list[Any]:
    """``hidden(world)`` of ``WORLDS`` worlds redrawn for ``seat`` with seeds 0, 1, ..."""
    out = []
    for seed in range(WORLDS):
        world = engine.clone()
        world.resample_hidden(seat, SortedDraws(np.random.default_rng(seed)))
        assert world.view(seat) == engine.view(seat)
        out.append(hidden(world))
    return out


def same_worlds(first: Any, second: Any, hidden: Any, seat: int = 0) -> None:
    assert first.view(seat) == second.view(seat), "the two histories must look the same to the seat"
    assert hidden(first) != hidden(second), "the two histories must differ in what the seat cannot see"
    a, b = worlds(first, seat, hidden), worlds(second, seat, hidden)
    differ = sum(x != y for x, y in zip(a, b))
    assert differ == 0, f"{differ} of {WORLDS} worlds differ between two histories the seat cannot tell apart"


# ----------------------------------------------------------------------------- Piratenpoker
POKER = {name: k for k, name in enumerate(pirate_envs.piratenpoker.cards.POKER_NAMES)}


def piratenpoker_hidden(engine: PiratenpokerEngine) -> tuple:
    return engine.cards.tolist(), list(engine.draw), [list(s) for s in engine.stacks], engine.passed


def piratenpoker_history(green_four_drawn: bool) -> PiratenpokerEngine:
    """Seat 2 reveals a green-4 after the discard was reshuffled while he still held older cards.

    In the first history it was dealt to him at the start (seat 1 held a yellow-5); in the second
    seat 1 was dealt the green-4, seat 2 the yellow-5, and seat 2 drew a green-4 from the new pile.
    Everything seat 0 sees is the same.
    """
    engine = PiratenpokerEngine(Config(num_players=3))
    own = ["green-4", "yellow-5"] if green_four_drawn else ["yellow-5", "green-4"]
    hands = [
        ["red-1", "red-2", "red-3", "red-4", "red-5", "red-6"],
        ["red-7", "red-8", "green-1", "green-2", "green-3", own[0]],
        ["yellow-6", "yellow-7", "yellow-8", "green-5", "green-6", own[1]],
    ]
    options = {"hands": hands, "deck": ["yellow-1", "yellow-2", "yellow-3"], "rest_to_discard": True}
    engine.reset(np.random.default_rng(7), options)
    rounds = [("red-1", "red-7", "yellow-6"), ("red-2", "red-8", "yellow-7"), ("red-3", "green-1", "yellow-8")]
    drawn = ["red-4"] * 3 + (["green-4", "red-5", "red-5"] if green_four_drawn else ["red-5"] * 3)
    for number, cards in enumerate(rounds):
        for seat, card in enumerate(cards):
            if number == 2 and seat == 2:  # his bid ends the game: the refill reshuffles the discard
                engine.chance = PileTop([POKER[c] for c in drawn])  # seat 0 draws the deck, seats 1 and 2 these
            bid(engine, seat, [card])
        while engine.phase != Phase.BID:
            engine.apply(engine.legal_actions()[0])
    for seat, card in enumerate(["red-4", "green-2", "green-4"]):
        bid(engine, seat, [card])
    assert engine.games_played == 2 and engine.discard.sum() == 3, "the discard was reshuffled before this game"
    return engine


def test_piratenpoker_worlds_after_a_reshuffle_depend_only_on_what_the_seat_knows():
    first, second = piratenpoker_history(False), piratenpoker_history(True)
    same_worlds(first, second, piratenpoker_hidden)
    # the worlds keep what seat 0 can tell: seat 2 holds the yellow-5 or another green-4 in some, not in all
    holds = [cards[2][0][POKER["green-4"]] > 0 for cards, *_ in worlds(first, 0, piratenpoker_hidden)]
    assert 0 < sum(holds) < WORLDS


# ----------------------------------------------------------------------------- the other games
def random_moves(engine: Any, rng: np.random.Generator, until: Any, limit: int = 3000) -> None:
    """Random legal moves until ``until(engine)`` holds (the test fails if it never does)."""
    for _ in range(limit):
        if until(engine):
            return
        assert not engine.done, "the game ended before the moment sought"
        engine.apply(int(rng.choice(engine.legal_actions())))
    pytest.fail("the moment sought was not reached")


def skull_king_hidden(engine: Any) -> tuple:
    return engine.hands.tolist(), list(engine.bids)


def same_suit_pairs(engine: Any) -> list[tuple[int, int, int, int]]:
    """``(a, b, x, y)``: other seats ``a`` and ``b`` hold suit cards ``x`` and ``y`` of one suit."""
    hands, seats = engine.hands, range(1, engine.num_players)
    return [
        (a, b, x, y)
        for a in seats
        for b in seats
        if a < b
        for x in np.flatnonzero(hands[a][:NUM_SUIT_CARDS])
        for y in np.flatnonzero(hands[b][:NUM_SUIT_CARDS])
        if x // NUM_RANKS == y // NUM_RANKS and x != y
    ]


@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_skull_king_worlds_after_the_deck_is_reshuffled_for_a_hand(num_players):
    """After the deck is reshuffled for a later hand, two seats hold another card of the same suit."""
    engine = pirate_envs.make("skull_king_v0", raw=True, num_players=num_players).game
    engine.reset(np.random.default_rng(num_players))
    moment = lambda e: e.hand_number >= 3 and e.current_player == 0 and bool(same_suit_pairs(e))  # noqa: E731
    random_moves(engine, np.random.default_rng(1), moment)
    a, b, x, y = same_suit_pairs(engine)[0]
    twin = engine.clone()
    hands = twin.hands.copy()
    hands[a, x], hands[a, y], hands[b, y], hands[b, x] = 0, 1, 0, 1
    twin._set_hands(hands)
    same_worlds(engine, twin, skull_king_hidden)


def lucky_pirate_hidden(engine: Any) -> tuple:
    return engine.hands.tolist(), [list(d) for d in engine.downs], engine.set_aside.tolist()


@pytest.mark.parametrize("num_players", [3, 4])
def test_lucky_pirate_worlds_after_a_pick_up(num_players):
    """After a player picked up the pile, two other hands hold another unseen card."""
    engine = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=num_players).game
    engine.reset(np.random.default_rng(num_players))

    def after_pick_up(e: Any) -> bool:
        unseen = e.hands - e.known
        movable = [
            (a, b)
            for a in range(1, num_players)
            for b in range(1, num_players)
            if a < b and (unseen[a] != unseen[b]).any() and unseen[a].any() and unseen[b].any()
        ]
        return bool(e.known[1:].any()) and e.current_player == 0 and bool(movable)

    random_moves(engine, np.random.default_rng(2), after_pick_up)
    twin = engine.clone()
    unseen = twin.hands - twin.known
    a, b = next(
        (a, b)
        for a in range(1, num_players)
        for b in range(a + 1, num_players)
        if unseen[a].any() and unseen[b].any() and (unseen[a] != unseen[b]).any()
    )
    x = next(k for k in np.flatnonzero(unseen[a]) if unseen[b][k] < unseen[a][k])
    y = next(k for k in np.flatnonzero(unseen[b]) if k != x)
    twin.hands[a, x] -= 1
    twin.hands[a, y] += 1
    twin.hands[b, y] -= 1
    twin.hands[b, x] += 1
    twin._mask = None
    same_worlds(engine, twin, lucky_pirate_hidden)


def kapern_hidden(engine: Any) -> tuple:
    return list(engine.deck), [engine.chance.clone().roll_dice(8) for _ in range(1)]


def test_kapern_worlds_after_the_fortune_deck_is_reshuffled():
    """After the fortune deck ran out and was reshuffled, the undrawn cards lie in another order."""
    deck = (1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0)  # a short deck: reshuffled every four turns
    engine = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=3, fortune_deck=deck).game
    engine.reset(np.random.default_rng(3))
    shuffles, shuffle = [], engine._shuffle_deck
    engine._shuffle_deck = lambda: (shuffles.append(1), shuffle())  # counts the reshuffles
    random_moves(engine, np.random.default_rng(3), lambda e: len(shuffles) >= 2 and len(set(e.deck)) > 1)
    del engine._shuffle_deck
    twin = engine.clone()
    twin.deck.reverse()
    same_worlds(engine, twin, kapern_hidden)


def test_piratenpoker_worlds_of_worlds_keep_every_card_and_every_pile():
    """A world redrawn for one seat and redrawn again for another keeps the deck whole and each pile's
    make-up (what every seat drew from it plus what is left of it), after reshuffles too."""
    rng = np.random.default_rng(5)
    checked = 0
    for game in range(3):
        engine = PiratenpokerEngine(Config(num_players=5))
        engine.reset(np.random.default_rng(game))
        while not engine.done:
            if len(engine.piles.compositions) > 1 and rng.random() < 0.2:
                first, second = (int(s) for s in rng.choice(5, size=2, replace=False))
                world = engine.clone()
                world.resample_hidden(first, rng)
                again = world.clone()
                again.resample_hidden(second, rng)
                assert again.view(second) == world.view(second)
                for w in (world, again):
                    assert w.cards.sum() + w.discard.sum() + len(w.draw) == DECK_SIZE
                    current = np.bincount(w.draw, minlength=len(POKER)).astype(np.int64)
                    for pile, (made, drawn) in enumerate(zip(w.piles.compositions, w.piles.drawn)):
                        left = current if pile == len(w.piles.compositions) - 1 else 0
                        assert (drawn.sum(axis=0) + left == made).all(), f"pile {pile} lost or gained cards"
                checked += 1
            engine.apply(int(rng.choice(engine.legal_actions())))
    assert checked >= 20
