"""The Skull King observation vector: a layout of named pieces and ``encode(view)``.

Per-player pieces are seat-relative: row 0 is the observer, then the others in play order.
The layout has two parts: the pieces that change with every card (hand, played cards, the
trick, the suit to follow, the leader, tricks won, voids), then the *table*, the pieces that
change a few times per hand (hand number, phase, dealer, bids, scores, hands left). The encoder
keeps each seat's last table segment and reuses it while that part of the view is unchanged.
New pieces go at the end, so that the offsets of the existing ones never move.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.skull_king.actions import MAX_BID
from pirate_envs.skull_king.cards import NO_SUIT, NUM_KINDS, NUM_SUITS, NUM_TOKENS
from pirate_envs.skull_king.engine import Config, Phase
from pirate_envs.skull_king.rules import (
    MAX_HANDS,
    MAX_PLAYERS,
    PENALTY_PER_TRICK_MISSED,
    PIRATE_CAUGHT_BONUS,
    POINTS_PER_TRICK_BID,
    SKULL_KING_CAUGHT_BONUS,
    ZERO_BID_POINTS_PER_HAND,
)
from pirate_envs.skull_king.view import View

#: Multiplier of the running scores in the observation (keeps them roughly in [-1, 1]).
SCORE_OBS_SCALE = 1.0 / 500.0
#: Multiplier of the tricks won in the observation.
TRICKS_OBS_SCALE = 1.0 / MAX_BID
#: The first piece of the table part of the layout.
FIRST_TABLE_PIECE = "hand_number"


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout for ``config`` (its size depends on the number of players)."""
    n = config.num_players
    return ObservationLayout(
        [
            ("hand", (NUM_KINDS,), "number of own cards of each kind, 0..5 (kind order: cards.KIND_NAMES)"),
            ("played", (NUM_KINDS,), "number of cards of each kind played this hand, 0..5 (current trick included)"),
            ("trick", (n, NUM_TOKENS), "one-hot card each player put into the current trick (token order)"),
            ("led_suit", (NUM_SUITS,), "one-hot suit to follow (yellow, red, blue, black); zeros if none yet"),
            ("leader", (n,), "one-hot player who leads the current trick"),
            ("tricks_won", (n,), "tricks won this hand / 10"),
            ("voids", (n, NUM_SUITS), "1 where a player did not follow that led suit this hand"),
            (FIRST_TABLE_PIECE, (MAX_HANDS,), "one-hot hand number 1..10 (hand k deals k cards)"),
            ("phase", (len(Phase),), "one-hot: bidding, playing, game over"),
            ("dealer", (n,), "one-hot dealer of this hand"),
            ("bids", (n, MAX_BID + 1), "one-hot bid 0..10: own bid once made, the others' once all have bid"),
            ("bids_revealed", (1,), "1 once every player has bid this hand"),
            ("scores", (n,), "total score / 500"),
            ("hands_left", (MAX_HANDS,), "one-hot hands still to come after this one, 0..9 (num_hands - hand_number)"),
        ]
    )


def piece_bounds(config: Config) -> dict[str, tuple[float, float]]:
    """The bounds of the pieces not within [0, 1]: card counts (a kind's copies) and the scores.

    A hand ``h`` scores at least ``-10 * h`` (a zero bid missed, or a bid missed by ``h``
    tricks) and at most ``20 * h`` plus a bonus per trick won (at most 50, or 30 per pirate
    caught: one per other player).
    """
    copies = float(max(config.copies))
    hands = range(1, config.num_hands + 1)
    trick_bonus = max(SKULL_KING_CAUGHT_BONUS, PIRATE_CAUGHT_BONUS * (config.num_players - 1))
    low = -sum(max(ZERO_BID_POINTS_PER_HAND, PENALTY_PER_TRICK_MISSED) * h for h in hands)
    high = sum(max(ZERO_BID_POINTS_PER_HAND, POINTS_PER_TRICK_BID + trick_bonus) * h for h in hands)
    return {
        "hand": (0.0, copies),
        "played": (0.0, copies),
        "scores": (low * SCORE_OBS_SCALE, high * SCORE_OBS_SCALE),
    }


@functools.cache
def largest_layout() -> ObservationLayout:
    """The seated layout of the largest table (MAX_PLAYERS = 6 seats): the base of ``table_layout="max"``."""
    return build_layout(Config(num_players=MAX_PLAYERS))


class Encoder:
    """Turns views into observation vectors for one layout (offsets looked up once)."""

    def __init__(self, layout: ObservationLayout, num_players: int):
        self.layout = layout
        self.n = n = num_players
        self._hand, self._played = layout["hand"], layout["played"]
        self._trick, self._led = layout.piece("trick").start, layout.piece("led_suit").start
        self._leader, self._tricks = layout.piece("leader").start, layout.piece("tricks_won").start
        self._table = slice(layout.piece(FIRST_TABLE_PIECE).start, layout.size)
        # offsets inside the table segment
        table = {p.name: p.start - self._table.start for p in layout.pieces if p.start >= self._table.start}
        self._table_size = layout.size - self._table.start
        self._hand_number = table["hand_number"] - 1  # hand numbers start at 1
        self._phase, self._dealer, self._revealed = table["phase"], table["dealer"], table["bids_revealed"]
        self._scores = slice(table["scores"], table["scores"] + n)
        self._hands_left = table["hands_left"]
        #: For each observer seat, the absolute seats in seat-relative order.
        self._order = [[(seat + r) % n for r in range(n)] for seat in range(n)]
        #: Per row, the first index of its one-hot bid.
        self._bid_rows = [table["bids"] + r * (MAX_BID + 1) for r in range(n)]
        #: Per row, the indices set by each possible tuple of void flags.
        voids = layout.piece("voids").start
        self._void_rows = [
            {
                flags: [voids + r * NUM_SUITS + suit for suit in range(NUM_SUITS) if flags[suit]]
                for flags in itertools.product((False, True), repeat=NUM_SUITS)
            }
            for r in range(n)
        ]
        #: Per observer seat, the last table key and its encoded segment.
        self._last_table: list[tuple[tuple, np.ndarray] | None] = [None] * n

    def __deepcopy__(self, memo: dict) -> Encoder:
        """Copies of an env share its encoder: a pure function of the view (the cache is keyed by content)."""
        return self

    def __call__(self, view: View) -> np.ndarray:
        """The observation vector of ``view``."""
        n, seat = self.n, view.seat
        vec = np.zeros(self.layout.size, dtype=np.float32)
        vec[self._hand] = view.hand
        vec[self._played] = view.played
        first_row = (view.leader - seat) % n
        vec[self._leader + first_row] = 1.0
        for i, token in enumerate(view.trick):
            vec[self._trick + ((first_row + i) % n) * NUM_TOKENS + token] = 1.0
        if view.led_suit != NO_SUIT:
            vec[self._led + view.led_suit] = 1.0
        tricks, voids = view.tricks_won, view.voids
        for row, s in enumerate(self._order[seat]):
            if tricks[s]:
                vec[self._tricks + row] = tricks[s] * TRICKS_OBS_SCALE
            if True in voids[s]:
                for i in self._void_rows[row][voids[s]]:
                    vec[i] = 1.0
        key = (view.num_hands, view.hand_number, view.phase, view.dealer, view.bids, view.bids_revealed, view.scores)
        last = self._last_table[seat]
        if last is None or last[0] != key:
            last = (key, self._encode_table(view))
            self._last_table[seat] = last
        vec[self._table] = last[1]
        return vec

    def _encode_table(self, view: View) -> np.ndarray:
        """The table segment of ``view``'s observation (the pieces that change a few times per hand)."""
        seat, n = view.seat, self.n
        segment = np.zeros(self._table_size, dtype=np.float32)
        segment[self._hand_number + view.hand_number] = 1.0
        segment[self._phase + view.phase] = 1.0
        segment[self._hands_left + view.num_hands - view.hand_number] = 1.0
        segment[self._dealer + (view.dealer - seat) % n] = 1.0
        if view.bids_revealed:
            segment[self._revealed] = 1.0
        order = self._order[seat]
        segment[self._scores] = [view.scores[s] * SCORE_OBS_SCALE for s in order]
        for row, s in enumerate(order):
            bid = view.bids[s]
            if bid >= 0:
                segment[self._bid_rows[row] + bid] = 1.0
        segment.setflags(write=False)
        return segment


def encode(view: View, layout: ObservationLayout) -> np.ndarray:
    """The observation vector of ``view`` laid out by ``layout`` (builds an `Encoder`)."""
    return Encoder(layout, view.num_players)(view)
