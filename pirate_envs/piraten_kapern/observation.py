"""Piraten Kapern observation: layout table and encoder (seat-relative per-player pieces)."""

from __future__ import annotations

import functools
import struct
from operator import itemgetter

import numpy as np

from pirate_envs.core.observation import ObservationLayout, float32_bytes
from pirate_envs.piraten_kapern.dice import count_vectors
from pirate_envs.piraten_kapern.engine import MAX_PLAYERS, Config
from pirate_envs.piraten_kapern.rules import (
    CAPTAIN_FACTOR,
    CARD_SKULLS,
    CARDS,
    FULL_CHEST_BONUS,
    MAX_SET,
    NUM_DICE,
    NUM_FACES,
    OBJECT_POINTS,
    SEA_BATTLES,
    SET_POINTS,
    card_skulls,
)
from pirate_envs.piraten_kapern.view import View

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
            ("rolls", (1,), "rolls made this turn / 10 (counted up to 50)"),
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


@functools.cache
def largest_layout() -> ObservationLayout:
    """The seated layout of the largest table (MAX_PLAYERS = 5 seats): the base of ``table_layout="max"``."""
    return build_layout(MAX_PLAYERS)


def _one_hots(size: int) -> tuple[tuple[float, ...], ...]:
    """``_one_hots(n)[i]`` is the one-hot tuple of ``i`` among ``n``."""
    return tuple(tuple(float(i == j) for j in range(size)) for i in range(size))


_CARD_BYTES = {card: float32_bytes(one_hot) for card, one_hot in zip(CARDS, _one_hots(len(CARDS)))}
#: Free or chest dice counts (every count vector of 0 to 8 dice) -> their fractions of eight.
_DICE_BYTES = {
    counts: float32_bytes([k / NUM_DICE for k in counts]) for n in range(NUM_DICE + 1) for counts in count_vectors(n)
}
_DECK_FRACTION = tuple(k / DECK_SCALE for k in range(64))


#: The most one turn moves a score, either way: a Captain doubles at most 8 of a kind (4,000), 9
#: coins or diamonds (900), a full chest (500) and a Sea Battle's bonus (1,000); every loss is
#: smaller (a Peace turn's 8 sabres: 8,000; an Island's 10 skulls doubled: 2,000).
MAX_TURN_POINTS = CAPTAIN_FACTOR * (
    SET_POINTS[MAX_SET] + OBJECT_POINTS * (NUM_DICE + 1) + FULL_CHEST_BONUS + max(b for _, b in SEA_BATTLES.values())
)
#: The rolls one turn may make have no limit in the rules; the observation counts them up to this.
MAX_OBSERVED_ROLLS = 50


def piece_bounds(config: Config) -> dict[str, tuple[float, float]]:
    """The bounds of the pieces not within [0, 1]: rolls, skulls, turn points, scores, cards left.

    A score moves by at most `MAX_TURN_POINTS` a turn, for at most ``max_turns`` turns.
    """
    copies = max(*config.fortune_deck, config.promo_copies if config.promo_cards else 0)
    score = config.max_turns * MAX_TURN_POINTS / config.target_score
    return {
        "rolls": (0.0, MAX_OBSERVED_ROLLS / ROLLS_SCALE),
        "skulls": (0.0, (NUM_DICE + max(CARD_SKULLS.values())) / NUM_DICE),
        "turn_points": (-MAX_TURN_POINTS / POINTS_SCALE, MAX_TURN_POINTS / POINTS_SCALE),
        "scores": (-score, score),
        "deck_left": (0.0, copies / DECK_SCALE),
    }


class Encoder:
    """Encodes views into observation vectors by joining ``float32`` bytes.

    The one-hot and dice pieces are precomputed bytes; the numbers are packed with one
    ``struct`` call; the joined bytes become the array in one copy (about three times
    cheaper than ``np.array`` over sixty Python floats). The pieces follow the layout's
    order (a test checks every piece by name).
    """

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        n = self.num_players = layout.piece("on_turn").size
        one_hots = _one_hots(n)
        self._orders = [itemgetter(*[(seat + k) % n for k in range(n)]) for seat in range(n)]
        #: ``[seat][current_player]`` -> the on-turn one-hot relative to ``seat``
        self._on_turn = [[float32_bytes(one_hots[(player - seat) % n]) for player in range(n)] for seat in range(n)]
        # rolls .. turn_points (5), scores (n), final_round (1), final_turn_left (n), deck_left
        self._pack_numbers = struct.Struct(f"{5 + 2 * n + 1 + len(CARDS)}f").pack

    def __reduce__(self) -> tuple[type[Encoder], tuple[ObservationLayout]]:
        """Pickle and copy as the layout alone (a ``struct.Struct`` cannot be pickled); rebuilt on load."""
        return Encoder, (self.layout,)

    def __call__(self, view: View) -> np.ndarray:
        seat = view.seat
        order = self._orders[seat]
        card = view.card
        skulls = view.island_skulls if view.island else view.free[-1] + card_skulls(card)
        target = view.target_score
        numbers = self._pack_numbers(
            min(view.rolls, MAX_OBSERVED_ROLLS) / ROLLS_SCALE,
            card == "sorceress" and not view.sorceress_used,
            view.island,
            skulls / NUM_DICE,
            view.turn_points / POINTS_SCALE,
            *[score / target for score in order(view.scores)],
            view.final_trigger is not None,
            *order(view.final_turns_left),
            *itemgetter(*view.deck_counts)(_DECK_FRACTION),
        )
        joined = b"".join(
            (
                self._on_turn[seat][view.current_player],
                _CARD_BYTES[card],
                _DICE_BYTES[view.free],
                _DICE_BYTES[view.chest],
                numbers,
            )
        )
        return np.frombuffer(bytearray(joined), np.float32)  # writable (a bytearray); dtype positional: cheaper
