"""Lucky Pirate cards: the kinds, their values and the assumed deck.

Pure Python, no numpy. A card *kind* is an index into `KINDS` (the order used by
observations and actions); cards of one kind are identical, so hands are counts per kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

NUMBER_CARDS = tuple(str(v) for v in range(1, 9))
#: Every card kind, in the order used by observations and actions.
KINDS: tuple[str, ...] = (
    *NUMBER_CARDS,
    "captain",
    "kraken",
    "first_mate",
    "porthole",
    "walk_the_plank",
    "mermaid",
    "parrot",
    "reverse",
    "skip",
)
NUM_KINDS = len(KINDS)
#: The kinds that are not numbers, in `KINDS` order (the ``specials`` option keeps the first ones).
SPECIAL_KINDS: tuple[str, ...] = KINDS[len(NUMBER_CARDS) :]
KIND_INDEX: Mapping[str, int] = MappingProxyType({k: i for i, k in enumerate(KINDS)})
(CAPTAIN, KRAKEN, FIRST_MATE, PORTHOLE, WALK_THE_PLANK, MERMAID, PARROT, REVERSE, SKIP) = range(
    len(NUMBER_CARDS), NUM_KINDS
)

EMPTY_PILE_VALUE = 0
CAPTAIN_VALUE = 9
KRAKEN_VALUE = 10  # assumption: a plain 10, the highest number
FIRST_MATE_VALUE = 9  # the First Mate is a 9 (on a Captain it makes the top a plain 9)
MERMAID_VALUE = 7
MAX_VALUE = KRAKEN_VALUE
#: Face value of each kind that has one (numbers, Captain, Kraken); ``None`` for the others.
FACE_VALUE: tuple[int | None, ...] = (
    *range(1, 9),
    CAPTAIN_VALUE,
    KRAKEN_VALUE,
    *([None] * (NUM_KINDS - len(NUMBER_CARDS) - 2)),
)

#: Assumed deck (60 cards): numbers 1..8 x 4, Captain, Kraken, First Mate, Porthole and
#: Walk the Plank x 4, Mermaid, Parrot, Reverse and Skip x 2.
DEFAULT_DECK: Mapping[str, int] = MappingProxyType(
    {
        **{n: 4 for n in NUMBER_CARDS},
        "captain": 4,
        "kraken": 4,
        "first_mate": 4,
        "porthole": 4,
        "walk_the_plank": 4,
        "mermaid": 2,
        "parrot": 2,
        "reverse": 2,
        "skip": 2,
    }
)
#: Most copies of one kind a deck may hold (it bounds the set sizes of the action space).
MAX_COPIES = 6

#: Up (and down) cards per player, by number of players (two players set up as three).
UP_DOWN_CARDS: Mapping[int, int] = MappingProxyType({2: 4, 3: 4, 4: 3, 5: 2, 6: 2})
#: Most down-card slots a player has (it bounds the ``down`` actions).
MAX_UP_DOWN = max(UP_DOWN_CARDS.values())
#: Two players: three hands are dealt and one is put aside unseen.
TWO_PLAYER_HANDS = 3


def kind_index(card: str) -> int:
    """The index of a card name, with a clear error for an unknown one."""
    try:
        return KIND_INDEX[card]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card {card!r}; valid cards: {list(KINDS)}") from None


def card_counts(cards: Iterable[str]) -> list[int]:
    """Copies of each kind (in ``KINDS`` order) among card names."""
    counts = [0] * NUM_KINDS
    for card in cards:
        counts[kind_index(card)] += 1
    return counts
