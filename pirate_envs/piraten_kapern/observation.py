"""Piraten Kapern observation: layout table and encoder (seat-relative per-player pieces)."""

from __future__ import annotations

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
    """Encodes views into observation vectors (offsets precomputed, one array built per call)."""

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.size = layout.size
        self.offsets = {p.name: p.start for p in layout.pieces}

    def __call__(self, view: KapernView) -> np.ndarray:
        o = self.offsets
        vec = [0.0] * self.size
        n = view.num_players
        seat = view.seat
        vec[o["on_turn"] + (view.current_player - seat) % n] = 1.0
        vec[o["card"] + CARD_INDEX[view.card]] = 1.0
        base, chest = o["dice"], o["chest"]
        for face in range(NUM_FACES):
            vec[base + face] = view.free[face] / NUM_DICE
            vec[chest + face] = view.chest[face] / NUM_DICE
        vec[o["rolls"]] = view.rolls / ROLLS_SCALE
        vec[o["sorceress_available"]] = float(view.card == "sorceress" and not view.sorceress_used)
        vec[o["island"]] = float(view.island)
        skulls = view.island_skulls if view.island else view.free[-1] + card_skulls(view.card)
        vec[o["skulls"]] = skulls / NUM_DICE
        vec[o["turn_points"]] = view.turn_points / POINTS_SCALE
        scores, final_left = o["scores"], o["final_turn_left"]
        for k in range(n):
            other = (seat + k) % n
            vec[scores + k] = view.scores[other] / view.target_score
            vec[final_left + k] = float(view.final_turns_left[other])
        vec[o["final_round"]] = float(view.final_trigger is not None)
        deck = o["deck_left"]
        for i, count in enumerate(view.deck_counts):
            vec[deck + i] = count / DECK_SCALE
        return np.array(vec, dtype=np.float32)
