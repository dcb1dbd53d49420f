"""Piratenpoker play statistics: bids against the loot on offer, the Pass, the winners' choices, sets.

* Bids: a bid is complete at its commit; its total counts the last loot card's colour double in
  the loot round (the rule the reveal uses). Mean total by round, by the loot value on offer
  (the sum of the face-up fronts) in the loot round, and per loot point on offer by round.
* Pass: how often a seat that still has its Pass plays it, by round (its bids of that round
  while the Pass was available).
* Overboard (round 1): which loot card the winner throws (the highest front on offer or not;
  a +5, whose back is a shark) and to whom its back goes (himself; the leader among the
  others by displayed score).
* Below deck (round 2): the front sent under its stack; the negative cards the winner gives
  away (how often, worth how much, to the leader or not).
* Sets: complete sets (three sharks, three fronts of one value) each seat ends with; final
  loot score.

Read from the deciding seat's View (its bid row, the public table) and its final View.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.analysis.driver import Collector, Decision
from agents.analysis.tallies import MEAN, RATE, StatDef, Tallies
from pirate_envs.piratenpoker.actions import COMMIT, GIVE, KEEP, LOOT, PASS, RECIPIENT
from pirate_envs.piratenpoker.cards import (
    BACK_SIDE,
    COLOURS,
    DISPLAYED_POINTS,
    FRONT_VALUES,
    IS_FRONT,
    IS_SHARK,
    NEGATIVE_KINDS,
    POKER_NAMES,
    SET_SIZE,
    displayed_kind,
    names_of,
)
from pirate_envs.piratenpoker.engine import BID_ROW, LOOT_ROUND, OVERBOARD_ROUND, ROUND_NAMES, Phase
from pirate_envs.piratenpoker.rules import bid_strength

STATS = {
    "bid_total_by_round": StatDef("bid total", MEAN, "round", plot=True),
    "bid_per_loot_point": StatDef("bid total per loot point on offer", MEAN, "round"),
    "bid_total_by_offer": StatDef("bid total, loot round", MEAN, "loot value on offer", plot=True),
    "pass_by_round": StatDef("Pass played (when held)", RATE, "round", plot=True),
    "overboard_highest": StatDef("throws the highest front overboard", RATE),
    "overboard_front": StatDef("front thrown overboard", MEAN),
    "overboard_shark": StatDef("throws a +5 (shark back)", RATE),
    "overboard_to_self": StatDef("keeps the overboard card", RATE, "back side", plot=True),
    "overboard_to_leader": StatDef("gives it to the leading rival", RATE, "back side"),
    "below_deck_highest": StatDef("sends the highest front below deck", RATE),
    "negative_given": StatDef("gives a negative card away", RATE),
    "negative_value": StatDef("points of the card given", MEAN),
    "negative_to_leader": StatDef("gives it to the leading rival", RATE),
    "sets": StatDef("sets completed per seat", MEAN, plot=True),
    "has_set": StatDef("ends with a set", RATE),
    "final_score": StatDef("final loot score", MEAN),
}


def offer_fronts(table: Any) -> list[int]:
    """The front values of the loot cards face up on the table."""
    return [FRONT_VALUES[f] for f in table.face_up if f >= 0]


def bid_total(view: Any) -> int:
    """The total of the seat's own bid row; in the loot round the loot card's colour counts double."""
    table = view.table
    colour = None
    if table.round == LOOT_ROUND:
        colour = next((COLOURS[c] for c, f in enumerate(table.face_up) if f >= 0), None)
    return bid_strength(names_of(view.cards[BID_ROW], POKER_NAMES), colour)[0]


def complete_sets(displayed: Sequence[int]) -> int:
    """Complete sets in one seat's displayed loot (per-kind counts): three sharks, three fronts of one value."""
    sharks = sum(int(n) for k, n in enumerate(displayed) if IS_SHARK[k])
    fronts: dict[int, int] = {}
    for k, n in enumerate(displayed):
        if IS_FRONT[k] and n:
            fronts[DISPLAYED_POINTS[k]] = fronts.get(DISPLAYED_POINTS[k], 0) + int(n)
    return sharks // SET_SIZE + sum(n // SET_SIZE for n in fronts.values())


def is_leading_rival(table: Any, chooser: int, target: int) -> bool:
    """Whether ``target`` has the highest displayed score among the seats other than ``chooser``."""
    rivals = [table.scores[s] for s in range(table.num_players) if s != chooser]
    return target != chooser and table.scores[target] == max(rivals)


class PiratenpokerCollector(Collector):
    """Piratenpoker statistics per agent (see the module docstring)."""

    def __init__(self) -> None:
        self.tallies = Tallies(STATS)

    def observe(self, decision: Decision) -> None:
        view, action, agent = decision.view, decision.action, decision.agent
        table = view.table
        phase, name = table.phase, ROUND_NAMES[table.round]
        if phase == Phase.BID and action in (COMMIT, PASS):
            if view.pass_available:
                self.tallies.rate("pass_by_round", agent, action == PASS, name)
            if action == COMMIT:
                total, fronts = bid_total(view), offer_fronts(table)
                self.tallies.mean("bid_total_by_round", agent, total, name)
                self.tallies.mean("bid_per_loot_point", agent, total / sum(fronts), name)
                if table.round == LOOT_ROUND:
                    self.tallies.mean("bid_total_by_offer", agent, total, sum(fronts))
        elif phase == Phase.PICK_LOOT:
            front = FRONT_VALUES[table.face_up[action - LOOT]]
            highest = front == max(offer_fronts(table))
            if table.round == OVERBOARD_ROUND:
                self.tallies.rate("overboard_highest", agent, highest)
                self.tallies.mean("overboard_front", agent, front)
                self.tallies.rate("overboard_shark", agent, IS_SHARK[_back_kind(table, action - LOOT)])
            else:
                self.tallies.rate("below_deck_highest", agent, highest)
        elif phase == Phase.GIFT:
            self.tallies.rate("negative_given", agent, action != KEEP)
            if action != KEEP:
                self.tallies.mean("negative_value", agent, DISPLAYED_POINTS[NEGATIVE_KINDS[action - GIVE]])
        elif phase == Phase.RECIPIENT:
            target = (table.chooser + action - RECIPIENT) % table.num_players
            if table.round == OVERBOARD_ROUND:
                side = "shark" if IS_SHARK[table.pending] else "negative"
                self.tallies.rate("overboard_to_self", agent, target == table.chooser, side)
                self.tallies.rate("overboard_to_leader", agent, is_leading_rival(table, table.chooser, target), side)
            else:
                self.tallies.rate("negative_to_leader", agent, is_leading_rival(table, table.chooser, target))

    def end_game(self, final_views: Sequence[Any], win_shares: Sequence[float]) -> None:
        for seat, view in enumerate(final_views):
            agent = self.seat_agents[seat]
            sets = complete_sets(view.table.displayed[seat])
            self.tallies.mean("sets", agent, sets)
            self.tallies.rate("has_set", agent, sets > 0)
            self.tallies.mean("final_score", agent, view.table.scores[seat])

    def summary(self) -> dict[str, Any]:
        return self.tallies.summary()


def _back_kind(table: Any, colour: int) -> int:
    """The displayed kind of the back of colour ``colour``'s face-up loot card."""
    return displayed_kind(colour, BACK_SIDE, table.face_up[colour])
