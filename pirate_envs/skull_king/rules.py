"""Skull King (first edition) rules: constants and pure helpers (no state, no gymnasium or pettingzoo).

The helpers on card names (see `pirate_envs.skull_king.cards`):

* `legal_cards` (the distinct playable cards of a hand, sorted),
* `trick_winner` (index in play order of the card that wins a trick),
* `trick_bonus` (the bonus the winner earns if his bid is made),
* `hand_score` (one player's score for one hand).

Each is the named-card face of an integer function the engine calls on its hot path
(`playable_card_actions`, `winner_of_tokens`, `bonus_of_tokens`); ``hand_score``
is called as it is. `redeal` deals hidden cards consistently with the public voids (for
the engine's ``resample_hidden``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from pirate_envs.core.chance import Chance

from pirate_envs.core.errors import check_range
from pirate_envs.skull_king.actions import ACTIONS, CARD_OFFSET, MAX_BID
from pirate_envs.skull_king.cards import (
    BONUS_PIRATE_TOKENS,
    COPIES,
    KIND_NAMES,
    KIND_OF_TOKEN,
    MARY_PIRATE,
    MERMAID,
    NO_SUIT,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUIT_CARDS,
    NUM_SUITS,
    PIRATE,
    SKULL_KING,
    TRUMP_SUIT,
    counts_of,
    kind_index,
    suit_of,
    token_index,
)

# ----------------------------------------------------------------------------- rule constants
MIN_PLAYERS = 2
MAX_PLAYERS = 6
DEFAULT_PLAYERS = 4
#: Hands in a game; hand k deals k cards to each player.
DEFAULT_HANDS = 10
#: The most hands (and cards per hand) a game may have: the highest bid the action space holds.
MAX_HANDS = MAX_BID
POINTS_PER_TRICK_BID = 20
PENALTY_PER_TRICK_MISSED = 10
ZERO_BID_POINTS_PER_HAND = 10
PIRATE_CAUGHT_BONUS = 30
SKULL_KING_CAUGHT_BONUS = 50

# ----------------------------------------------------------------------------- integer core
_SUIT_SLICES = tuple(slice(s * NUM_RANKS, (s + 1) * NUM_RANKS) for s in range(NUM_SUITS))
#: Per led suit, the card actions a player holding that suit may choose: the suit and the specials.
_FOLLOW_ACTIONS = np.zeros((NUM_SUITS, len(ACTIONS)), dtype=np.int8)
for _suit in range(NUM_SUITS):
    _FOLLOW_ACTIONS[_suit, CARD_OFFSET + _suit * NUM_RANKS : CARD_OFFSET + (_suit + 1) * NUM_RANKS] = 1
    _FOLLOW_ACTIONS[_suit, CARD_OFFSET + NUM_SUIT_CARDS :] = 1


def led_suit_of(tokens: Sequence[int]) -> int:
    """The suit to follow: that of the first suit card in the trick (``NO_SUIT`` if none yet)."""
    for t in tokens:
        if t < NUM_SUIT_CARDS:
            return t // NUM_RANKS
    return NO_SUIT


def held_card_actions(hand_counts: np.ndarray) -> np.ndarray:
    """``int8`` mask over ``ACTIONS`` of the card actions of a hand (per-kind counts), legal or not.

    Works row by row on a stack of hands (shape ``(..., NUM_KINDS)``).
    """
    held = np.zeros((*hand_counts.shape[:-1], len(ACTIONS)), dtype=np.int8)
    held[..., CARD_OFFSET:] = hand_counts[..., KIND_OF_TOKEN] > 0
    return held


def playable_card_actions(held: np.ndarray, led_suit: int, holds_led_suit: bool) -> np.ndarray:
    """The legal card actions (a new ``int8`` mask) of a hand whose card actions are ``held``.

    Special cards may always be played; a player holding the suit to follow (``led_suit``, the
    suit of the first suit card of the trick) must otherwise follow it.
    """
    if holds_led_suit and led_suit != NO_SUIT:
        return held & _FOLLOW_ACTIONS[led_suit]
    return held.copy()


def winner_of_tokens(trick: Sequence[int]) -> int:
    """Index in play order of the winning token (first matching rule, as in `trick_winner`)."""
    if SKULL_KING in trick:
        if MERMAID in trick:
            return trick.index(MERMAID)
        return trick.index(SKULL_KING)
    for i, t in enumerate(trick):
        if t in (PIRATE, MARY_PIRATE):
            return i
    if MERMAID in trick:
        return trick.index(MERMAID)
    best, best_token = -1, -1
    for suit in (TRUMP_SUIT, led_suit_of(trick)):
        if suit == NO_SUIT:
            break
        for i, t in enumerate(trick):
            if suit_of(t) == suit and t > best_token:
                best, best_token = i, t
        if best >= 0:
            return best
    return 0  # only Escapes (Scary Mary as Escape included): the first one wins


def bonus_of_tokens(trick: Sequence[int]) -> int:
    """The bonus the trick's winner earns if his bid is made."""
    if SKULL_KING not in trick:
        return 0
    if MERMAID in trick:
        return SKULL_KING_CAUGHT_BONUS
    return PIRATE_CAUGHT_BONUS * sum(1 for t in trick if t in BONUS_PIRATE_TOKENS)


def _tokens_of(trick: Sequence[str]) -> list[int]:
    """Trick tokens of played card names, checked (non-empty, no more copies than the deck)."""
    if len(trick) == 0:
        raise ValueError("trick must hold at least one card")
    tokens = [token_index(name) for name in trick]
    kinds = np.bincount(KIND_OF_TOKEN[tokens], minlength=NUM_KINDS)
    over = np.flatnonzero(kinds > np.asarray(COPIES))
    if over.size:
        raise ValueError(f"trick holds too many {KIND_NAMES[int(over[0])]!r} cards")
    return tokens


# ----------------------------------------------------------------------------- pure helpers
def legal_cards(hand: Sequence[str], trick: Sequence[str]) -> list[str]:
    """The distinct cards of ``hand`` that may be played into ``trick`` (names, sorted).

    ``hand`` holds card names (``scary_mary`` is one card); ``trick`` holds the cards already
    played, in order (Scary Mary as ``scary_mary:pirate`` or ``scary_mary:escape``). A player
    holding the suit of the first suit card of the trick must play that suit or a special card.
    """
    counts = counts_of(hand)
    led = led_suit_of([token_index(name) for name in trick])
    holds_led_suit = led != NO_SUIT and bool(counts[_SUIT_SLICES[led]].any())
    playable = playable_card_actions(held_card_actions(counts), led, holds_led_suit)
    tokens = np.flatnonzero(playable) - CARD_OFFSET
    return sorted({KIND_NAMES[k] for k in KIND_OF_TOKEN[tokens]})


def trick_winner(trick: Sequence[str]) -> int:
    """Index in play order of the card that wins the trick.

    First matching rule: Skull King with a Mermaid: the first Mermaid; the Skull King; the first
    Pirate (``scary_mary:pirate`` included); the first Mermaid; the highest black; the highest
    card of the led suit; only Escapes (``scary_mary:escape`` included): the first one.
    """
    return winner_of_tokens(_tokens_of(trick))


def trick_bonus(trick: Sequence[str]) -> int:
    """The bonus the trick's winner earns if his bid is made.

    +50 when a Mermaid catches the Skull King; +30 per Pirate caught by the Skull King (Scary
    Mary counts as a Pirate even when played as an Escape); otherwise 0.
    """
    return bonus_of_tokens(_tokens_of(trick))


def hand_score(bid: int, tricks: int, hand_number: int, bonus: int) -> int:
    """One player's score for hand ``hand_number`` (which deals ``hand_number`` cards).

    Bid ``b > 0`` made exactly: ``20 * b + bonus``; missed: ``-10 * |tricks - b|`` (no bonus).
    Bid 0 made: ``+10 * hand_number``; missed (any number of tricks): ``-10 * hand_number``.
    """
    check_range("hand_number", hand_number, 1)
    check_range("bid", bid, 0, hand_number)
    check_range("tricks", tricks, 0, hand_number)
    check_range("bonus", bonus, 0)
    if bonus and not tricks:
        raise ValueError(f"bonus={bonus} needs at least one trick won; tricks=0")
    if bid == 0:
        points = ZERO_BID_POINTS_PER_HAND * hand_number
        return points if tricks == 0 else -points
    if tricks == bid:
        return POINTS_PER_TRICK_BID * bid + bonus
    return -PENALTY_PER_TRICK_MISSED * abs(tricks - bid)


# ----------------------------------------------------------------------------- redeal
#: Uniform shuffles tried before the constructive fallback.
REJECTION_TRIES = 200
#: Pseudo-seat of the undealt cards in the constructive fallback.
_DECK = -1
#: The "suit" column of special cards in a seat's forbidden-suit row (never forbidden).
_SPECIAL_COLUMN = NUM_SUITS
_SUIT_COLUMN_OF_KIND = np.array([k // NUM_RANKS if k < NUM_SUIT_CARDS else _SPECIAL_COLUMN for k in range(NUM_KINDS)])


def redeal(
    pool: np.ndarray,
    sizes: Mapping[int, int],
    voids: Mapping[int, Sequence[bool]],
    rng: Chance | np.random.Generator,
) -> dict[int, np.ndarray] | None:
    """Deal the card kinds of ``pool`` into hands of ``sizes`` (seat -> count); the rest stays undealt.

    No seat gets a card of a suit it is void in (``voids[seat][suit]``). Uniform over such deals
    by rejection sampling; if that keeps failing (many voids), a constructive deal that always
    finds a consistent deal when one exists. ``None`` only if no deal respects the voids.
    """
    seats = list(sizes)
    forbidden = {s: np.array([*voids[s], False]) for s in seats}
    constrained = [s for s in seats if forbidden[s].any()]
    columns = _SUIT_COLUMN_OF_KIND[pool]
    cuts = np.cumsum([sizes[s] for s in seats])
    for _ in range(1 if not constrained else REJECTION_TRIES):
        order = rng.permutation(len(pool))
        parts = dict(zip(seats, np.split(order[: cuts[-1]], cuts[:-1])))
        if not any(forbidden[s][columns[parts[s]]].any() for s in constrained):
            return {s: pool[parts[s]] for s in seats}
    return _constructive_deal(pool, sizes, voids, rng)


def _constructive_deal(
    pool: np.ndarray,
    sizes: Mapping[int, int],
    voids: Mapping[int, Sequence[bool]],
    rng: Chance | np.random.Generator,
) -> dict[int, np.ndarray] | None:
    """Place the cards in random order, each by an augmenting path (a bipartite b-matching).

    A card goes to a random seat (or the undealt rest) that may hold it and has room; when none
    has, cards already placed move along to make room. This finds a deal respecting the voids
    whenever one exists (not uniformly drawn), and never depends on who holds what now.
    """
    suits = [suit_of(int(k)) for k in pool]
    room = {**sizes, _DECK: len(pool) - sum(sizes.values())}
    if room[_DECK] < 0:
        return None
    allowed = [[d for d in room if d == _DECK or suits[i] < 0 or not voids[d][suits[i]]] for i in range(len(pool))]
    held: dict[int, list[int]] = {d: [] for d in room}

    def place(card: int, seen: set[int]) -> bool:
        """Put ``card`` somewhere, moving placed cards through destinations not yet in ``seen``."""
        options = [allowed[card][j] for j in rng.permutation(len(allowed[card]))]
        for d in options:
            if d not in seen and len(held[d]) < room[d]:
                held[d].append(card)
                return True
        for d in options:
            if d in seen:
                continue
            seen.add(d)
            for other in list(held[d]):
                if place(other, seen):
                    held[d].remove(other)
                    held[d].append(card)
                    return True
        return False

    for card in rng.permutation(len(pool)).tolist():
        if not place(card, set()):
            return None
    return {s: pool[np.array(held[s], dtype=np.int64)] for s in sizes}


__all__ = [
    "DEFAULT_HANDS",
    "DEFAULT_PLAYERS",
    "MAX_HANDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "bonus_of_tokens",
    "hand_score",
    "held_card_actions",
    "kind_index",
    "led_suit_of",
    "legal_cards",
    "playable_card_actions",
    "redeal",
    "token_index",
    "trick_bonus",
    "trick_winner",
    "winner_of_tokens",
]
