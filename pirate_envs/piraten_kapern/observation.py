"""Piraten Kapern observation: layout table and encoder (seat-relative per-player pieces)."""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from pirate_envs.core.observation import ObservationLayout
from pirate_envs.piraten_kapern.scoring import CARDS, NUM_DICE, NUM_FACES, card_skulls
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


def _one_hots(size: int) -> tuple[tuple[float, ...], ...]:
    """``_one_hots(n)[i]`` is the one-hot tuple of ``i`` among ``n``."""
    return tuple(tuple(float(i == j) for j in range(size)) for i in range(size))


_CARD_ONE_HOT = dict(zip(CARDS, _one_hots(len(CARDS))))
_DECK_FRACTION = tuple(k / DECK_SCALE for k in range(64))
#: Free or chest dice counts -> their fractions of eight (every count tuple there is, 1716 at most).
_DICE_FRACTIONS: dict[tuple[int, ...], tuple[float, ...]] = {}


def _dice_fractions(counts: tuple[int, ...]) -> tuple[float, ...]:
    """``counts / 8`` as a tuple, memoised."""
    fractions = _DICE_FRACTIONS.get(counts)
    if fractions is None:
        fractions = _DICE_FRACTIONS[counts] = tuple(k / NUM_DICE for k in counts)
    return fractions


class KapernEncoder:
    """Encodes views into observation vectors: one tuple concatenation, one array.

    The pieces are joined in the layout's order (a test checks every piece by name).
    """

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        n = self.num_players = layout.piece("on_turn").size
        self._on_turn = _one_hots(n)
        self._orders = [[(seat + k) % n for k in range(n)] for seat in range(n)]

    def __call__(self, view: KapernView) -> np.ndarray:
        seat = view.seat
        order = self._orders[seat]
        card = view.card
        skulls = view.island_skulls if view.island else view.free[-1] + card_skulls(card)
        target = view.target_score
        scores, left = view.scores, view.final_turns_left
        return np.array(
            self._on_turn[order.index(view.current_player)]
            + _CARD_ONE_HOT[card]
            + _dice_fractions(view.free)
            + _dice_fractions(view.chest)
            + (
                view.rolls / ROLLS_SCALE,
                float(card == "sorceress" and not view.sorceress_used),
                float(view.island),
                skulls / NUM_DICE,
                view.turn_points / POINTS_SCALE,
            )
            + tuple([scores[s] / target for s in order])
            + (float(view.final_trigger is not None),)
            + tuple([float(left[s]) for s in order])
            + itemgetter(*view.deck_counts)(_DECK_FRACTION),
            dtype=np.float32,
        )
