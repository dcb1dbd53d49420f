"""The Piratenpoker observation vector: a named layout and an encoder of `View` records.

Per-player pieces are seat-relative (observer first). The public table
(`TableView`) changes only a few times per round, so `Encoder` encodes it once
in absolute seat order and, each step, gathers it seat-relative and writes the private pieces.
"""

from __future__ import annotations

import functools

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
from pirate_envs.piratenpoker.engine import NUM_PHASES, ROUNDS_PER_GAME, Config
from pirate_envs.piratenpoker.rules import MAX_PLAYERS
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
            # private
            ("hand", (k,), "own poker cards in hand per kind (green 1..8, red 1..8, yellow 1..8), x0.5"),
            ("bid", (k,), "own bid being built this round (unrevealed), per kind, x0.5"),
            ("own_status", (3,), "own Pass available, own bid committed this round, own Pass in the unrevealed bid"),
            # public one-hots
            ("phase", (NUM_PHASES,), "one-hot: bid, pick loot, give a negative card, choose recipient (zeros: over)"),
            ("round", (ROUNDS_PER_GAME,), "one-hot: overboard, below deck, loot"),
            ("chooser", (n,), "one-hot relative seat of the round winner deciding now"),
            ("pending", (NUM_DISPLAYED_KINDS,), "one-hot displayed kind about to be given (recipient phase)"),
            ("face_up", (NUM_COLOURS, NUM_FRONTS), "per colour: one-hot front value (+5,+6,+8,+10) face up"),
            ("stack_tops", (NUM_COLOURS, NUM_FRONTS), "per colour: one-hot front of the stack's top card"),
            ("last_winner", (n,), "one-hot relative seat that won the last revealed round (zeros: all tied)"),
            ("last_round", (ROUNDS_PER_GAME,), "one-hot round of the last revealed bids"),
            # public numbers
            ("stack_sizes", (NUM_COLOURS,), "loot cards left in each stack / loot per colour"),
            ("stack_contents", (NUM_COLOURS, NUM_FRONTS), "per colour: cards of each front left in the stack, x0.5"),
            ("draw_size", (1,), "poker cards in the draw pile / 84"),
            ("scores", (n,), "per seat: final score of the displayed loot so far / 40"),
            ("pass_available", (n,), "per seat: Pass available or in the unrevealed bid"),
            ("hand_sizes", (n,), "per seat: cards in hand and in the unrevealed bid / 6"),
            ("last_passed", (n,), "per seat: played the Pass in the last revealed round"),
            ("games_played", (1,), "games started so far / max_games"),
            # public counts
            ("discard", (k,), "poker cards face up next to the draw pile, per kind, x0.25"),
            ("displayed", (n, NUM_DISPLAYED_KINDS), "per seat: displayed loot per kind (colour, side, front), x0.5"),
            ("last_bids", (n, k), "per seat: the last revealed bid per kind, x0.5"),
        ]
    )


@functools.cache
def largest_layout() -> ObservationLayout:
    """The seated layout of the largest table (MAX_PLAYERS = 5 seats): the base of ``table_layout="max"``."""
    return build_layout(Config(num_players=MAX_PLAYERS))


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
#: Public pieces written from one flat list of numbers (contiguous, in layout order; see ``Encoder.encode_table``).
SMALL_PIECES = (
    "stack_sizes",
    "stack_contents",
    "draw_size",
    "scores",
    "pass_available",
    "hand_sizes",
    "last_passed",
    "games_played",
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


def piece_bounds(config: Config) -> dict[str, tuple[float, float]]:
    """The bounds of the pieces not within [0, 1]: scaled card counts, the draw pile and the scores.

    A displayed loot card is worth -5 to +10 and each set of three adds 5 (under 2 a card).
    """
    hand = config.hand_size * CARD_SCALE
    loot = len(config.loot_fronts)
    displayed = NUM_COLOURS * loot  # every loot card of the game
    return {
        "hand": (0.0, hand),
        "bid": (0.0, hand),
        "last_bids": (0.0, hand),
        "stack_contents": (0.0, loot * CARD_SCALE),
        "displayed": (0.0, loot * CARD_SCALE),
        "discard": (0.0, max(config.poker_copies) * DISCARD_SCALE),
        "draw_size": (0.0, config.deck_size / DECK_SIZE),
        "scores": (-5 * displayed * SCORE_SCALE, 12 * displayed * SCORE_SCALE),
    }


def piece_scales(layout: ObservationLayout, config: Config) -> np.ndarray:
    """The factor of every index of the vector (raw counts and numbers are written, then scaled)."""
    scales = np.ones(layout.size, dtype=np.float32)
    for name, scale in (
        ("hand", CARD_SCALE),
        ("bid", CARD_SCALE),
        ("stack_sizes", 1 / len(config.loot_fronts)),
        ("stack_contents", CARD_SCALE),
        ("draw_size", 1 / DECK_SIZE),
        ("discard", DISCARD_SCALE),
        ("displayed", CARD_SCALE),
        ("scores", SCORE_SCALE),
        ("hand_sizes", 1 / HAND_SIZE),
        ("last_bids", CARD_SCALE),
        ("games_played", 1 / config.max_games),
    ):
        scales[layout[name]] = scale
    return scales


class Encoder:
    """``encode(view)`` for one layout; the public table is encoded once per change, for every seat."""

    def __init__(self, config: Config):
        self.config = config
        self.layout = layout = build_layout(config)
        self._perms = seat_permutations(layout, config.num_players)
        self._scales = piece_scales(layout, config)
        self._card_values = np.arange(HAND_SIZE + 1, dtype=np.float32) * CARD_SCALE  # by count
        self._small = slice(layout[SMALL_PIECES[0]].start, layout[SMALL_PIECES[-1]].stop)
        if self._small.stop - self._small.start != sum(layout.piece(name).size for name in SMALL_PIECES):
            raise AssertionError("the SMALL_PIECES must be contiguous in the layout")
        self._table: TableView | None = None
        self._table_vec = layout.zeros()
        self._seat_vecs: dict[int, np.ndarray] = {}  # the table vector made relative to each seat
        self._cards = slice(layout["hand"].start, layout["bid"].stop)
        self._status = layout["own_status"]
        #: ``[pass_available][committed][passed]`` -> the own_status row (setting from a tuple is slower)
        self._status_rows = [[[np.array((a, c, p), dtype=np.float32) for p in (0, 1)] for c in (0, 1)] for a in (0, 1)]
        self._starts = {p.name: p.start for p in layout.pieces}
        #: Where the index of each one-hot field of the table counts from, in the order of
        #: ``encode_table``'s fields: round .. last_round, then each colour's face_up, stack_tops.
        self._one_hot_starts = [
            *(self._starts[name] for name in ("round", "phase", "chooser", "pending", "last_winner", "last_round")),
            *(
                self._starts[name] + row * NUM_FRONTS
                for name in ("face_up", "stack_tops")
                for row in range(NUM_COLOURS)
            ),
        ]

    def __call__(self, view: View) -> np.ndarray:
        """The observation vector of ``view`` (per-seat pieces relative to ``view.seat``)."""
        if view.table is not self._table:
            self._table_vec = self.encode_table(view.table)
            self._table = view.table
            self._seat_vecs.clear()
        seat_vec = self._seat_vecs.get(view.seat)
        if seat_vec is None:
            seat_vec = self._seat_vecs[view.seat] = self._table_vec[self._perms[view.seat]]
        vec = seat_vec.copy()
        vec[self._cards] = self._card_values.take(view.cards).ravel()
        vec[self._status] = self._status_rows[view.pass_available][view.committed][view.passed]
        return vec

    def encode_table(self, table: TableView) -> np.ndarray:
        """The public pieces in absolute seat order (the private ones left at zero)."""
        layout = self.layout
        vec = layout.zeros()
        vec[self._small] = [
            *table.stack_sizes,
            *table.stack_contents,
            table.draw_size,
            *table.scores,
            *table.pass_available,
            *table.hand_sizes,
            *table.last_passed,
            table.games_played,
        ]
        vec[layout["discard"]] = table.discard
        vec[layout["displayed"]] = table.displayed.ravel()
        vec[layout["last_bids"]] = table.last_bids.ravel()
        phase = table.phase if table.phase < NUM_PHASES else -1  # all zeros once the episode is over
        indices = (table.round, phase, table.chooser, table.pending, table.last_winner, table.last_round)
        vec[
            [
                start + index
                for start, index in zip(self._one_hot_starts, indices + table.face_up + table.stack_tops)
                if index >= 0  # -1: none
            ]
        ] = 1.0
        vec *= self._scales
        return vec
