"""Piraten Kapern play statistics: the stop decision, and how it compares with the one-turn oracle.

A decision is a stop or a re-roll on a normal turn (chest moves only arrange the dice for a
re-roll and are not counted; the Island of Skulls, worth nothing to the player, is left out).
For each the collector notes the points at risk (what stopping scores now, the View's
``turn_points``), the skulls showing (card skulls included) and the fortune card, and the
stop rate against each.

The oracle (`agents.piraten_kapern.oracle`) maximises the turn's expected points. Agreement: the
agent stops exactly when the oracle stops. Regret: the oracle's expected points from the
dice showing minus the expected points of the agent's choice played on optimally (stopping
scores the dice; a re-roll is worth the oracle's value of the dice it keeps). With the
Treasure Chest the oracle's value of a re-roll assumes every kept die is on the chest, so a
re-roll's regret there is a lower bound. The oracle looks at one turn: near the end of the
game (the final round, a rival close to the target) its advice is not the game's best.
"""

from __future__ import annotations

import itertools
from typing import Any

from agents.analysis.driver import Collector, Decision
from agents.analysis.tallies import MEAN, RATE, StatDef, Tallies
from agents.piraten_kapern.oracle import SORCERESS, STORM, option_open, oracle_plan, solve_turn
from pirate_envs.piraten_kapern.actions import REROLL_OFFSET, REROLL_TUPLES, STOP
from pirate_envs.piraten_kapern.rules import SKULL, card_skulls, score_counts

#: Upper bounds of the points-at-risk buckets (the last is open).
RISK_BOUNDS = (0, 100, 200, 300, 500, 800, 1200)

STATS = {
    "stop_by_risk": StatDef("stop rate", RATE, "points at risk", plot=True),
    "stop_by_skulls": StatDef("stop rate", RATE, "skulls showing", plot=True),
    "stop_by_card": StatDef("stop rate", RATE, "fortune card"),
    "agree": StatDef("agrees with the oracle", RATE),
    "agree_by_card": StatDef("agrees with the oracle", RATE, "fortune card", plot=True),
    "regret": StatDef("expected points lost per decision", MEAN),
    "regret_by_card": StatDef("expected points lost per decision", MEAN, "fortune card", plot=True),
    "stops_early": StatDef("stops where the oracle re-rolls", RATE, "fortune card"),
    "rerolls_late": StatDef("re-rolls where the oracle stops", RATE, "fortune card"),
    "decisions_per_turn": StatDef("decisions per turn", MEAN),
    "turn_points": StatDef("points scored per turn", MEAN),
}


def risk_bucket(points: int) -> str:
    """The points-at-risk bucket of ``points``: ``"<=0"``, ``"1-100"``, ..., ``">1200"``."""
    if points <= RISK_BOUNDS[0]:
        return f"<={RISK_BOUNDS[0]}"
    for low, high in itertools.pairwise(RISK_BOUNDS):
        if points <= high:
            return f"{low + 1}-{high}"
    return f">{RISK_BOUNDS[-1]}"


def choice_value(view: Any, action: int) -> tuple[float, float]:
    """``(oracle's value, value of action)``: expected turn points from the dice showing when
    played optimally, and when ``action`` (stop or a re-roll) is taken and then optimal play."""
    solution = solve_turn(view.card)
    showing = view.showing
    is_open = option_open(view)
    best = solution.state_value(showing, is_open)
    if action == STOP:
        return best, float(score_counts(showing, view.card))
    reroll = REROLL_TUPLES[action - REROLL_OFFSET]
    kept = tuple(s - r for s, r in zip(showing, reroll))
    stays_open = is_open and view.card != STORM and not (view.card == SORCERESS and reroll[SKULL])
    return best, solution.kept_value(kept, stays_open)


class PiratenKapernCollector(Collector):
    """Piraten Kapern statistics per agent (see the module docstring)."""

    def __init__(self) -> None:
        self.tallies = Tallies(STATS)
        self._turn_decisions: dict[int, int] = {}

    def observe(self, decision: Decision) -> None:
        view, action = decision.view, decision.action
        is_reroll = REROLL_OFFSET <= action < REROLL_OFFSET + len(REROLL_TUPLES)
        if view.phase == "rolling" and not view.island and (action == STOP or is_reroll):
            self._decision(decision.agent, view, action)
            self._turn_decisions[decision.seat] = self._turn_decisions.get(decision.seat, 0) + 1
        for event in decision.events:  # a turn ends with its player's own score event (no "by")
            if event.kind == "score" and event.data.get("by") is None:
                agent = self.seat_agents[event.seat]
                self.tallies.mean("turn_points", agent, event.data["delta"])
                self.tallies.mean("decisions_per_turn", agent, self._turn_decisions.pop(event.seat, 0))

    def _decision(self, agent: str, view: Any, action: int) -> None:
        stop = action == STOP
        card = view.card
        skulls = view.showing[SKULL] + card_skulls(card)
        self.tallies.rate("stop_by_risk", agent, stop, risk_bucket(view.turn_points))
        self.tallies.rate("stop_by_skulls", agent, stop, skulls)
        self.tallies.rate("stop_by_card", agent, stop, card)
        oracle_stops = oracle_plan(view) is None
        self.tallies.rate("agree", agent, stop == oracle_stops)
        self.tallies.rate("agree_by_card", agent, stop == oracle_stops, card)
        best, chosen = choice_value(view, action)
        regret = max(0.0, best - chosen)
        self.tallies.mean("regret", agent, regret)
        self.tallies.mean("regret_by_card", agent, regret, card)
        if oracle_stops:
            self.tallies.rate("rerolls_late", agent, not stop, card)
        else:
            self.tallies.rate("stops_early", agent, stop, card)

    def summary(self) -> dict[str, Any]:
        return self.tallies.summary()
