"""Piraten Kapern's rule-card vocabulary: features of the dice, the card and the scores; moves in words.

Moves: stop, go on, re-roll the junk (what scores nothing where it stands, as the heuristic
counts it), or do as the simple heuristic. Going on re-rolls as the heuristic does when it goes
on; where that leaves fewer than two dice to re-roll (the heuristic would stop), it adds dice of
the faces showing fewest, one at a time: a lone coin or diamond before a pair, a pair before a
set. (Measured before this card was distilled, 300 duplicate deals against the heuristic at two
players, the oracle deciding when to stop: the dice chosen so won 0.612 [0.576, 0.648]; giving up
the least valuable faces first, sets of three included, 0.556 [0.520, 0.591]; the oracle's own
dice 0.664 [0.628, 0.700]. With the heuristic's dice the card could only stop where it stops.)

Each position weighs in the distilling by its stakes: what the oracle's expected points of the turn
differ between stopping and going on, plus `STAKES_FLOOR` (a decision worth little still counts).
(Measured the same way, on 300 duplicate deals apart from the evaluation deals, cards distilled with
a floor of 1 and of 20 won 0.587 [0.551, 0.622] and 0.601 [0.566, 0.636] against the heuristic, the
card distilled without stakes 0.570 [0.534, 0.606].) A re-roll with the
Treasure Chest first moves the kept dice onto it (`agents.piraten_kapern.oracle.reroll_step`).
The distiller counts any re-roll as agreeing with the teacher's re-roll (``move_kind``): only
stopping or going on is distilled (half credit for another re-roll spent the rules on re-roll
details and kept no edge).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.piraten_kapern.heuristic import KapernHeuristic, junk, must_chase
from agents.piraten_kapern.oracle import expected_points_of_moves, option_open, reroll_step
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


def _going_on(v: Any) -> list[int] | None:
    """The heuristic's re-roll when it goes on; short of two dice, padded with the faces showing fewest."""
    reroll = GO_ON.plan(v)
    if reroll is not None or v.island:
        return reroll
    reroll = junk(v.showing, v.card)
    left = [n - r for n, r in zip(v.showing, reroll, strict=True)]
    while sum(reroll[:SKULL]) < MIN_REROLL:
        faces = [face for face in range(SKULL) if left[face] > 0]
        if not faces:
            return None
        face = min(faces, key=lambda f: (left[f], -f))
        reroll[face] += 1
        left[face] -= 1
    return _with_sorceress(v, reroll)


def _go_on(v: Any, legal: np.ndarray) -> int | None:
    reroll = _going_on(v)
    return None if reroll is None else reroll_step(v, reroll)


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


#: The heuristic that never banks at two skulls: how the card goes on where it can.
GO_ON = KapernHeuristic(small_stake=NEVER_BANK)

#: A re-roll when the teacher re-rolls agrees this much (1: only stopping or going on is distilled).
KIND_CREDIT = 1.0


#: Points every position weighs at least (its stakes added).
STAKES_FLOOR = 20.0


def _stakes(v: Any, legal: np.ndarray, actions: Any) -> float:
    """The gap in the oracle's expected points of the turn between stopping and going on, plus the floor."""
    go = actions["go_on"]
    if go is None or STOP not in legal:
        return STAKES_FLOOR
    stop_points, go_points = expected_points_of_moves(v, [STOP, go])
    return abs(stop_points - go_points) + STAKES_FLOOR


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
    Choice(
        "go_on",
        "roll again: re-roll the junk (a Sea Battle's non-sabres); short of two dice, add dice of the faces "
        "you show fewest of",
        _go_on,
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
    stakes=_stakes,
)

__all__ = ["VOCABULARY"]
