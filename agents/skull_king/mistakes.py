"""Skull King's situations for "Where play goes wrong" (`agents.analysis.mistakes`): bidding by hand
size and strong cards; leading or following (whether a legal card takes the trick as it stands) by
where the bid stands."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.analysis.mistakes.situations import band
from agents.skull_king.rule_card import strong_cards
from pirate_envs.skull_king.actions import CARD_OFFSET
from pirate_envs.skull_king.engine import Phase
from pirate_envs.skull_king.rules import winner_of_tokens

#: Hand sizes named together when bidding: (largest hand of the band, its words).
HAND_BANDS = ((3, "1-3 cards"), (6, "4-6 cards"), (10, "7-10 cards"))

NOTE = (
    "Situations: bidding by the cards dealt and the strong cards held (the Skull King, Pirates, Mermaids, "
    "black 10+, coloured 12+); playing by leading or following (and whether a legal card takes the trick as "
    "it stands) and where your bid stands."
)


def situation(view: Any, legal: np.ndarray) -> str:
    """Bidding by hand size and strong cards; else leading or following by where the bid stands."""
    if view.phase == Phase.BID:
        strong = strong_cards(view)
        held = "no strong card" if strong == 0 else ("1 strong card" if strong == 1 else "2+ strong cards")
        return f"bidding with {band(view.hand_number, HAND_BANDS)}, {held}"
    bid, won = int(view.bids[view.seat]), int(view.tricks_won[view.seat])
    if bid == 0 and won == 0:
        stands = "a bid of 0 still clean"
    elif won < bid:
        stands = "your bid still needs tricks"
    elif won == bid:
        stands = "your bid made (no more tricks wanted)"
    else:
        stands = "your bid already over"
    if not view.trick:
        return f"leading, {stands}"
    trick = list(view.trick)
    can_win = any(winner_of_tokens([*trick, int(a) - CARD_OFFSET]) == len(trick) for a in legal if a >= CARD_OFFSET)
    return f"following {'and able' if can_win else 'unable'} to take the trick, {stands}"
