"""Lucky Pirate's situations for "Where play goes wrong" (`agents.analysis.mistakes`): what the seat
may play (numbers, special cards, both) x the pile's value band; laying up cards in the set-up. A
choice among blind down cards only is no choice (`alike`): the seat cannot tell them apart."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.analysis.mistakes.situations import band
from agents.lucky_pirate.heuristic import NUMBERS_LOW_TO_HIGH, SPECIALS_CHEAPEST_FIRST
from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, LAY_UP_OFFSET, NUM_PLAY_ACTIONS, PLAY_OFFSET
from pirate_envs.lucky_pirate.cards import MAX_COPIES, MAX_UP_DOWN

#: Pile values named together: (largest value of the band, its words).
PILE_BANDS = (
    (0, "an empty pile"),
    (4, "a pile of value 1-4"),
    (7, "a pile of value 5-7"),
    (10, "a pile of value 8-10"),
)

NOTE = (
    "Situations: what you may play (numbers, special cards, both) and the pile's value; a choice among blind "
    "down cards only is none (you cannot tell them apart) and is not counted."
)


def situation(view: Any, legal: np.ndarray) -> str:
    """What the seat may play (numbers, special cards, blind down cards) by the pile's value band."""
    if view.setting_up or any(a >= LAY_UP_OFFSET for a in legal):
        return "choosing cards to lay face up"
    kinds = {(int(a) - PLAY_OFFSET) // MAX_COPIES for a in legal if PLAY_OFFSET <= a < PLAY_OFFSET + NUM_PLAY_ACTIONS}
    numbers = any(k in kinds for k in NUMBERS_LOW_TO_HIGH)
    specials = any(k in kinds for k in SPECIALS_CHEAPEST_FIRST)
    if numbers and specials:
        what = "a number or a special card to play"
    elif numbers:
        what = "only numbers to play"
    elif specials:
        what = "no number to play, a special card you may"
    else:
        what = "only a blind down card or picking up"
    return f"{what}, {band(int(view.pile_value), PILE_BANDS)}"


def alike(legal: np.ndarray) -> bool:
    """Whether every legal move is a blind down card: all alike to the seat, so no choice."""
    return all(DOWN_OFFSET <= a < DOWN_OFFSET + MAX_UP_DOWN for a in legal)
