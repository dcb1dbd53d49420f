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
    """Encodes views into observation vectors with precomputed slice offsets."""

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.on_turn = layout["on_turn"].start
        self.card = layout["card"].start
        self.dice = layout["dice"]
        self.chest = layout["chest"]
        self.rolls = layout["rolls"].start
        self.sorceress = layout["sorceress_available"].start
        self.island = layout["island"].start
        self.skulls = layout["skulls"].start
        self.turn_points = layout["turn_points"].start
        self.scores = layout["scores"]
        self.final_round = layout["final_round"].start
        self.final_left = layout["final_turn_left"]
        self.deck_left = layout["deck_left"]

    def __call__(self, view: KapernView) -> np.ndarray:
        vec = np.zeros(self.layout.size, dtype=np.float32)
        n = view.num_players
        order = [(view.seat + k) % n for k in range(n)]
        vec[self.on_turn + (view.current_player - view.seat) % n] = 1.0
        vec[self.card + CARD_INDEX[view.card]] = 1.0
        vec[self.dice] = view.free
        vec[self.dice] /= NUM_DICE
        vec[self.chest] = view.chest
        vec[self.chest] /= NUM_DICE
        vec[self.rolls] = view.rolls / ROLLS_SCALE
        vec[self.sorceress] = view.card == "sorceress" and not view.sorceress_used
        vec[self.island] = view.island
        skulls = view.island_skulls if view.island else view.free[-1] + card_skulls(view.card)
        vec[self.skulls] = skulls / NUM_DICE
        vec[self.turn_points] = view.turn_points / POINTS_SCALE
        vec[self.scores] = [view.scores[s] / view.target_score for s in order]
        vec[self.final_round] = view.final_trigger is not None
        vec[self.final_left] = [view.final_turns_left[s] for s in order]
        vec[self.deck_left] = view.deck_counts
        vec[self.deck_left] /= DECK_SCALE
        return vec
