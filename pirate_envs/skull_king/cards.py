"""The Skull King deck (first edition): card names, card kinds, trick tokens.

Cards are handled as small integers:

* a **card kind** (``0..56``) names a card in a hand or in the deck. Kinds ``0..51`` are the
  suit cards, ``suit * 13 + rank - 1`` with the suits yellow, red, blue, black (black is
  trump); then ``escape``, ``pirate``, ``mermaid``, ``skull_king``, ``scary_mary``. Identical
  cards (5 Escapes, 5 Pirates, 2 Mermaids) share one kind.
* a **trick token** (``0..57``) names a card as played into a trick. It equals the kind for
  every card but Scary Mary, who is played as ``scary_mary:pirate`` (56) or
  ``scary_mary:escape`` (57).

Names are ``yellow-7``, ``red-13``, ``blue-1``, ``black-5``, ``escape``, ``pirate``,
``mermaid``, ``skull_king``, ``scary_mary`` (``scary_mary:pirate`` / ``scary_mary:escape``
inside a trick).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

SUITS: tuple[str, ...] = ("yellow", "red", "blue", "black")
NUM_SUITS = len(SUITS)
#: The trump suit (the skull and crossbones flag).
TRUMP_SUIT = SUITS.index("black")
NUM_RANKS = 13
NUM_SUIT_CARDS = NUM_SUITS * NUM_RANKS
#: ``led_suit`` value while no suit card has been played in the trick.
NO_SUIT = -1

# Card kinds of the special cards.
ESCAPE = NUM_SUIT_CARDS
PIRATE = ESCAPE + 1
MERMAID = ESCAPE + 2
SKULL_KING = ESCAPE + 3
SCARY_MARY = ESCAPE + 4
NUM_KINDS = SCARY_MARY + 1

# Trick tokens of Scary Mary's two modes (every other token equals its card kind).
MARY_PIRATE = SCARY_MARY
MARY_ESCAPE = SCARY_MARY + 1
NUM_TOKENS = MARY_ESCAPE + 1

KIND_NAMES: tuple[str, ...] = tuple(f"{s}-{r}" for s in SUITS for r in range(1, NUM_RANKS + 1)) + (
    "escape",
    "pirate",
    "mermaid",
    "skull_king",
    "scary_mary",
)
TOKEN_NAMES: tuple[str, ...] = KIND_NAMES[:SCARY_MARY] + ("scary_mary:pirate", "scary_mary:escape")

#: Copies of each card kind in the deck.
COPIES: tuple[int, ...] = (1,) * NUM_SUIT_CARDS + (5, 5, 2, 1, 1)
DECK_SIZE = sum(COPIES)
assert DECK_SIZE == 66 and len(KIND_NAMES) == NUM_KINDS and len(TOKEN_NAMES) == NUM_TOKENS

#: The 66 physical cards as card kinds.
DECK: np.ndarray = np.repeat(np.arange(NUM_KINDS, dtype=np.int64), COPIES)
#: The special cards, in kind order, with their copies in the full deck (``specials`` of a short deck).
SPECIAL_NAMES: tuple[str, ...] = KIND_NAMES[ESCAPE:]
SPECIAL_COPIES: tuple[int, ...] = COPIES[ESCAPE:]


def deck_copies(suits: Iterable[int], ranks: int, specials: Iterable[int]) -> tuple[int, ...]:
    """Copies of each card kind in a deck of ranks ``1..ranks`` of the suits ``suits`` (indices into
    `SUITS`) and ``specials[i]`` copies of special ``SPECIAL_NAMES[i]`` (callers check the values)."""
    copies = [0] * NUM_KINDS
    for suit in suits:
        copies[suit * NUM_RANKS : suit * NUM_RANKS + ranks] = [1] * ranks
    copies[ESCAPE:] = list(specials)
    return tuple(copies)


#: Card kind of each trick token.
KIND_OF_TOKEN: np.ndarray = np.array(list(range(SCARY_MARY)) + [SCARY_MARY, SCARY_MARY], dtype=np.int64)
#: Tokens that count as a Pirate for the Skull King bonus (Scary Mary in either mode).
BONUS_PIRATE_TOKENS = frozenset({PIRATE, MARY_PIRATE, MARY_ESCAPE})

_KIND_INDEX = {name: i for i, name in enumerate(KIND_NAMES)}
_TOKEN_INDEX = {name: i for i, name in enumerate(TOKEN_NAMES)}


def kind_index(name: str) -> int:
    """The card kind of a hand card name (``scary_mary``, not one of her modes)."""
    return _lookup(_KIND_INDEX, name, "card", KIND_NAMES)


def token_index(name: str) -> int:
    """The trick token of a played card name (Scary Mary as ``scary_mary:pirate``/``:escape``)."""
    return _lookup(_TOKEN_INDEX, name, "trick card", TOKEN_NAMES)


def _lookup(index: dict[str, int], name: str, what: str, names: tuple[str, ...]) -> int:
    """``index[name]``, or a ``ValueError`` listing the valid special-card names."""
    try:
        return index[name]
    except KeyError:
        specials = list(names[ESCAPE:])
        raise ValueError(
            f"unknown {what} {name!r}; expected a suit card like 'yellow-7' or one of {specials}"
        ) from None


def suit_of(token: int) -> int:
    """The suit index of a token, or ``NO_SUIT`` for a special card."""
    return token // NUM_RANKS if token < NUM_SUIT_CARDS else NO_SUIT


def rank_of(token: int) -> int:
    """The rank (1..13) of a suit card token."""
    return token % NUM_RANKS + 1


def counts_of(names: Iterable[str]) -> np.ndarray:
    """Per-kind counts (``int8``, length ``NUM_KINDS``) of hand card names, checked against the deck."""
    counts = np.zeros(NUM_KINDS, dtype=np.int8)
    for name in names:
        counts[kind_index(name)] += 1
    over = np.flatnonzero(counts > np.asarray(COPIES))
    if over.size:
        kind = int(over[0])
        raise ValueError(f"too many {KIND_NAMES[kind]!r} cards: the deck has {COPIES[kind]}")
    return counts


def names_of(counts: np.ndarray) -> list[str]:
    """Hand card names (one per physical card, in kind order) from per-kind counts."""
    return [KIND_NAMES[k] for k in np.flatnonzero(counts) for _ in range(int(counts[k]))]
