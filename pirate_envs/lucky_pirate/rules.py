"""Lucky Pirate rules: the pure helpers of the pile (what may be played, what the pile becomes).

Pure Python, no gymnasium or pettingzoo import. The engine (`.engine`) builds its lookup
tables from these functions, so the rules of the pile live here only.

The pile is described by its *top*: the effective value (0 on an empty pile), a mode
(``NORMAL``; ``CAPTAIN``: only a First Mate or a Porthole may follow; ``FREE``: after a
Parrot, any card may follow), the run of equal numbers on top (kind and length) and whether
the pile is empty (no card on it since it was last cleared or picked up: a Reverse, Skip or
Porthole lying on an empty pile has value 0, but the pile is not empty).
A play is ``count`` cards of one kind; it is legal when one card of that kind is legal on the
top (equal cards follow each other), and the cards land one after the other.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from pirate_envs.lucky_pirate.cards import (
    CAPTAIN,
    CAPTAIN_VALUE,
    EMPTY_PILE_VALUE,
    FACE_VALUE,
    FIRST_MATE,
    FIRST_MATE_VALUE,
    KINDS,
    KRAKEN,
    KRAKEN_VALUE,
    MERMAID,
    MERMAID_VALUE,
    NUM_KINDS,
    PARROT,
    PORTHOLE,
    REVERSE,
    SKIP,
    WALK_THE_PLANK,
    card_counts,
    kind_index,
)

#: Kinds that can form a run of equal numbers (1..8, Captain 9, Kraken 10): kinds 0..9.
NUM_RUN_KINDS = KRAKEN + 1
#: Three equal numbers in a row clear the pile.
RUN_TO_CLEAR = 3
NO_RUN = -1
REVERSE_SKIP_VALUES = ("keep", "reset")


class Mode(enum.IntEnum):
    """What the top of the pile allows besides its value."""

    NORMAL = 0  # a card must match or beat the value
    CAPTAIN = 1  # only a First Mate or a Porthole may follow
    FREE = 2  # after a Parrot: any card may follow


NUM_MODES = len(Mode)


@dataclass(frozen=True)
class PileRules:
    """The options that change what may be played on the pile and what it becomes."""

    #: Assumption (False): the First Mate is a 9 that may also go on a Captain (wherever a 9
    #: may, and on a Captain). True: the earlier ruling, only on a Captain.
    first_mate_only_on_captain: bool = False
    #: With ``first_mate_only_on_captain`` only: a First Mate may also start an empty pile.
    first_mate_on_empty_pile: bool = False
    #: Assumption: a Porthole may start an empty pile (it copies nothing: value 0).
    porthole_on_empty_pile: bool = True
    #: Assumption: Reverse and Skip ``"keep"`` the pile's value and mode (``"reset"``: value 0).
    reverse_skip_value: str = "keep"
    #: Assumption: three Captains in a row (one set of three) clear the pile like any number.
    captain_counts_in_runs: bool = True


# ---------------------------------------------------------------- the pile
@dataclass(frozen=True, slots=True)
class PileTop:
    """The effective top of the pile: what may be played on it (``EMPTY_TOP``: an empty pile)."""

    value: int = EMPTY_PILE_VALUE
    mode: Mode = Mode.NORMAL
    run_kind: int = NO_RUN  # the number kind of the run on top, NO_RUN if none
    run_length: int = 0
    empty: bool = False  # no card on the pile (only ``EMPTY_TOP``)


EMPTY_TOP = PileTop(empty=True)


def can_play(kind: int, top: PileTop, rules: PileRules = PileRules()) -> bool:
    """Whether one card of ``kind`` may be played on ``top``."""
    value, mode = top.value, top.mode
    if mode == Mode.CAPTAIN:
        return kind in (FIRST_MATE, PORTHOLE)
    if kind == FIRST_MATE:
        if rules.first_mate_only_on_captain:
            return top.empty and rules.first_mate_on_empty_pile
        return mode == Mode.FREE or value <= FIRST_MATE_VALUE  # a 9
    if kind == PORTHOLE and top.empty:
        return rules.porthole_on_empty_pile
    if mode == Mode.FREE:
        return True
    if kind == CAPTAIN:
        return value < KRAKEN_VALUE  # on anything except the Kraken
    face = FACE_VALUE[kind]
    return face is None or face >= value  # specials are playable on anything but a Captain


def counts_in_runs(kind: int, rules: PileRules = PileRules()) -> bool:
    """Whether ``kind`` is a number that builds runs of equal numbers."""
    return kind < NUM_RUN_KINDS and (kind != CAPTAIN or rules.captain_counts_in_runs)


def place(top: PileTop, kind: int, count: int, rules: PileRules = PileRules()) -> tuple[PileTop, bool]:
    """The top after ``count`` cards of ``kind`` land on ``top``, and whether the pile clears.

    Legality is not checked (see `can_play`). A cleared pile has the empty top.
    """
    if kind == WALK_THE_PLANK:
        return EMPTY_TOP, True
    if counts_in_runs(kind, rules):
        run = top.run_length + count if top.run_kind == kind else count
        if run >= RUN_TO_CLEAR:
            return EMPTY_TOP, True
        mode = Mode.CAPTAIN if kind == CAPTAIN else Mode.NORMAL
        return PileTop(FACE_VALUE[kind], mode, kind, run), False  # type: ignore[arg-type]
    if kind == CAPTAIN:
        return PileTop(CAPTAIN_VALUE, Mode.CAPTAIN), False
    if kind == FIRST_MATE:
        return PileTop(FIRST_MATE_VALUE, Mode.NORMAL), False
    if kind == MERMAID:
        return PileTop(MERMAID_VALUE, Mode.NORMAL), False
    if kind == PARROT:
        return PileTop(EMPTY_PILE_VALUE, Mode.FREE), False
    if kind in (REVERSE, SKIP) and rules.reverse_skip_value == "reset":
        return PileTop(EMPTY_PILE_VALUE, Mode.NORMAL), False
    # Porthole (copies the card below), Reverse and Skip ("keep"): same value, run broken.
    return PileTop(top.value, top.mode), False


def pile_top(pile: Sequence[str], rules: PileRules = PileRules()) -> PileTop:
    """The top of a pile of card names listed bottom to top (a clearing card empties it)."""
    top = EMPTY_TOP
    for card in pile:
        top, _ = place(top, kind_index(card), 1, rules)
    return top


def legal_plays(pile: Sequence[str], cards: Sequence[str], rules: PileRules = PileRules()) -> list[tuple[str, int]]:
    """The ``(kind, count)`` plays these cards allow on this pile (listed bottom to top).

    Every count from 1 to the copies held is listed for each playable kind, in ``KINDS``
    order. An empty list means the player must pick up the pile.
    """
    top = pile_top(pile, rules)
    counts = card_counts(cards)
    return [
        (KINDS[kind], count)
        for kind in range(NUM_KINDS)
        if counts[kind] and can_play(kind, top, rules)
        for count in range(1, counts[kind] + 1)
    ]
