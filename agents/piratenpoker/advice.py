"""Piratenpoker's advice: when to spend the Pass and where the overboard loot goes, read from the
observation and measured by intervention (`agents.analysis.advice`). Overboard, the round's winner
gives a loot card back side up: a Shark (worth 4, three make a set) or a negative card (-3/-4/-5)."""

from __future__ import annotations

import numpy as np

from agents.analysis.advice.findings import AdvicePlan
from agents.analysis.advice.rules import Rule, piece
from pirate_envs.piratenpoker.cards import BACK_SIDE, NUM_FRONTS

PASS, TO_SELF = 25, 39
TO_OTHERS = slice(40, 44)
#: Below deck, the round winner gives one of its displayed negative cards (29-37) or keeps them (38).
GIVE_NEGATIVE = slice(29, 38)
OVERBOARD, BELOW_DECK, LOOT = 0, 1, 2
PHASE_BID, PHASE_GIVE, PHASE_RECIPIENT = 0, 2, 3


def _moves(legal: np.ndarray, chosen) -> np.ndarray:
    out = np.zeros(legal.shape, dtype=bool)
    out[:, chosen] = True
    return out


def _opening_bid(obs, layout, round_index: int) -> np.ndarray:
    """Bidding in round ``round_index`` with nothing chosen yet and the Pass in hand."""
    return (
        (piece(obs, layout, "phase")[:, PHASE_BID] > 0.5)
        & (piece(obs, layout, "round")[:, round_index] > 0.5)
        & (piece(obs, layout, "bid").sum(axis=1) == 0)
        & (piece(obs, layout, "pass_available")[:, 0] > 0.5)
    )


def _giving(obs, layout, shark: bool) -> np.ndarray:
    """Choosing who gets the overboard card, which is a Shark (``shark``) or a negative card."""
    pending = piece(obs, layout, "pending")
    kind = pending.argmax(axis=1)
    back = (kind // NUM_FRONTS) % 2 == BACK_SIDE
    is_shark = back & (kind % NUM_FRONTS == 0)
    recipient = (piece(obs, layout, "phase")[:, PHASE_RECIPIENT] > 0.5) & (pending.sum(axis=1) > 0) & back
    return recipient & (is_shark if shark else ~is_shark)


def _to_leaders(obs, legal, layout) -> np.ndarray:
    """The recipient moves naming another player with the best score (every one of them when tied)."""
    others = piece(obs, layout, "scores")[:, 1:]
    leaders = others >= others.max(axis=1, keepdims=True)
    out = np.zeros(legal.shape, dtype=bool)
    out[:, TO_OTHERS.start : TO_OTHERS.start + others.shape[1]] = leaders
    return out


ADVICE: tuple[Rule, ...] = (
    Rule(
        "pass_below_deck",
        "Below deck (the second round), bid your Pass.",
        lambda obs, legal, layout: _opening_bid(obs, layout, BELOW_DECK),
        lambda obs, legal, layout: _moves(legal, PASS),
    ),
    Rule(
        "pass_overboard",
        "Overboard (the first round), bid your Pass.",
        lambda obs, legal, layout: _opening_bid(obs, layout, OVERBOARD),
        lambda obs, legal, layout: _moves(legal, PASS),
    ),
    Rule(
        "pass_in_loot_round",
        "In the loot round (the third), bid your Pass if you still hold it.",
        lambda obs, legal, layout: _opening_bid(obs, layout, LOOT),
        lambda obs, legal, layout: _moves(legal, PASS),
    ),
    Rule(
        "give_negative_away",
        "Overboard, give a negative loot card to another player.",
        lambda obs, legal, layout: _giving(obs, layout, shark=False),
        lambda obs, legal, layout: _moves(legal, TO_OTHERS),
    ),
    Rule(
        "keep_shark",
        "Overboard, keep a Shark for yourself.",
        lambda obs, legal, layout: _giving(obs, layout, shark=True),
        lambda obs, legal, layout: _moves(legal, TO_SELF),
    ),
    Rule(
        "give_negative_below_deck",
        "Below deck, when you win the round, give one of your negative loot cards away.",
        lambda obs, legal, layout: piece(obs, layout, "phase")[:, PHASE_GIVE] > 0.5,
        lambda obs, legal, layout: _moves(legal, GIVE_NEGATIVE),
    ),
    Rule(
        "negative_to_leader",
        "Overboard, give a negative loot card to the player with the best score.",
        lambda obs, legal, layout: _giving(obs, layout, shark=False),
        _to_leaders,
    ),
)

#: Who plays the interventions: the network WITH/WITHOUT each rule against three copies of itself.
PLAN = AdvicePlan("ppo:piratenpoker_v0", "ppo:piratenpoker_v0", 5_000)

__all__ = ["ADVICE", "PLAN"]
