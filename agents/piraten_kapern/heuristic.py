"""A simple, honest Piraten Kapern heuristic: keep what scores, re-roll junk, fear the third skull.

It reads only its player's `pirate_envs.piraten_kapern.view.View` and the action mask:

* Island of Skulls: re-roll every die that is not a skull (more skulls cost the opponents).
* Sea Battle not won yet, or sabres showing under Peace: keep re-rolling for (or away from)
  sabres; stopping would lose at least as much as busting.
* Otherwise stop at two skulls unless the points at stake are tiny; the Treasure Chest
  protects the dice on it, so only the points off the chest count as at stake.
* Keep coins, diamonds and sets of three or more; re-roll the other dice ("junk"): with After
  the Storm only coins and diamonds score, with Monkey Business monkeys and parrots are one
  kind. Stop when fewer than two junk dice are left.
* Sorceress: while she is unused, re-roll a skull along with the junk, or alone instead of
  stopping.
* Treasure Chest: every kept die goes on the chest before a re-roll.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.piraten_kapern.oracle import option_open, reroll_step
from pirate_envs.piraten_kapern.actions import MIN_REROLL, STOP
from pirate_envs.piraten_kapern.rules import (
    COIN,
    DIAMOND,
    MIN_SET,
    MONKEY,
    NUM_FACES,
    PARROT,
    SABRE,
    SEA_BATTLES,
    SKULL,
    card_skulls,
    objects_points,
)
from pirate_envs.piraten_kapern.view import View

#: Stop at two skulls unless at most this many points are at stake.
SMALL_STAKE = 200
#: Faces given up first when a re-roll needs more dice (least valuable first).
SPARE_ORDER = (PARROT, MONKEY, SABRE, DIAMOND, COIN)


def junk(showing: tuple[int, ...], card: str) -> list[int]:
    """Dice worth re-rolling, counts per face: what scores nothing where it stands."""
    reroll = [0] * NUM_FACES
    if card == "storm":
        for face in (MONKEY, PARROT, SABRE):
            reroll[face] = showing[face]
        return reroll
    if card == "monkey_business" and showing[MONKEY] + showing[PARROT] < MIN_SET:
        reroll[MONKEY], reroll[PARROT] = showing[MONKEY], showing[PARROT]
    elif card != "monkey_business":
        for face in (MONKEY, PARROT):
            reroll[face] = showing[face] if showing[face] < MIN_SET else 0
    if card == "peace" or (card not in SEA_BATTLES and showing[SABRE] < MIN_SET):
        reroll[SABRE] = showing[SABRE]
    return reroll


def must_chase(showing: tuple[int, ...], card: str) -> bool:
    """Whether stopping now loses points whatever happens: a Sea Battle not won, Peace sabres."""
    if card in SEA_BATTLES:
        return showing[SABRE] < SEA_BATTLES[card][0]
    return card == "peace" and showing[SABRE] > 0


class KapernHeuristic:
    """The rule-of-thumb player described in the module docstring."""

    name = "heuristic"

    def __init__(self, small_stake: int = SMALL_STAKE):
        self.small_stake = small_stake

    def reset(self, seed: int | None = None) -> None:
        """Deterministic: nothing to reset."""

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The next step of `plan`: a re-roll (a chest move first) if legal, else stop."""
        reroll = self.plan(view)
        if reroll is None:
            return STOP
        action = reroll_step(view, reroll)
        return action if observation["action_mask"][action] else STOP

    def plan(self, view: View) -> list[int] | None:
        """The dice to re-roll (counts per face of the dice showing), or ``None`` to stop."""
        if view.island:
            return self._enough([*view.free[:SKULL], 0])
        showing = view.showing
        chasing = must_chase(showing, view.card)
        reroll = junk(showing, view.card)
        if chasing and view.card in SEA_BATTLES:
            reroll = [n if face != SABRE else 0 for face, n in enumerate(showing[:SKULL])] + [0]
        sorceress = option_open(view) and view.card == "sorceress" and showing[SKULL] > 0
        if not chasing and self._should_bank(view, reroll):
            return [0] * SKULL + [1] if sorceress else None  # a lone skull re-roll risks nothing
        if sorceress:
            reroll[SKULL] = 1
        if chasing:
            self._pad(reroll, showing, keep=SABRE if view.card in SEA_BATTLES else None)
        return self._enough(reroll)

    @staticmethod
    def _enough(reroll: list[int]) -> list[int] | None:
        """``reroll`` if it is a re-roll (two non-skull dice, or a skull), else ``None``: stop."""
        return reroll if sum(reroll[:SKULL]) >= MIN_REROLL or reroll[SKULL] else None

    def _should_bank(self, view: View, reroll: list[int]) -> bool:
        """Two skulls and more than a small stake at risk."""
        skulls = view.showing[SKULL] + card_skulls(view.card)
        at_stake = view.turn_points
        if view.card == "treasure_chest":
            kept = [n - r if face != SKULL else 0 for face, (n, r) in enumerate(zip(view.showing, reroll))]
            at_stake -= objects_points(kept, view.card)
        return skulls >= 2 and at_stake > self.small_stake

    @staticmethod
    def _pad(reroll: list[int], showing: tuple[int, ...], keep: int | None) -> None:
        """Add the least valuable dice until the re-roll takes at least two non-skull dice."""
        for face in SPARE_ORDER:
            while face != keep and sum(reroll[:SKULL]) < MIN_REROLL and reroll[face] < showing[face]:
                reroll[face] += 1
