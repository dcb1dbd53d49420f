"""Skull King's advice: rules of play read from the observation, each measured by intervention
(`agents.analysis.advice`). Kinds: suit cards ``suit * 13 + rank`` (suit 3: the black trumps),
52 Escape, 53 Pirate, 54 Mermaid, 55 Skull King, 56 Scary Mary; card actions ``11 + token``
(token 56: Mary as a Pirate, 57: Mary as an Escape); bid actions ``0 .. 10``.

`ADVICE` is in the order a player checks the rules, the first that applies deciding: leading with the bid
made and Scary Mary but no Escape in hand, "play an Escape" (Mary as one) comes before "hold Scary Mary back"."""

from __future__ import annotations

import numpy as np

from agents.analysis.advice.findings import AdvicePlan
from agents.analysis.advice.outcome import Outcome
from agents.analysis.advice.rules import Rule, piece
from pirate_envs.skull_king.batched import BID_OFFSET, CARD_OFFSET, NUM_ACTIONS, NUM_RANKS, PHASE_BID, TRUMP_SUIT
from pirate_envs.skull_king.observation import TRICKS_OBS_SCALE

TRUMPS = slice(TRUMP_SUIT * NUM_RANKS, (TRUMP_SUIT + 1) * NUM_RANKS)
ESCAPE, PIRATE, MERMAID, SKULL_KING, MARY = 52, 53, 54, 55, 56
#: Card actions that spend a Pirate, Mermaid, Skull King or Scary Mary (either way).
SPECIAL_PLAYS = CARD_OFFSET + np.array([PIRATE, MERMAID, SKULL_KING, MARY, MARY + 1])
#: Card actions that play an Escape (the card, or Mary as one).
ESCAPE_PLAYS = CARD_OFFSET + np.array([ESCAPE, MARY + 1])


def _bidding(obs, layout) -> np.ndarray:
    return piece(obs, layout, "phase")[:, PHASE_BID] > 0.5


def _playing(obs, layout) -> np.ndarray:
    return ~_bidding(obs, layout) & (piece(obs, layout, "phase")[:, PHASE_BID + 1] > 0.5)


def _strong(obs, layout) -> np.ndarray:
    """Trumps and strong specials (Pirate, Mermaid, Skull King, Mary) in hand, per row."""
    hand = piece(obs, layout, "hand")
    return hand[:, TRUMPS].sum(axis=1) + hand[:, [PIRATE, MERMAID, SKULL_KING, MARY]].sum(axis=1)


def _moves(rows: int, chosen) -> np.ndarray:
    out = np.zeros((rows, NUM_ACTIONS), dtype=bool)
    out[:, chosen] = True
    return out


def _leading(obs, layout) -> np.ndarray:
    return _playing(obs, layout) & (piece(obs, layout, "trick").sum(axis=(1, 2)) == 0)


def _bid_made(obs, layout) -> np.ndarray:
    """Rows whose own bid is made already (tricks won equal the bid)."""
    own_bid = piece(obs, layout, "bids")[:, 0].argmax(axis=1)
    won = np.rint(piece(obs, layout, "tricks_won")[:, 0] / TRICKS_OBS_SCALE)
    return own_bid == won


ADVICE: tuple[Rule, ...] = (
    Rule(
        "zero_bid_without_strength",
        "With no trump and no Pirate, Mermaid, Skull King or Scary Mary in hand, bid 0.",
        lambda obs, legal, layout: _bidding(obs, layout) & (_strong(obs, layout) == 0),
        lambda obs, legal, layout: _moves(len(obs), BID_OFFSET),
    ),
    Rule(
        "bid_with_skull_king",
        "Holding the Skull King, bid at least 1.",
        lambda obs, legal, layout: _bidding(obs, layout) & (piece(obs, layout, "hand")[:, SKULL_KING] > 0),
        lambda obs, legal, layout: _moves(len(obs), slice(BID_OFFSET + 1, BID_OFFSET + 11)),
    ),
    Rule(
        "bid_at_most_three",
        "Never bid more than 3.",
        lambda obs, legal, layout: _bidding(obs, layout),
        lambda obs, legal, layout: _moves(len(obs), slice(BID_OFFSET, BID_OFFSET + 4)),
    ),
    Rule(
        "escape_once_made",
        "Once your bid is made, play an Escape when you can.",
        lambda obs, legal, layout: _playing(obs, layout) & _bid_made(obs, layout),
        lambda obs, legal, layout: _moves(len(obs), ESCAPE_PLAYS),
    ),
    Rule(
        "do_not_lead_specials",
        "When you lead, hold your Pirates, Mermaids, Skull King and Scary Mary back: lead a suit card or an Escape.",
        lambda obs, legal, layout: _leading(obs, layout),
        lambda obs, legal, layout: _moves(len(obs), slice(CARD_OFFSET, CARD_OFFSET + PIRATE)),
    ),
)


#: Who plays the interventions: the network WITH/WITHOUT each rule against three copies of itself.
PLAN = AdvicePlan("ppo:skull_king_v0", "ppo:skull_king_v0", 5_000)

#: A decision works when its hand's bid is made: a made bid scores above zero, a missed one below.
OUTCOME = Outcome("hand", "the bid is made", "score_changes")

__all__ = ["ADVICE", "OUTCOME", "PLAN"]
