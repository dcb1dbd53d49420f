"""What one Lucky Pirate player knows now.

Public: every player's up cards, hand size and number of down cards, the cards each hand took
in public (a picked-up pile, a revealed down card), the pile, the direction of play, the dealer, the cards
cleared out of the game, the tournament wins. Private: the viewer's own
hand. Hidden from everybody: the down cards (even their owner only knows which slots are
left), the other hands and, with two players, the hand put aside.

Per-player rows are seat-relative: row 0 is the viewer, then the others in seat order
(seat + 1, seat + 2, ...), whatever the current direction of play.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pirate_envs.lucky_pirate.cards import KINDS, NUM_KINDS
from pirate_envs.lucky_pirate.rules import Mode

#: Columns of the public per-seat table: up cards per kind, hand size, down cards left, wins.
TABLE_COLUMNS: tuple[str, ...] = (*(f"up {kind}" for kind in KINDS), "hand size", "down cards", "wins")
HAND_SIZE_COLUMN = NUM_KINDS
DOWN_LEFT_COLUMN = NUM_KINDS + 1
WINS_COLUMN = NUM_KINDS + 2


@dataclass(frozen=True, slots=True, eq=False)
class View:
    """One seat's view of the game (arrays are fresh copies; ``==`` compares contents)."""

    seat: int
    num_players: int
    to_play: int  # seat-relative player on turn
    hand: np.ndarray  # (17,) own hand, copies per kind
    table: np.ndarray  # (n, 20) public per-seat table (TABLE_COLUMNS), seat-relative rows
    down_slots: tuple[bool, ...]  # own down-card slots still holding a card
    pile_top: tuple[int, ...]  # kind indices of the top cards, topmost first (at most 3)
    pile_size: int
    pile_value: int  # effective value (0 on an empty pile or after a Parrot)
    pile_mode: Mode
    run_kind: int  # number kind of the run of equal numbers on top (-1: none)
    run_length: int
    direction: int  # +1: play passes to seat + 1; -1: to seat - 1
    removed: np.ndarray  # (17,) cards cleared out of the game, per kind
    setting_up: bool  # set-up phase (option choose_up_cards): the others' up cards read 0
    #: (n, 17) per seat, seat-relative: cards in its hand that every player saw go in (a
    #: picked-up pile, a revealed down card), until played. The observation piece ``known`` of the
    #: option ``observe_known`` (not in the default observation vector).
    known: np.ndarray
    #: (17,) the cards in the pile per kind (all played face up; ``pile_top`` shows the top ones in
    #: order). The observation piece ``pile_cards`` of the option ``observe_pile``.
    pile_counts: np.ndarray
    #: seat-relative dealer of the current game (public; not part of the observation vector)
    dealer: int

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return all(np.array_equal(getattr(self, name), getattr(other, name)) for name in self.__dataclass_fields__)

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_fields(cls, *values: object) -> View:
        """A view from its field values in declaration order, without the frozen ``__init__``.

        Sets the slots directly: about a third cheaper than ``__init__``'s ``object.__setattr__``
        per field (the engine builds a view every step). No validation, as ``__init__``.
        """
        view = object.__new__(cls)
        for set_field, value in zip(_SLOT_SETTERS, values, strict=True):
            set_field(view, value)
        return view

    @property
    def up(self) -> np.ndarray:
        """(n, 17) up cards per kind, seat-relative."""
        return self.table[:, :NUM_KINDS]

    @property
    def hand_sizes(self) -> np.ndarray:
        """(n,) cards in hand, seat-relative."""
        return self.table[:, HAND_SIZE_COLUMN]

    @property
    def down_counts(self) -> np.ndarray:
        """(n,) down cards left, seat-relative."""
        return self.table[:, DOWN_LEFT_COLUMN]

    @property
    def wins(self) -> np.ndarray:
        """(n,) games won in the tournament, seat-relative."""
        return self.table[:, WINS_COLUMN]

    @property
    def my_turn(self) -> bool:
        """Whether the viewer is the player on turn."""
        return self.to_play == 0

    @property
    def source(self) -> str:
        """Where the viewer plays from now: ``"hand"``, ``"up"``, ``"down"`` or ``"none"``."""
        mine = self.table[0]
        if mine[HAND_SIZE_COLUMN]:
            return "hand"
        if mine[:NUM_KINDS].any():
            return "up"
        return "down" if mine[DOWN_LEFT_COLUMN] else "none"

    def top_card(self) -> str | None:
        """Name of the topmost card of the pile, ``None`` on an empty pile."""
        return KINDS[self.pile_top[0]] if self.pile_top else None


#: The slot descriptors' setters of :class:`View`, in field order.
_SLOT_SETTERS = tuple(getattr(View, name).__set__ for name in View.__dataclass_fields__)
