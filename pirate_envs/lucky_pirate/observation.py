"""Lucky Pirate observation: layout table and encoder (seat-relative per-player rows).

The counting pieces come first and are filled by one concatenation and one scaling; the
one-hot pieces and the few scalars follow, set entry by entry (cheaper than index arrays).
"""

from __future__ import annotations

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.lucky_pirate.engine import PILE_TOP_CARDS
from pirate_envs.lucky_pirate.rules import (
    MAX_UP_DOWN,
    MAX_VALUE,
    NUM_KINDS,
    NUM_MODES,
    NUM_RUN_KINDS,
    RUN_TO_CLEAR,
    Config,
)
from pirate_envs.lucky_pirate.view import (
    DOWN_LEFT_COLUMN,
    HAND_SIZE_COLUMN,
    TABLE_COLUMNS,
    WINS_COLUMN,
    LuckyPirateView,
)


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout for ``config`` (per-player pieces have one row per seat)."""
    n = config.num_players
    return ObservationLayout(
        [
            ("hand", (NUM_KINDS,), "own hand: copies per kind / most copies of a kind in the deck"),
            (
                "players",
                (n, len(TABLE_COLUMNS)),
                "per seat, seat-relative rows (0 = me): up cards per kind, hand size, down cards, wins",
            ),
            ("removed", (NUM_KINDS,), "cards cleared out of the game per kind / most copies"),
            ("down_slots", (MAX_UP_DOWN,), "1 for each own down-card slot still holding a card"),
            ("pile_size", (1,), "cards in the pile / deck size"),
            ("run_length", (1,), "equal numbers in a row on top of the pile / 3"),
            ("direction", (1,), "+1: play passes to seat + 1; -1: to seat - 1"),
            ("setting_up", (1,), "1 while up cards are being laid (option choose_up_cards)"),
            ("pile_top", (PILE_TOP_CARDS, NUM_KINDS), "one-hot kind of the top 3 pile cards, topmost first"),
            ("pile_value", (MAX_VALUE + 1,), "one-hot effective value of the pile 0..10 (0: empty or Parrot)"),
            ("pile_mode", (NUM_MODES,), "one-hot: normal, captain (only First Mate/Porthole), free (Parrot)"),
            ("run_kind", (NUM_RUN_KINDS,), "one-hot number 1..10 of the run on top (all 0: no run)"),
            ("to_play", (n,), "one-hot player on turn, seat-relative (index 0 = me)"),
        ]
    )


class LuckyPirateEncoder:
    """Encodes views into observation vectors with precomputed offsets and scales."""

    def __init__(self, layout: ObservationLayout, config: Config):
        self.layout = layout
        self.size = layout.size
        copies = max(config.deck.values())
        self.inv_deck = 1.0 / config.deck_size
        row = np.full(len(TABLE_COLUMNS), 1.0 / copies)
        row[[HAND_SIZE_COLUMN, DOWN_LEFT_COLUMN, WINS_COLUMN]] = (
            self.inv_deck,
            1.0 / MAX_UP_DOWN,
            1.0 / config.wins_to_win,
        )
        n = config.num_players
        self.counts = slice(0, layout["removed"].stop)
        self.scale = np.concatenate(
            [np.full(NUM_KINDS, 1.0 / copies), np.tile(row, n), np.full(NUM_KINDS, 1.0 / copies)]
        ).astype(np.float32)
        self.tail_start = layout["down_slots"].start
        self.pile_size = layout["pile_size"].start
        self.run_length = layout["run_length"].start
        self.direction = layout["direction"].start
        self.setting_up = layout["setting_up"].start
        self.pile_top = [layout["pile_top"].start + NUM_KINDS * i for i in range(PILE_TOP_CARDS)]
        self.value = layout["pile_value"].start
        self.mode = layout["pile_mode"].start
        self.run_kind = layout["run_kind"].start
        self.to_play = layout["to_play"].start

    def __call__(self, view: LuckyPirateView) -> np.ndarray:
        vec = np.zeros(self.size, dtype=np.float32)
        counts = vec[self.counts]
        np.concatenate((view.hand, view.table.ravel(), view.removed), out=counts, casting="unsafe")
        counts *= self.scale
        # a handful of single entries: scalar assignments beat building index arrays here
        i = self.tail_start
        for filled in view.down_slots:
            vec[i] = filled
            i += 1
        vec[self.pile_size] = view.pile_size * self.inv_deck
        vec[self.run_length] = view.run_length / RUN_TO_CLEAR
        vec[self.direction] = view.direction
        vec[self.setting_up] = view.setting_up
        vec[self.value + view.pile_value] = 1.0
        vec[self.mode + view.pile_mode] = 1.0
        vec[self.to_play + view.to_play] = 1.0
        if view.run_kind >= 0:
            vec[self.run_kind + view.run_kind] = 1.0
        for start, kind in zip(self.pile_top, view.pile_top):
            vec[start + kind] = 1.0
        return vec
