"""Pig's observation: layout table and encoder (seat-relative per-player pieces, all within [0, 1])."""

from __future__ import annotations

import numpy as np

from examples.pig.rules import DIE_FACES
from examples.pig.view import View
from pirate_envs.core.observation import ObservationLayout


def build_layout(num_players: int) -> ObservationLayout:
    """The observation layout for ``num_players`` seats."""
    n = num_players
    return ObservationLayout(
        [
            ("on_turn", (n,), "one-hot: player on turn, seat-relative (index 0 = me)"),
            ("scores", (n,), "banked scores / target score (at most 1), seat-relative"),
            ("turn_total", (1,), "the turn total / target score (at most 1)"),
            ("last_roll", (DIE_FACES,), "one-hot: the face last rolled (all zero before the first roll)"),
        ]
    )


class Encoder:
    """Encodes a `View` into the layout's ``float32`` vector."""

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.num_players = layout.piece("on_turn").size
        self._on_turn = layout["on_turn"].start
        self._scores = layout["scores"]
        self._turn_total = layout["turn_total"].start
        self._last_roll = layout["last_roll"].start

    def __call__(self, view: View) -> np.ndarray:
        n, seat, target = self.num_players, view.seat, view.target_score
        vector = self.layout.zeros()
        if not view.over:
            vector[self._on_turn + (view.current_player - seat) % n] = 1.0
        relative = [view.scores[(seat + k) % n] for k in range(n)]
        vector[self._scores] = np.minimum(np.array(relative, dtype=np.float32) / target, 1.0)
        vector[self._turn_total] = min(view.turn_total / target, 1.0)
        if view.last_roll:
            vector[self._last_roll + view.last_roll - 1] = 1.0
        return vector


__all__ = ["Encoder", "build_layout"]
