"""What one Piratenpoker player knows: his `View` around the shared public `TableView`.

The table is one record for every seat (absolute seat indices); the observation vector makes
per-player pieces seat-relative. Both are named tuples (cheap to build every step) that
compare by value; their arrays are copies, the table's read-only.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


def _records_equal(a: tuple, b: Any) -> bool:
    """Field-by-field equality of two records that may hold numpy arrays."""
    if type(a) is not type(b):
        return False
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def _records_differ(a: tuple, b: Any) -> bool:
    return not _records_equal(a, b)


class TableView(NamedTuple):
    """The public table; it changes only when bids are revealed or a round winner decides.

    ``face_up[c]`` / ``stack_tops[c]``: the front value *index* (into ``FRONT_VALUES``) of
    colour ``c``'s face-up loot card / of its stack's top card (whose back is face up, and the
    back fixes the front), ``-1`` when there is none. What each stack holds is public (the
    distribution minus every card seen), its order below the top card is not.
    ``hand_sizes`` and ``pass_available`` count this round's unrevealed bids as still in hand
    (nobody sees a bid before all have bid): while bidding they are the values at the round's
    start, after the reveal the current ones.
    ``phase`` is a `pirate_envs.piratenpoker.engine.Phase` value; ``chooser`` the seat
    of the round winner deciding now (-1 while bidding); ``pending`` the displayed loot kind
    he is giving in the recipient phase (-1 otherwise).
    """

    num_players: int
    games_played: int
    round: int  # 0: overboard, 1: below deck, 2: loot
    phase: int
    chooser: int
    pending: int
    may_give_to_self: bool
    face_up: tuple[int, ...]  # (3,) front index or -1
    stack_sizes: tuple[int, ...]  # (3,)
    stack_contents: tuple[int, ...]  # (3 x 4,) cards of each front value left in each stack
    stack_tops: tuple[int, ...]  # (3,) front index or -1
    draw_size: int
    discard: np.ndarray  # (24,) poker kinds face up next to the draw pile
    displayed: np.ndarray  # (n, 24) displayed loot kinds per seat
    scores: tuple[float, ...]  # (n,) final_score of each seat's displayed loot
    pass_available: tuple[bool, ...]  # (n,) Pass available or in the unrevealed bid
    hand_sizes: tuple[int, ...]  # (n,) cards in hand and in the unrevealed bid
    last_bids: np.ndarray  # (n, 24) the last revealed bids (poker kinds)
    last_passed: tuple[bool, ...]  # (n,) played the Pass in the last revealed round
    last_winner: int  # seat, -1: nobody (all tied) or no round revealed yet
    last_round: int  # 0..2, -1: no round revealed yet

    __eq__ = _records_equal  # type: ignore[assignment]
    __ne__ = _records_differ  # type: ignore[assignment]


class View(NamedTuple):
    """Everything ``seat`` knows now: his hand, his own unrevealed bid and the public table."""

    seat: int
    cards: np.ndarray  # (2, 24) poker kinds: row 0 the hand, row 1 his own bid of this round
    pass_available: bool  # own Pass not played in this game (a Pass in the unrevealed bid is played)
    committed: bool  # own bid (or Pass) for this round is final (until the next round's bidding)
    passed: bool  # own Pass in this round's unrevealed bid (cleared at the reveal)
    on_turn: bool
    table: TableView

    __eq__ = _records_equal  # type: ignore[assignment]
    __ne__ = _records_differ  # type: ignore[assignment]

    @property
    def hand(self) -> np.ndarray:
        """Poker cards in hand per kind, not counting the bid being built."""
        return self.cards[0]

    @property
    def bid(self) -> np.ndarray:
        """His own bid of this round per kind (nobody else sees it before the reveal)."""
        return self.cards[1]

    def relative(self, seat: int) -> int:
        """Seat-relative index of ``seat`` (0 = the observer), as used by the recipient actions."""
        return (seat - self.seat) % self.table.num_players
