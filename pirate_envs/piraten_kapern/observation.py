"""Piraten Kapern observation: layout table and encoder (seat-relative per-player pieces)."""

from __future__ import annotations

import functools

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.piraten_kapern.scoring import CARD_INDEX, CARDS, NUM_DICE, NUM_FACES, card_skulls
from pirate_envs.piraten_kapern.view import KapernView

POINTS_SCALE = 1000.0  # turn points are given in thousands
ROLLS_SCALE = 10.0
DECK_SCALE = 4.0  # at most four copies of a card


def build_layout(num_players: int) -> ObservationLayout:
    """The observation layout for ``num_players`` seats."""
    n = num_players
    return ObservationLayout(
        [
            ("on_turn", (n,), "one-hot: player on turn, seat-relative (index 0 = me)"),
            ("card", (len(CARDS),), "one-hot: fortune card of the turn in play"),
            ("dice", (NUM_FACES,), "free dice per face (coin diamond monkey parrot sabre skull) / 8"),
            ("chest", (NUM_FACES,), "dice on the Treasure Chest per face / 8"),
            ("rolls", (1,), "rolls made this turn / 10"),
            ("sorceress_available", (1,), "1 if the Sorceress skull re-roll is still unused"),
            ("island", (1,), "1 on the Island of Skulls"),
            ("skulls", (1,), "skulls counting this turn (dice + card) / 8"),
            ("turn_points", (1,), "points at stake if the player on turn stops now / 1000"),
            ("scores", (n,), "scores / target score, seat-relative"),
            ("final_round", (1,), "1 once the final round is triggered"),
            ("final_turn_left", (n,), "1 for players who still have their final turn, seat-relative"),
            ("deck_left", (len(CARDS),), "fortune cards of each kind left in the deck / 4"),
        ]
    )


class KapernEncoder:
    """Encodes views into observation vectors.

    The vector has two halves that change at different rates: the turn in play (card, dice,
    chest...) and the table (scores, final round, deck). Each half is memoised on the view
    fields it reads, so most observations only join two cached lists.
    """

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.turn_size = layout.piece("scores").start
        self.table_size = layout.size - self.turn_size
        self._turn_part = functools.lru_cache(maxsize=1 << 16)(self._encode_turn)
        self._table_part = functools.lru_cache(maxsize=1 << 10)(self._encode_table)

    def __call__(self, view: KapernView) -> np.ndarray:
        n = view.num_players
        turn = self._turn_part(
            (view.current_player - view.seat) % n,
            view.card,
            view.free,
            view.chest,
            view.rolls,
            view.sorceress_used,
            view.island,
            view.island_skulls,
            view.turn_points,
        )
        table = self._table_part(
            view.seat, view.scores, view.target_score, view.final_trigger, view.final_turns_left, view.deck_counts
        )
        return np.array(turn + table, dtype=np.float32)

    def _encode_turn(
        self,
        on_turn: int,
        card: str,
        free: tuple[int, ...],
        chest: tuple[int, ...],
        rolls: int,
        sorceress_used: bool,
        island: bool,
        island_skulls: int,
        turn_points: int,
    ) -> tuple[float, ...]:
        n = self.layout.piece("on_turn").size
        vec = [0.0] * self.turn_size
        vec[on_turn] = 1.0
        base = n
        vec[base + CARD_INDEX[card]] = 1.0
        base += len(CARDS)
        for face in range(NUM_FACES):
            vec[base + face] = free[face] / NUM_DICE
            vec[base + NUM_FACES + face] = chest[face] / NUM_DICE
        base += 2 * NUM_FACES
        skulls = island_skulls if island else free[-1] + card_skulls(card)
        vec[base : base + 5] = [
            rolls / ROLLS_SCALE,
            float(card == "sorceress" and not sorceress_used),
            float(island),
            skulls / NUM_DICE,
            turn_points / POINTS_SCALE,
        ]
        return tuple(vec)

    def _encode_table(
        self,
        seat: int,
        scores: tuple[int, ...],
        target: int,
        final_trigger: int | None,
        final_turns_left: tuple[bool, ...],
        deck_counts: tuple[int, ...],
    ) -> tuple[float, ...]:
        n = len(scores)
        order = [(seat + k) % n for k in range(n)]
        return (
            *(scores[s] / target for s in order),
            float(final_trigger is not None),
            *(float(final_turns_left[s]) for s in order),
            *(count / DECK_SCALE for count in deck_counts),
        )
