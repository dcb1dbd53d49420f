"""The Skull King observation vector: a layout of named pieces and ``encode(view)``.

Per-player pieces are seat-relative: row 0 is the observer, then the others in play order.
"""

from __future__ import annotations

import itertools

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.skull_king.cards import NO_SUIT, NUM_KINDS, NUM_SUITS, NUM_TOKENS
from pirate_envs.skull_king.rules import MAX_BID, MAX_HANDS, Config, Phase
from pirate_envs.skull_king.view import SkullKingView

#: Multiplier of the running scores in the observation (keeps them roughly in [-1, 1]).
SCORE_OBS_SCALE = 1.0 / 500.0
#: Multiplier of the tricks won in the observation.
TRICKS_OBS_SCALE = 1.0 / MAX_BID


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout for ``config`` (its size depends on the number of players)."""
    n = config.num_players
    return ObservationLayout(
        [
            ("hand", (NUM_KINDS,), "number of own cards of each kind, 0..5 (kind order: cards.KIND_NAMES)"),
            ("hand_number", (MAX_HANDS,), "one-hot hand number 1..10 (hand k deals k cards)"),
            ("phase", (len(Phase),), "one-hot: bidding, playing, game over"),
            ("trick", (n, NUM_TOKENS), "one-hot card each player put into the current trick (token order)"),
            ("led_suit", (NUM_SUITS,), "one-hot suit to follow (yellow, red, blue, black); zeros if none yet"),
            ("bids", (n, MAX_BID + 1), "one-hot bid 0..10: own bid once made, the others' once all have bid"),
            ("bids_revealed", (1,), "1 once every player has bid this hand"),
            ("tricks_won", (n,), "tricks won this hand / 10"),
            ("scores", (n,), "total score / 500"),
            ("played", (NUM_KINDS,), "number of cards of each kind played this hand, 0..5 (current trick included)"),
            ("voids", (n, NUM_SUITS), "1 where a player did not follow that led suit this hand"),
            ("leader", (n,), "one-hot player who leads the current trick"),
            ("dealer", (n,), "one-hot dealer of this hand"),
        ]
    )


class Encoder:
    """Turns views into observation vectors for one layout (offsets looked up once)."""

    def __init__(self, layout: ObservationLayout, num_players: int):
        self.layout = layout
        self.n = n = num_players
        start = {p.name: p.start for p in layout.pieces}
        self._hand, self._played = layout["hand"], layout["played"]
        self._hand_number = start["hand_number"] - 1  # hand numbers start at 1
        self._phase, self._trick, self._led = start["phase"], start["trick"], start["led_suit"]
        self._revealed, self._leader, self._dealer = start["bids_revealed"], start["leader"], start["dealer"]
        #: For each observer seat, the absolute seats in seat-relative order.
        self._order = [[(seat + r) % n for r in range(n)] for seat in range(n)]
        #: Per row, the first index of its one-hot bid.
        self._bid_rows = [start["bids"] + r * (MAX_BID + 1) for r in range(n)]
        #: Per row, the indices set by each possible tuple of void flags.
        self._void_rows = [
            {
                flags: [start["voids"] + r * NUM_SUITS + suit for suit in range(NUM_SUITS) if flags[suit]]
                for flags in itertools.product((False, True), repeat=NUM_SUITS)
            }
            for r in range(n)
        ]
        self._counts = slice(start["tricks_won"], start["scores"] + n)
        assert start["scores"] == start["tricks_won"] + n, "tricks_won and scores must be adjacent"

    def __call__(self, view: SkullKingView) -> np.ndarray:
        """The observation vector of ``view``."""
        n, seat = self.n, view.seat
        vec = np.zeros(self.layout.size, dtype=np.float32)
        vec[self._hand] = view.hand
        vec[self._played] = view.played
        first_row = (view.leader - seat) % n
        vec[self._hand_number + view.hand_number] = 1.0
        vec[self._phase + view.phase] = 1.0
        vec[self._leader + first_row] = 1.0
        vec[self._dealer + (view.dealer - seat) % n] = 1.0
        for i, token in enumerate(view.trick):
            vec[self._trick + ((first_row + i) % n) * NUM_TOKENS + token] = 1.0
        if view.led_suit != NO_SUIT:
            vec[self._led + view.led_suit] = 1.0
        if view.bids_revealed:
            vec[self._revealed] = 1.0
        bids, voids, tricks, scores = view.bids, view.voids, view.tricks_won, view.scores
        order = self._order[seat]
        for row, s in enumerate(order):
            if bids[s] >= 0:
                vec[self._bid_rows[row] + bids[s]] = 1.0
            for i in self._void_rows[row][voids[s]]:
                vec[i] = 1.0
        vec[self._counts] = [tricks[s] * TRICKS_OBS_SCALE for s in order] + [scores[s] * SCORE_OBS_SCALE for s in order]
        return vec


def encode(view: SkullKingView, layout: ObservationLayout) -> np.ndarray:
    """The observation vector of ``view`` laid out by ``layout`` (builds an :class:`Encoder`)."""
    return Encoder(layout, view.num_players)(view)
