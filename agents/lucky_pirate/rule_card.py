"""Lucky Pirate's rule-card vocabulary: features of the hand, the pile and the others; moves in words.

Moves play a whole set of one kind (every legal copy): the lowest or the highest number, the
cheapest special card (the heuristic's order: Porthole, Skip, Reverse, Mermaid, Parrot, Walk the
Plank, Captain), a clearing card (Walk the Plank), one copy of a named special card, or turn the
first down card, or pick up the pile. Which down card is turned is a blind pick: the distiller counts
any down card as the teacher's (``move_kind``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.lucky_pirate.heuristic import NUMBERS_LOW_TO_HIGH, SPECIALS_CHEAPEST_FIRST
from agents.rules.vocabulary import Choice, Feature, Vocabulary
from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, NUM_PLAY_ACTIONS, PICK_UP, PLAY_OFFSET
from pirate_envs.lucky_pirate.cards import (
    CAPTAIN,
    KINDS,
    KRAKEN,
    MAX_COPIES,
    MERMAID,
    PARROT,
    PORTHOLE,
    REVERSE,
    SKIP,
    WALK_THE_PLANK,
)
from pirate_envs.lucky_pirate.view import HAND_SIZE_COLUMN

FLAG = "flag"
#: Special cards the network often plays one at a time, out of the heuristic's cheapest-first order.
ONE_CARD_KINDS = (CAPTAIN, KRAKEN, MERMAID, PARROT, REVERSE, SKIP, PORTHOLE)


def _plays(legal: np.ndarray) -> dict[int, int]:
    """The most copies of each kind a legal play action puts down."""
    most: dict[int, int] = {}
    for a in legal:
        if PLAY_OFFSET <= a < PLAY_OFFSET + NUM_PLAY_ACTIONS:
            kind, count = divmod(int(a) - PLAY_OFFSET, MAX_COPIES)
            most[kind] = max(most.get(kind, 0), count + 1)
    return most


def _play_first(order: Any) -> Any:
    def choose(v: Any, legal: np.ndarray) -> int | None:
        most = _plays(legal)
        kind = next((k for k in order if k in most), None)
        return None if kind is None else PLAY_OFFSET + kind * MAX_COPIES + most[kind] - 1

    return choose


def _play_one(kind: int) -> Any:
    def choose(v: Any, legal: np.ndarray) -> int | None:
        return PLAY_OFFSET + kind * MAX_COPIES if kind in _plays(legal) else None

    return choose


def _first_down(v: Any, legal: np.ndarray) -> int | None:
    return next((int(a) for a in legal if DOWN_OFFSET <= a < DOWN_OFFSET + 8), None)


FEATURES = (
    Feature("hand", "cards in your hand", lambda v, legal: int(v.hand.sum())),
    Feature("pile_value", "the pile's value", lambda v, legal: v.pile_value),
    Feature("pile_size", "cards in the pile", lambda v, legal: v.pile_size),
    Feature(
        "numbers_legal",
        "number kinds you may play",
        lambda v, legal: sum(k in _plays(legal) for k in NUMBERS_LOW_TO_HIGH),
    ),
    Feature(
        "specials_legal",
        "special kinds you may play",
        lambda v, legal: sum(k in _plays(legal) for k in SPECIALS_CHEAPEST_FIRST),
    ),
    Feature(
        "next_hand",
        "cards in the hand of the seat after yours (in seat order)",
        lambda v, legal: int(v.table[1 % v.num_players, HAND_SIZE_COLUMN]),
    ),
    Feature("fewest", "the fewest cards in another hand", lambda v, legal: int(v.table[1:, HAND_SIZE_COLUMN].min())),
    Feature("down_left", "your down cards left", lambda v, legal: sum(v.down_slots)),
)

CHOICES = (
    Choice("lowest_number", "play your lowest legal number (every copy)", _play_first(NUMBERS_LOW_TO_HIGH)),
    Choice("highest_number", "play your highest legal number (every copy)", _play_first(NUMBERS_LOW_TO_HIGH[::-1])),
    Choice("cheapest_special", "play your cheapest special card", _play_first(SPECIALS_CHEAPEST_FIRST)),
    Choice("plank", "play Walk the Plank (clear the pile)", _play_first((WALK_THE_PLANK,))),
    *(
        Choice(f"one_{KINDS[k]}", f"play one {KINDS[k].replace('_', ' ').title()}", _play_one(k))
        for k in ONE_CARD_KINDS
    ),
    Choice("down", "turn your first down card", _first_down),
    Choice("pick_up", "pick up the pile", lambda v, legal: PICK_UP),
)


def _down_as_one(action: int) -> int:
    """Every blind down card is one kind of move (which slot is a blind pick); any other action its own."""
    return DOWN_OFFSET if DOWN_OFFSET <= action < PICK_UP else action


VOCABULARY = Vocabulary(
    "lucky_pirate_v0", FEATURES, CHOICES, fallback="lowest_number", players=4, move_kind=_down_as_one, kind_credit=1.0
)

__all__ = ["VOCABULARY"]
