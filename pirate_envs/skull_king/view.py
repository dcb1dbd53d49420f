"""What one Skull King player knows at one moment (the single definition of information)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pirate_envs.skull_king.cards import NO_SUIT, TOKEN_NAMES, names_of


class View(NamedTuple):
    """One seat's knowledge. Seats are absolute (``0..num_players-1``); the play order is seat + 1.

    ``hand`` and ``played`` are read-only per-kind counts (see `pirate_envs.skull_king.cards`);
    ``trick`` holds the tokens played so far into the current trick, in play order from
    ``leader``. ``bids`` shows ``-1`` for a bid not visible to this seat: before all have bid
    only the seat's own bid is visible. ``voids[s][suit]`` is public: seat ``s`` did not follow
    that led suit this hand, so he holds none of it.

    A named tuple (immutable, and cheap to build on every observation); views compare equal
    field by field, arrays by value, and are not hashable.
    """

    seat: int
    num_players: int
    num_hands: int
    hand_number: int
    phase: int  # a rules.Phase value: 0 bid, 1 play, 2 game over
    dealer: int
    leader: int
    current_player: int
    hand: np.ndarray
    trick: tuple[int, ...]
    led_suit: int
    bids: tuple[int, ...]
    bids_revealed: bool
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    played: np.ndarray
    voids: tuple[tuple[bool, ...], ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return all(_same(a, b) for a, b in zip(self, other))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def hand_cards(self) -> list[str]:
        """The seat's hand as card names (one per physical card)."""
        return names_of(self.hand)

    def trick_cards(self) -> list[str]:
        """The current trick as played card names, in play order."""
        return [TOKEN_NAMES[t] for t in self.trick]

    def trick_seat(self, index: int) -> int:
        """The seat that played the ``index``-th card of the current trick."""
        return (self.leader + index) % self.num_players

    @property
    def has_led_suit(self) -> bool:
        """Whether a suit card has set the suit to follow in the current trick."""
        return self.led_suit != NO_SUIT


def _same(a: Any, b: Any) -> bool:
    """Equality of two view fields (numpy arrays by value)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)
