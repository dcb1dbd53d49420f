"""Lucky Pirate's advice: which legal play to make, read from the legal moves and measured by
intervention (`agents.analysis.advice`). Play actions are ``kind * 6 + count - 1`` for the kinds
1..8 (0..7), Captain, Kraken, First Mate, Porthole, Walk the Plank, Mermaid, Parrot, Reverse, Skip
(8..16) and one to six copies."""

from __future__ import annotations

import numpy as np

from agents.analysis.advice.findings import AdvicePlan
from agents.analysis.advice.rules import Rule

MAX_COPIES = 6
NUMBER_KINDS, PLAY_KINDS = 8, 17
PLAYS = PLAY_KINDS * MAX_COPIES


def _plays(legal: np.ndarray) -> np.ndarray:
    """``(M, kinds, copies)``: the legal plays of every kind and count."""
    return legal[:, :PLAYS].reshape(len(legal), PLAY_KINDS, MAX_COPIES)


def _in_plays(legal: np.ndarray, plays: np.ndarray) -> np.ndarray:
    out = np.zeros(legal.shape, dtype=bool)
    out[:, :PLAYS] = plays.reshape(len(legal), PLAYS)
    return out


def _most_copies(obs, legal, layout) -> np.ndarray:
    """Of each kind, only the play with the most copies."""
    plays = _plays(legal)
    top = MAX_COPIES - 1 - np.argmax(plays[:, :, ::-1], axis=2)  # the largest legal count index per kind
    chosen = np.zeros_like(plays)
    rows, kinds = np.nonzero(plays.any(axis=2))
    chosen[rows, kinds, top[rows, kinds]] = True
    return _in_plays(legal, chosen)


def _numbers(obs, legal, layout) -> np.ndarray:
    plays = np.zeros_like(_plays(legal))
    plays[:, :NUMBER_KINDS] = True
    return _in_plays(legal, plays)


def _lowest_number(obs, legal, layout) -> np.ndarray:
    kinds = _plays(legal)[:, :NUMBER_KINDS].any(axis=2)
    lowest = np.argmax(kinds, axis=1)
    plays = np.zeros_like(_plays(legal))
    rows = np.flatnonzero(kinds.any(axis=1))
    plays[rows, lowest[rows]] = True
    return _in_plays(legal, plays)


FIRST_MATE, WALK_THE_PLANK = 10, 12


def _kind(kind: int):
    """The prescription: the plays of ``kind``."""

    def prescribed(obs, legal, layout) -> np.ndarray:
        plays = np.zeros_like(_plays(legal))
        plays[:, kind] = True
        return _in_plays(legal, plays)

    return prescribed


def _kind_or_other(kind: int):
    """The condition: a play of ``kind`` and a play of another kind are both legal."""

    def condition(obs, legal, layout) -> np.ndarray:
        kinds = _plays(legal).any(axis=2)
        return kinds[:, kind] & (np.delete(kinds, kind, axis=1).any(axis=1))

    return condition


def _not_kind(kind: int):
    def prescribed(obs, legal, layout) -> np.ndarray:
        return _in_plays(legal, np.ones_like(_plays(legal))) & ~_kind(kind)(obs, legal, layout)

    return prescribed


ADVICE: tuple[Rule, ...] = (
    Rule(
        "play_all_copies",
        "When you play a kind, play every copy of it you can.",
        lambda obs, legal, layout: (_plays(legal).sum(axis=2) >= 2).any(axis=1),
        _most_copies,
    ),
    Rule(
        "numbers_before_specials",
        "When you can play a number card, keep your special cards: play the number.",
        lambda obs, legal, layout: (
            _plays(legal)[:, :NUMBER_KINDS].any(axis=(1, 2)) & _plays(legal)[:, NUMBER_KINDS:].any(axis=(1, 2))
        ),
        _numbers,
    ),
    Rule(
        "lowest_number_first",
        "Of the numbers you can play, play the lowest.",
        lambda obs, legal, layout: _plays(legal)[:, :NUMBER_KINDS].any(axis=2).sum(axis=1) >= 2,
        _lowest_number,
    ),
    Rule(
        "keep_first_mate",
        "When you can play something other than your First Mate, keep the First Mate.",
        _kind_or_other(FIRST_MATE),
        _not_kind(FIRST_MATE),
    ),
    Rule(
        "save_walk_the_plank",
        "When you can play something other than Walk the Plank, keep Walk the Plank.",
        _kind_or_other(WALK_THE_PLANK),
        _not_kind(WALK_THE_PLANK),
    ),
)

#: Who plays the interventions: the network WITH/WITHOUT each rule against three copies of itself.
PLAN = AdvicePlan("ppo:lucky_pirate_v0", "ppo:lucky_pirate_v0", 10_000)

__all__ = ["ADVICE", "PLAN"]
