"""The Piratenpoker observation vector: a named layout and an encoder of :class:`View` records.

Per-player pieces are seat-relative (observer first). The public table
(:class:`TableView`) changes only a few times per round, so :class:`Encoder` encodes it once
in absolute seat order and, each step, gathers it seat-relative and writes the private pieces.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.piratenpoker.cards import (
    DECK_SIZE,
    HAND_SIZE,
    NUM_COLOURS,
    NUM_DISPLAYED_KINDS,
    NUM_FRONTS,
    NUM_POKER_KINDS,
)
from pirate_envs.piratenpoker.engine import NUM_PHASES, ROUNDS_PER_GAME
from pirate_envs.piratenpoker.rules import Config
from pirate_envs.piratenpoker.view import TableView, View

CARD_SCALE = 0.5  # poker / loot card counts (1 card -> 0.5)
DISCARD_SCALE = 0.25
SCORE_SCALE = 1 / 40


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout for ``config`` (per-player pieces have ``num_players`` rows)."""
    n = config.num_players
    k = NUM_POKER_KINDS
    return ObservationLayout(
        [
            ("hand", (k,), "own poker cards in hand per kind (green 1..8, red 1..8, yellow 1..8), x0.5"),
            ("bid", (k,), "own bid being built this round (unrevealed), per kind, x0.5"),
            ("own_status", (3,), "own Pass still available, own bid committed, own Pass played this round"),
            ("phase", (NUM_PHASES,), "one-hot: bid, pick loot, give a negative card, choose recipient"),
            ("round", (ROUNDS_PER_GAME,), "one-hot: overboard, below deck, loot"),
            ("chooser", (n,), "one-hot relative seat of the round winner deciding now"),
            ("pending", (NUM_DISPLAYED_KINDS,), "one-hot displayed kind about to be given (recipient phase)"),
            ("face_up", (NUM_COLOURS, NUM_FRONTS), "per colour: one-hot front value (+5,+6,+8,+10) face up"),
            ("stack_tops", (NUM_COLOURS, NUM_FRONTS), "per colour: one-hot front of the stack's top card"),
            ("stack_sizes", (NUM_COLOURS,), "loot cards left in each stack / loot per colour"),
            ("draw_size", (1,), "poker cards in the draw pile / 84"),
            ("discard", (k,), "poker cards face up next to the draw pile, per kind, x0.25"),
            ("displayed", (n, NUM_DISPLAYED_KINDS), "per seat: displayed loot per kind (colour, side, front), x0.5"),
            ("scores", (n,), "per seat: final score of the displayed loot so far / 40"),
            ("pass_available", (n,), "per seat: Pass card available at the start of the round"),
            ("hand_sizes", (n,), "per seat: cards in hand at the start of the round / 6"),
            ("last_bids", (n, k), "per seat: the last revealed bid per kind, x0.5"),
            ("last_passed", (n,), "per seat: played the Pass in the last revealed round"),
            ("last_winner", (n,), "one-hot relative seat that won the last revealed round (zeros: all tied)"),
            ("last_round", (ROUNDS_PER_GAME,), "one-hot round of the last revealed bids"),
            ("games_played", (1,), "games started so far / max_games"),
        ]
    )


#: Pieces with one row per seat: made seat-relative by :meth:`Encoder.encode`.
PER_SEAT_PIECES = (
    "chooser",
    "displayed",
    "scores",
    "pass_available",
    "hand_sizes",
    "last_bids",
    "last_passed",
    "last_winner",
)


def seat_permutations(layout: ObservationLayout, num_players: int) -> list[np.ndarray]:
    """For each seat, the gather index turning an absolute-seat vector into a seat-relative one."""
    perms = []
    for seat in range(num_players):
        perm = np.arange(layout.size)
        for name in PER_SEAT_PIECES:
            piece = layout.piece(name)
            rows = perm[piece.start : piece.stop].reshape(num_players, -1)
            perm[piece.start : piece.stop] = np.roll(rows, -seat, axis=0).ravel()
        perms.append(perm)
    return perms


def _one_hot_rows(vec: np.ndarray, piece: slice, rows: np.ndarray, width: int) -> None:
    """Set ``vec[piece]`` (``len(rows) x width``) to one-hot rows; a row of -1 stays zero."""
    block = vec[piece].reshape(len(rows), width)
    present = rows >= 0
    block[np.flatnonzero(present), rows[present]] = 1.0


def _set_one_hot(vec: np.ndarray, piece: slice, index: int) -> None:
    if index >= 0:
        vec[piece.start + index] = 1.0


class Encoder:
    """``encode(view)`` for one layout; the public table is encoded once per change, for every seat."""

    def __init__(self, config: Config):
        self.config = config
        self.layout = layout = build_layout(config)
        self._perms = seat_permutations(layout, config.num_players)
        self._table: TableView | None = None
        self._table_vec = layout.zeros()
        self._hand = layout["hand"]
        self._bid = layout["bid"]
        self._status = layout["own_status"].start

    def encode(self, view: View) -> np.ndarray:
        """The observation vector of ``view`` (per-seat pieces relative to ``view.seat``)."""
        if view.table is not self._table:
            self._table_vec = self.encode_table(view.table)
            self._table = view.table
        vec = self._table_vec[self._perms[view.seat]]
        vec[self._hand] = view.hand
        vec[self._hand] *= CARD_SCALE
        vec[self._bid] = view.bid
        vec[self._bid] *= CARD_SCALE
        vec[self._status] = view.pass_available
        vec[self._status + 1] = view.committed
        vec[self._status + 2] = view.passed
        return vec

    def encode_table(self, table: TableView) -> np.ndarray:
        """The public pieces in absolute seat order (the private ones left at zero)."""
        layout = self.layout
        vec = layout.zeros()
        _set_one_hot(vec, layout["phase"], table.phase)
        _set_one_hot(vec, layout["round"], table.round)
        _set_one_hot(vec, layout["chooser"], table.chooser)
        _set_one_hot(vec, layout["pending"], table.pending)
        _one_hot_rows(vec, layout["face_up"], table.face_up, NUM_FRONTS)
        _one_hot_rows(vec, layout["stack_tops"], table.stack_tops, NUM_FRONTS)
        vec[layout["stack_sizes"]] = table.stack_sizes / len(self.config.loot_fronts)
        vec[layout["draw_size"]] = table.draw_size / DECK_SIZE
        vec[layout["discard"]] = table.discard * DISCARD_SCALE
        vec[layout["displayed"]] = table.displayed.ravel() * CARD_SCALE
        vec[layout["scores"]] = table.scores * SCORE_SCALE
        vec[layout["pass_available"]] = table.pass_available
        vec[layout["hand_sizes"]] = table.hand_sizes / HAND_SIZE
        vec[layout["last_bids"]] = table.last_bids.ravel() * CARD_SCALE
        vec[layout["last_passed"]] = table.last_passed
        _set_one_hot(vec, layout["last_winner"], table.last_winner)
        _set_one_hot(vec, layout["last_round"], table.last_round)
        vec[layout["games_played"]] = table.games_played / self.config.max_games
        return vec
