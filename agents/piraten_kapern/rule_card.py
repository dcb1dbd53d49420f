"""Piraten Kapern's rule-card vocabulary: features of the dice, the card and the scores; moves in words.

Moves: stop, go on as the heuristic re-rolls, re-roll the junk (what scores nothing where it
stands, as the heuristic counts it), or do as the simple heuristic. A re-roll that breaks a set
of three or more is no move of the card (tried: it lost to the heuristic). A re-roll with the
Treasure Chest first moves the kept dice onto it (`agents.piraten_kapern.oracle.reroll_step`).
The distiller counts any re-roll as agreeing with the teacher's re-roll (``move_kind``): only
stopping or going on is distilled (half credit for another re-roll spent the rules on re-roll
details and kept no edge).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.piraten_kapern.heuristic import KapernHeuristic, junk, must_chase
from agents.piraten_kapern.oracle import option_open, reroll_step
from agents.rules.vocabulary import Choice, Feature, Vocabulary, agent_choice
from pirate_envs.piraten_kapern.actions import MIN_REROLL, NUM_ACTIONS, STOP
from pirate_envs.piraten_kapern.rules import SKULL, card_skulls

FLAG = "flag"
#: A stake the heuristic never risks less than: with it, it never banks at two skulls.
NEVER_BANK = 10**9


def _skulls(v: Any) -> int:
    return int(v.showing[SKULL]) + card_skulls(v.card)


def _lead(v: Any) -> int:
    others = [s for seat, s in enumerate(v.scores) if seat != v.seat]
    return int(v.scores[v.seat]) - max(others)


def _with_sorceress(v: Any, reroll: list[int]) -> list[int]:
    if v.card == "sorceress" and option_open(v) and v.showing[SKULL] > 0:
        reroll[SKULL] = 1
    return reroll


def _reroll(pick: Any) -> Any:
    def choose(v: Any, legal: np.ndarray) -> int | None:
        if v.island:
            reroll = [*v.free[:SKULL], 0]
        else:
            reroll = _with_sorceress(v, [min(n, f) for n, f in zip(pick(v), v.free, strict=True)])
        if sum(reroll[:SKULL]) < MIN_REROLL and not reroll[SKULL]:
            return None
        return reroll_step(v, reroll)

    return choose


#: A re-roll when the teacher re-rolls agrees this much (1: only stopping or going on is distilled).
KIND_CREDIT = 1.0


def _stop_or_go(action: int) -> int:
    return int(action != STOP)


FEATURES = (
    Feature("skulls", "skulls showing (the card's skulls included)", lambda v, legal: _skulls(v)),
    Feature("turn_points", "the points you score if you stop now", lambda v, legal: v.turn_points),
    Feature("junk", "dice that score nothing where they stand", lambda v, legal: sum(junk(v.showing, v.card)[:SKULL])),
    Feature("free", "free dice that are not skulls", lambda v, legal: sum(v.free[:SKULL])),
    Feature(
        "chasing",
        "stopping now loses points (a Sea Battle not won, sabres under Peace)",
        lambda v, legal: float(must_chase(v.showing, v.card)),
        FLAG,
        "stopping loses nothing",
    ),
    Feature("rolls", "rolls made this turn", lambda v, legal: v.rolls),
    Feature("island", "you are on the Island of Skulls", lambda v, legal: float(v.island), FLAG, "not on the island"),
    Feature("lead", "your score less the best other score", lambda v, legal: _lead(v)),
    Feature("to_go", "points you still need to reach the target", lambda v, legal: v.target_score - v.scores[v.seat]),
)

CHOICES = (
    agent_choice(
        "heuristic",
        "do as the simple heuristic: keep coins, diamonds and sets, re-roll the junk, stop at two skulls "
        "unless little is at stake, chase an unwon Sea Battle",
        KapernHeuristic(),
        NUM_ACTIONS,
    ),
    agent_choice(
        "go_on",
        "re-roll as the simple heuristic does when it goes on (the junk; a Sea Battle's non-sabres)",
        KapernHeuristic(small_stake=NEVER_BANK),
        NUM_ACTIONS,
    ),
    Choice("stop", "stop and score", lambda v, legal: STOP),
    Choice("reroll_junk", "re-roll the dice that score nothing", _reroll(lambda v: junk(v.showing, v.card))),
)

VOCABULARY = Vocabulary(
    "piraten_kapern_v0",
    FEATURES,
    CHOICES,
    fallback="heuristic",
    players=2,
    move_kind=_stop_or_go,
    kind_credit=KIND_CREDIT,
)

__all__ = ["VOCABULARY"]
