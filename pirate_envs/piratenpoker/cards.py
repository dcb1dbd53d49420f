"""Piratenpoker card names and rule constants: poker cards, loot cards and displayed loot.

Poker cards are named ``"<colour>-<value>"`` (``"green-5"``). A poker *kind* is an index
``0..23``, colour-major: ``kind = colour * 8 + value - 1`` (green 1..8, red 1..8, yellow 1..8).

A loot card has a colour and a front value (+5, +6, +8, +10); its back is fixed by the front
(``BACK_OF_FRONT``): +5 carries a shark (worth +4), +6/-3, +8/-4, +10/-5. Displayed loot is
named ``"green:+8"`` (front side up), ``"red:-4"`` (back side up) or ``"yellow:shark"`` (a
shark back, worth 4). A displayed *kind* is an index ``0..23``:
``colour * 8 + side * 4 + front_index`` with side 0 = front, 1 = back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

COLOURS: tuple[str, ...] = ("green", "red", "yellow")
NUM_COLOURS = len(COLOURS)
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}

# ----------------------------------------------------------------------------- poker cards
MIN_VALUE, MAX_VALUE = 1, 8
VALUES_PER_COLOUR = MAX_VALUE - MIN_VALUE + 1
#: Copies of each value in one colour (28 cards per colour, 84 in all).
COPIES_OF_VALUE: dict[int, int] = {1: 1, 2: 2, 3: 4, 4: 7, 5: 7, 6: 4, 7: 2, 8: 1}
NUM_POKER_KINDS = NUM_COLOURS * VALUES_PER_COLOUR
HAND_SIZE = 6
#: Round 3: poker cards of the last loot card's colour count this many times.
COLOUR_MULTIPLIER = 2

POKER_NAMES: tuple[str, ...] = tuple(f"{c}-{v}" for c in COLOURS for v in range(MIN_VALUE, MAX_VALUE + 1))
POKER_INDEX: dict[str, int] = {name: k for k, name in enumerate(POKER_NAMES)}
#: Face value and colour index of every poker kind.
KIND_VALUE: tuple[int, ...] = tuple(v for _ in COLOURS for v in range(MIN_VALUE, MAX_VALUE + 1))
KIND_COLOUR: tuple[int, ...] = tuple(c for c in range(NUM_COLOURS) for _ in range(VALUES_PER_COLOUR))
#: Copies of values 1..8 in each colour, in value order (the ``poker_copies`` option's default).
DEFAULT_POKER_COPIES: tuple[int, ...] = tuple(COPIES_OF_VALUE[v] for v in range(MIN_VALUE, MAX_VALUE + 1))


def deck_counts(poker_copies: Sequence[int]) -> np.ndarray:
    """Copies of every poker kind in a deck holding ``poker_copies[v - 1]`` cards of value ``v`` per colour."""
    return np.array([poker_copies[v - MIN_VALUE] for v in KIND_VALUE], dtype=np.int16)


#: Copies of every poker kind in the full deck.
DECK_COUNTS: np.ndarray = deck_counts(DEFAULT_POKER_COPIES)
DECK_SIZE = int(DECK_COUNTS.sum())

# ----------------------------------------------------------------------------- loot cards
FRONT_VALUES: tuple[int, ...] = (5, 6, 8, 10)
FRONT_INDEX: dict[int, int] = {v: i for i, v in enumerate(FRONT_VALUES)}
SHARK = "shark"
SHARK_VALUE = 4
#: The back of each front value: a negative number, or the shark.
BACK_OF_FRONT: dict[int, int | str] = {5: SHARK, 6: -3, 8: -4, 10: -5}
#: Loot cards per colour (an assumption, see ``docs/rulings.md``): 2x+5, 2x+6, 2x+8, 1x+10.
DEFAULT_LOOT_FRONTS: tuple[int, ...] = (5, 5, 6, 6, 8, 8, 10)
#: Bonus for each complete set of three sharks, and for each set of three equal front values.
SET_SIZE = 3
SET_BONUS = 5

FRONT_SIDE, BACK_SIDE = 0, 1
NUM_FRONTS = len(FRONT_VALUES)
NUM_DISPLAYED_KINDS = NUM_COLOURS * 2 * NUM_FRONTS


def displayed_kind(colour: int, side: int, front_index: int) -> int:
    """Index of a displayed loot card (colour, side, front value index)."""
    return colour * 2 * NUM_FRONTS + side * NUM_FRONTS + front_index


def _side_label(side: int, front: int) -> str:
    if side == FRONT_SIDE:
        return f"+{front}"
    back = BACK_OF_FRONT[front]
    return SHARK if back == SHARK else str(back)


def _side_points(side: int, front: int) -> int:
    if side == FRONT_SIDE:
        return front
    back = BACK_OF_FRONT[front]
    return SHARK_VALUE if back == SHARK else int(back)


_DISPLAYED = [(c, s, f) for c in range(NUM_COLOURS) for s in (FRONT_SIDE, BACK_SIDE) for f in FRONT_VALUES]
DISPLAYED_NAMES: tuple[str, ...] = tuple(f"{COLOURS[c]}:{_side_label(s, f)}" for c, s, f in _DISPLAYED)
DISPLAYED_INDEX: dict[str, int] = {name: i for i, name in enumerate(DISPLAYED_NAMES)}
#: Points of every displayed kind (front value, negative back, or 4 for a shark).
DISPLAYED_POINTS: tuple[int, ...] = tuple(_side_points(s, f) for _, s, f in _DISPLAYED)
IS_SHARK: tuple[bool, ...] = tuple(s == BACK_SIDE and BACK_OF_FRONT[f] == SHARK for _, s, f in _DISPLAYED)
IS_FRONT: tuple[bool, ...] = tuple(s == FRONT_SIDE for _, s, _f in _DISPLAYED)
#: Displayed kinds showing a negative number (the cards a round-2 winner may give away).
NEGATIVE_KINDS: tuple[int, ...] = tuple(i for i, p in enumerate(DISPLAYED_POINTS) if p < 0)


def names_of(counts: np.ndarray, names: Sequence[str]) -> list[str]:
    """One name per counted item: ``counts[k]`` copies of ``names[k]`` (e.g. a hand as card names)."""
    out: list[str] = []
    for k in np.flatnonzero(counts).tolist():
        out += [names[k]] * int(counts[k])
    return out


def parse_poker_card(name: str) -> int:
    """The poker kind of a card name such as ``"green-5"`` (``ValueError`` if unknown)."""
    try:
        return POKER_INDEX[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"poker card {name!r} is not valid; expected '<colour>-<value>' with colour in "
            f"{list(COLOURS)} and value in {MIN_VALUE}..{MAX_VALUE}, e.g. 'green-5'"
        ) from None


def parse_displayed(name: str) -> int:
    """The displayed kind of a loot name such as ``"green:+8"``, ``"red:-4"``, ``"yellow:shark"``."""
    try:
        return DISPLAYED_INDEX[name]
    except (KeyError, TypeError):
        raise ValueError(f"displayed loot {name!r} is not valid; expected one of {list(DISPLAYED_NAMES)}") from None


def parse_colour(name: str) -> int:
    """The index of a colour name (``ValueError`` naming the valid colours)."""
    try:
        return COLOUR_INDEX[name]
    except (KeyError, TypeError):
        raise ValueError(f"colour {name!r} is not valid; expected one of {list(COLOURS)}") from None
