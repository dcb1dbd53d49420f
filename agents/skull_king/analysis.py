"""Skull King play statistics: bids, made bids, zero bids, the special cards, bonuses.

* Bids by hand number and by hand strength: the trumps (black cards) and the winning specials
  (Pirates, Scary Mary, the Skull King, Mermaids) in the hand when bidding.
* Exact-bid rate by hand number (bid == tricks won when the hand is scored), the bid minus
  the tricks won (above 0: overbidding), zero bids (how often, and how often made).
* Every special card played: lead (first card of the trick) or follow, its position in the
  trick, how often its player wins the trick and the bonus of the tricks it wins.
* Bonus points: the bonus of the tricks a seat wins in a hand, and the bonus it scores (only
  with its bid made, bid above 0).

Read from the deciding seat's View (hand, trick, hand number) and the public events
(``bids_revealed``, ``trick_won`` with its bonus, ``score`` at the end of each hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.analysis.driver import Collector, Decision
from agents.analysis.tallies import MEAN, RATE, StatDef, Tallies
from pirate_envs.core.events import Event
from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import (
    ESCAPE,
    MERMAID,
    NUM_RANKS,
    PIRATE,
    SCARY_MARY,
    SKULL_KING,
    TOKEN_NAMES,
    TRUMP_SUIT,
)
from pirate_envs.skull_king.engine import Phase

#: Card kinds that count towards a hand's strength besides the trumps.
STRONG_SPECIALS = (PIRATE, MERMAID, SKULL_KING, SCARY_MARY)
_TRUMPS = slice(TRUMP_SUIT * NUM_RANKS, (TRUMP_SUIT + 1) * NUM_RANKS)

STATS = {
    "bid_by_hand": StatDef("mean bid", MEAN, "hand number", plot=True),
    "bid_share_by_hand": StatDef("bid / cards dealt", MEAN, "hand number"),
    "bid_by_strength": StatDef("mean bid", MEAN, "trumps + strong specials held", plot=True),
    "exact_by_hand": StatDef("exact-bid rate", RATE, "hand number", plot=True),
    "exact": StatDef("exact-bid rate", RATE),
    "bid_minus_tricks": StatDef("bid minus tricks won", MEAN, "hand number", note="above 0: overbids"),
    "zero_bid_by_hand": StatDef("zero-bid rate", RATE, "hand number"),
    "zero_bid_made_by_hand": StatDef("zero bids made", RATE, "hand number"),
    "zero_bid_made": StatDef("zero bids made", RATE),
    "special_lead": StatDef("special led", RATE, "special card", note="share of its plays that lead the trick"),
    "special_position": StatDef("trick position (0 = lead)", MEAN, "special card"),
    "special_wins": StatDef("special wins the trick", RATE, "special card", plot=True),
    "special_wins_lead_follow": StatDef("special wins the trick", RATE, "special card, lead or follow"),
    "special_bonus": StatDef("bonus of the tricks it wins", MEAN, "special card"),
    "bonus_taken": StatDef("bonus in tricks won, per hand", MEAN, "hand number"),
    "bonus_scored": StatDef("bonus scored, per hand", MEAN),
    "points_per_hand": StatDef("points per hand", MEAN, "hand number"),
}


def hand_strength(hand: Any) -> int:
    """Trumps plus Pirates, Mermaids, Scary Mary and the Skull King in a hand (per-kind counts)."""
    return int(hand[_TRUMPS].sum()) + sum(int(hand[k]) for k in STRONG_SPECIALS)


class SkullKingCollector(Collector):
    """Skull King statistics per agent (see the module docstring)."""

    def __init__(self) -> None:
        self.tallies = Tallies(STATS)

    def start_game(self, game: int, seat_agents: Sequence[str], events: Sequence[Event]) -> None:
        super().start_game(game, seat_agents, events)
        n = len(seat_agents)
        self._bid_of: dict[int, int] = {}
        self._hand_number = 0
        self._tricks = [0] * n
        self._bonus = [0] * n
        self._specials: list[tuple[int, int, int]] = []  # (seat, token, position) in the current trick
        self._events(events)

    def observe(self, decision: Decision) -> None:
        view, agent = decision.view, decision.agent
        if view.phase == Phase.BID:
            bid = decision.action - BID_OFFSET
            k = view.hand_number
            self._bid_of[decision.seat] = bid
            self._hand_number = k
            self.tallies.mean("bid_by_hand", agent, bid, k)
            self.tallies.mean("bid_share_by_hand", agent, bid / k, k)
            self.tallies.mean("bid_by_strength", agent, bid, hand_strength(view.hand))
            self.tallies.rate("zero_bid_by_hand", agent, bid == 0, k)
        else:
            token = decision.action - CARD_OFFSET
            if token >= ESCAPE:
                position = len(view.trick)
                self._specials.append((decision.seat, token, position))
                name = TOKEN_NAMES[token]
                self.tallies.rate("special_lead", agent, position == 0, name)
                self.tallies.mean("special_position", agent, position, name)
        self._events(decision.events)

    def _events(self, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind == "deal":
                self._tricks = [0] * len(self._tricks)
                self._bonus = [0] * len(self._bonus)
            elif event.kind == "trick_won":
                self._trick_won(event.seat, int(event.data.get("bonus", 0)))
            elif event.kind == "score":
                self._hand_scored(event.seat, int(event.data["delta"]))

    def _trick_won(self, winner: int, bonus: int) -> None:
        self._tricks[winner] += 1
        self._bonus[winner] += bonus
        for seat, token, position in self._specials:
            agent, name = self.seat_agents[seat], TOKEN_NAMES[token]
            won = seat == winner
            self.tallies.rate("special_wins", agent, won, name)
            self.tallies.rate("special_wins_lead_follow", agent, won, f"{name} {'lead' if position == 0 else 'follow'}")
            if won:
                self.tallies.mean("special_bonus", agent, bonus, name)
        self._specials = []

    def _hand_scored(self, seat: int, points: int) -> None:
        agent, k = self.seat_agents[seat], self._hand_number
        bid, tricks, bonus = self._bid_of[seat], self._tricks[seat], self._bonus[seat]
        made = bid == tricks
        self.tallies.rate("exact_by_hand", agent, made, k)
        self.tallies.rate("exact", agent, made)
        self.tallies.mean("bid_minus_tricks", agent, bid - tricks, k)
        if bid == 0:
            self.tallies.rate("zero_bid_made_by_hand", agent, made, k)
            self.tallies.rate("zero_bid_made", agent, made)
        self.tallies.mean("bonus_taken", agent, bonus, k)
        self.tallies.mean("bonus_scored", agent, bonus if made and bid > 0 else 0)
        self.tallies.mean("points_per_hand", agent, points, k)

    def summary(self) -> dict[str, Any]:
        return self.tallies.summary()
