"""Lucky Pirate observation: layout table and encoder (seat-relative per-player rows).

The counting pieces (hand, per-seat table, removed cards; and the options' pieces ``known`` and
``pile_cards``, the last ones) are filled by one concatenation and one scaling; the down slots,
the four scalars and the one-hot pieces between them are precomputed ``float32`` bytes.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from pirate_envs.core.observation import ObservationLayout, float32_bytes
from pirate_envs.lucky_pirate.cards import MAX_UP_DOWN, MAX_VALUE, NUM_KINDS
from pirate_envs.lucky_pirate.engine import MAX_PLAYERS, PILE_TOP_CARDS, Config
from pirate_envs.lucky_pirate.rules import NUM_MODES, NUM_RUN_KINDS, RUN_TO_CLEAR
from pirate_envs.lucky_pirate.view import (
    DOWN_LEFT_COLUMN,
    HAND_SIZE_COLUMN,
    TABLE_COLUMNS,
    WINS_COLUMN,
    View,
)

#: Packs pile_size, run_length, direction, setting_up (module level: a ``struct.Struct`` cannot
#: be pickled, and the encoder must be).
_pack_scalars = struct.Struct("4f").pack

#: The pieces of the observation options ``observe_known`` and ``observe_pile``, last in the vector
#: in this order (counts per kind, scaled as the hand).
OPTION_PIECES = ("known", "pile_cards")


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
        + (
            # every player saw them go into the hand (a picked-up pile, a failed down card)
            [
                (
                    "known",
                    (n, NUM_KINDS),
                    "per seat, seat-relative rows (0 = me): publicly known hand cards per kind / most copies",
                )
            ]
            if config.observe_known
            else []
        )
        + ([("pile_cards", (NUM_KINDS,), "cards in the pile per kind / most copies")] if config.observe_pile else [])
    )


@functools.cache
def largest_layout(observe_known: bool = False, observe_pile: bool = False) -> ObservationLayout:
    """The seated layout of the largest table (MAX_PLAYERS = 6 seats): the base of ``table_layout="max"``."""
    return build_layout(Config(num_players=MAX_PLAYERS, observe_known=observe_known, observe_pile=observe_pile))


def piece_bounds(config: Config) -> dict[str, tuple[float, float]]:
    """The bounds of the pieces not within [0, 1]: the direction of play (+1 or -1)."""
    return {"direction": (-1.0, 1.0)}


class Encoder:
    """Encodes views into observation vectors by joining ``float32`` bytes.

    The counting pieces (hand, per-seat table, removed cards, and the options' last pieces ``known``
    and ``pile_cards``) are cast and scaled in one numpy buffer, joined as two slices of it; the
    down slots and one-hots are precomputed bytes; the four scalars are packed with one ``struct``
    call; the joined bytes become the array in one copy.
    """

    def __init__(self, layout: ObservationLayout, config: Config):
        self.layout = layout
        copies = max(config.deck.values())
        self.inv_deck = 1.0 / config.deck_size
        row = np.full(len(TABLE_COLUMNS), 1.0 / copies)
        row[[HAND_SIZE_COLUMN, DOWN_LEFT_COLUMN, WINS_COLUMN]] = (
            self.inv_deck,
            1.0 / MAX_UP_DOWN,
            1.0 / config.wins_to_win,
        )
        n = config.num_players
        head = layout["removed"].stop  # hand, players, removed: the vector's first floats
        self._observe_known, self._observe_pile = (name in layout for name in OPTION_PIECES)
        tail_size = sum(layout.piece(name).size for name in OPTION_PIECES if name in layout)
        if head != layout["down_slots"].start or layout["to_play"].stop + tail_size != layout.size:
            raise AssertionError("the counting pieces must come right before down_slots, and the options' last")
        #: Scales of the scratch buffer: hand, players, removed, then the tail (per kind, like the hand).
        self.scale = np.concatenate(
            [np.full(NUM_KINDS, 1.0 / copies), np.tile(row, n), np.full(NUM_KINDS, 1.0 / copies)]
            + [np.full(tail_size, 1.0 / copies)]
        ).astype(np.float32)
        self._counts = np.zeros(head + tail_size, dtype=np.float32)  # scratch buffer of the counting pieces
        self._head_size = head
        self._link_buffers()
        eye = np.eye(max(NUM_KINDS, MAX_VALUE + 1, NUM_MODES, NUM_RUN_KINDS, n), dtype=np.float32)
        self._kind = [eye[k, :NUM_KINDS].tobytes() for k in range(NUM_KINDS)]
        self._no_kind = bytes(4 * NUM_KINDS)
        self._pile_tops: dict[tuple[int, ...], bytes] = {}
        self._down_slots: dict[tuple[bool, ...], bytes] = {}
        #: ``[pile_value][pile_mode][run_kind]`` (run_kind -1: no run, the last entry: zeros)
        self._top = [
            [
                [
                    eye[value, : MAX_VALUE + 1].tobytes()
                    + eye[mode, :NUM_MODES].tobytes()
                    + (eye[run, :NUM_RUN_KINDS].tobytes() if run >= 0 else bytes(4 * NUM_RUN_KINDS))
                    for run in (*range(NUM_RUN_KINDS), -1)
                ]
                for mode in range(NUM_MODES)
            ]
            for value in range(MAX_VALUE + 1)
        ]
        self._to_play = [eye[seat, :n].tobytes() for seat in range(n)]

    def _link_buffers(self) -> None:
        """The scratch buffer's two runs of the vector, as memoryviews that ``bytes.join`` reads without a copy."""
        self._head = memoryview(self._counts)[: self._head_size]
        self._tail = memoryview(self._counts)[self._head_size :]

    def __getstate__(self) -> dict[str, object]:
        """The state that ``pickle`` and ``copy.deepcopy`` copy: the memoryviews are rebuilt on the copy's buffer."""
        state = self.__dict__.copy()
        del state["_head"], state["_tail"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._link_buffers()

    def __call__(self, view: View) -> np.ndarray:
        counts = self._counts
        parts: tuple[np.ndarray, ...] = (view.hand, view.table.ravel(), view.removed)
        if self._observe_known:
            parts += (view.known.ravel(),)
        if self._observe_pile:
            parts += (view.pile_counts,)
        np.concatenate(parts, out=counts, casting="unsafe")
        counts *= self.scale
        filled = view.down_slots
        slots = self._down_slots.get(filled)
        if slots is None:  # padded with zeros to MAX_UP_DOWN slots
            slots = self._down_slots[filled] = float32_bytes([*filled, *[0.0] * (MAX_UP_DOWN - len(filled))])
        pile_top = self._pile_tops.get(view.pile_top)
        if pile_top is None:
            kinds = [self._kind[k] for k in view.pile_top]
            kinds += [self._no_kind] * (PILE_TOP_CARDS - len(kinds))
            pile_top = self._pile_tops[view.pile_top] = b"".join(kinds)
        joined = b"".join(
            (
                self._head,
                slots,
                _pack_scalars(
                    view.pile_size * self.inv_deck, view.run_length / RUN_TO_CLEAR, view.direction, view.setting_up
                ),
                pile_top,
                self._top[view.pile_value][view.pile_mode][view.run_kind],
                self._to_play[view.to_play],
                self._tail,
            )
        )
        return np.frombuffer(bytearray(joined), np.float32)  # a bytearray keeps it writable; dtype positional: faster
