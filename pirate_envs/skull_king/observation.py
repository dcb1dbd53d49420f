"""The Skull King observation vector: a layout of named pieces and ``encode(view)``.

Per-player pieces are seat-relative: row 0 is the observer, then the others in play order.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.skull_king.cards import COPIES, NO_SUIT, NUM_KINDS, NUM_SUITS, NUM_TOKENS
from pirate_envs.skull_king.rules import MAX_BID, MAX_HANDS, Config, Phase
from pirate_envs.skull_king.view import SkullKingView

#: Multiplier of the running scores in the observation (keeps them roughly in [-1, 1]).
SCORE_OBS_SCALE = 1.0 / 500.0
#: Multiplier of the tricks won in the observation.
TRICKS_OBS_SCALE = 1.0 / MAX_BID
_INV_COPIES = (1.0 / np.asarray(COPIES, dtype=np.float32)).astype(np.float32)


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout for ``config`` (its size depends on the number of players)."""
    n = config.num_players
    return ObservationLayout(
        [
            ("hand", (NUM_KINDS,), "own cards per kind / copies in the deck (kind order: cards.KIND_NAMES)"),
            ("hand_number", (MAX_HANDS,), "one-hot hand number 1..10 (hand k deals k cards)"),
            ("phase", (len(Phase),), "one-hot: bidding, playing, game over"),
            ("trick", (n, NUM_TOKENS), "one-hot card each player put into the current trick (token order)"),
            ("led_suit", (NUM_SUITS,), "one-hot suit to follow (yellow, red, blue, black); zeros if none yet"),
            ("bids", (n, MAX_BID + 1), "one-hot bid 0..10 of each player; zeros while not visible"),
            ("bids_revealed", (1,), "1 once every player has bid this hand"),
            ("tricks_won", (n,), "tricks won this hand / 10"),
            ("scores", (n,), "total score / 500"),
            ("played", (NUM_KINDS,), "cards played this hand per kind / copies (current trick included)"),
            ("voids", (n, NUM_SUITS), "1 where a player did not follow that led suit this hand"),
            ("leader", (n,), "one-hot player who leads the current trick"),
            ("dealer", (n,), "one-hot dealer of this hand"),
        ]
    )


class Encoder:
    """Turns views into observation vectors for one layout (offsets looked up once)."""

    def __init__(self, layout: ObservationLayout, num_players: int):
        self.layout = layout
        self.n = num_players
        n = num_players
        self._start = {p.name: p.start for p in layout.pieces}
        self._hand = layout["hand"]
        self._played = layout["played"]
        #: For each observer seat, the absolute seats in seat-relative order.
        self._order = [[(seat + r) % n for r in range(n)] for seat in range(n)]

    def __call__(self, view: SkullKingView) -> np.ndarray:
        """The observation vector of ``view``."""
        n = self.n
        seat = view.seat
        start = self._start
        vec = np.zeros(self.layout.size, dtype=np.float32)
        np.multiply(view.hand, _INV_COPIES, out=vec[self._hand])
        np.multiply(view.played, _INV_COPIES, out=vec[self._played])
        vec[start["hand_number"] + view.hand_number - 1] = 1.0
        vec[start["phase"] + view.phase] = 1.0
        trick_start = start["trick"]
        first_row = (view.leader - seat) % n
        for i, token in enumerate(view.trick):
            vec[trick_start + ((first_row + i) % n) * NUM_TOKENS + token] = 1.0
        if view.led_suit != NO_SUIT:
            vec[start["led_suit"] + view.led_suit] = 1.0
        bids, tricks, scores, voids = view.bids, view.tricks_won, view.scores, view.voids
        bid_start, tricks_start, score_start = start["bids"], start["tricks_won"], start["scores"]
        void_start = start["voids"]
        for row, s in enumerate(self._order[seat]):
            if bids[s] >= 0:
                vec[bid_start + row * (MAX_BID + 1) + bids[s]] = 1.0
            vec[tricks_start + row] = tricks[s] * TRICKS_OBS_SCALE
            vec[score_start + row] = scores[s] * SCORE_OBS_SCALE
            if any(voids[s]):
                vec[void_start + row * NUM_SUITS : void_start + (row + 1) * NUM_SUITS] = voids[s]
        vec[start["bids_revealed"]] = float(view.bids_revealed)
        vec[start["leader"] + first_row] = 1.0
        vec[start["dealer"] + (view.dealer - seat) % n] = 1.0
        return vec


def encode(view: SkullKingView, layout: ObservationLayout) -> np.ndarray:
    """The observation vector of ``view`` laid out by ``layout`` (builds an :class:`Encoder`)."""
    return Encoder(layout, view.num_players)(view)
