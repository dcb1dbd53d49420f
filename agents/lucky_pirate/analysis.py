"""Lucky Pirate play statistics: pick-ups, special cards, blind plays, turns to go out, stranded First Mates.

* Pick-ups: how often a turn ends with the pile taken up (nothing could be played, or a down
  card turned over could not be), by where the seat plays from (hand, up cards, down cards)
  and by its turn number in the game; how many cards of the pile it takes.
* Special cards (every kind that is not a number 1..8): the pile size it goes on, how often on
  an empty pile, the seat's turn number, the cards left in the hand after it.
* Face-down plays: how often a down card turned over can be played.
* Turns to go out: the winner's own turns in the game (one per decision).
* First Mates: how often a seat that did not win ends the game with a First Mate in hand or
  among its up cards (its final View; its down cards are hidden even from it), and how often
  a game is set aside because the First Mates are stranded.

Read from the deciding seat's View and the public events (``play`` ... ``blind``, ``move``
for a down card that cannot be played, ``round_won``, ``no_winner``, ``deal``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.analysis.driver import Collector, Decision
from agents.analysis.tallies import MEAN, RATE, StatDef, Tallies
from pirate_envs.core.events import Event
from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, LAY_UP_OFFSET, PICK_UP, decode_play
from pirate_envs.lucky_pirate.cards import FIRST_MATE, KINDS, NUMBER_CARDS

#: Upper bounds of the turn-number buckets (a seat's own turns in the game; the last is open).
TURN_BOUNDS = (5, 10, 20, 40)
#: The first kind that is not a number card.
FIRST_SPECIAL = len(NUMBER_CARDS)
#: The ``no_winner`` reason of a game set aside for stranded First Mates.
STRANDED = "stranded First Mates"

STATS = {
    "pick_up_by_source": StatDef("turn ends in a pick-up", RATE, "plays from"),
    "pick_up_by_turn": StatDef("turn ends in a pick-up", RATE, "own turn number", plot=True),
    "pick_up_size": StatDef("cards picked up", MEAN, "plays from", plot=True),
    "pick_ups_per_game": StatDef("pick-ups per seat and game", MEAN),
    "special_pile_size": StatDef("pile size when played", MEAN, "special card", plot=True),
    "special_on_empty": StatDef("played on an empty pile", RATE, "special card"),
    "special_turn": StatDef("own turn number when played", MEAN, "special card"),
    "special_hand_left": StatDef("cards left in hand after it", MEAN, "special card"),
    "blind_playable": StatDef("down card turned over can be played", RATE),
    "turns_to_go_out": StatDef("winner's own turns", MEAN, plot=True),
    "first_mate_stranded": StatDef("non-winner ends holding a First Mate", RATE),
    "set_aside_stranded": StatDef("game set aside: First Mates stranded", RATE),
}


def turn_bucket(turn: int) -> str:
    """The bucket of a seat's own turn number: ``"1-5"``, ``"6-10"``, ..., ``">40"``."""
    low = 1
    for high in TURN_BOUNDS:
        if turn <= high:
            return f"{low}-{high}"
        low = high + 1
    return f">{TURN_BOUNDS[-1]}"


class LuckyPirateCollector(Collector):
    """Lucky Pirate statistics per agent (see the module docstring)."""

    def __init__(self) -> None:
        self.tallies = Tallies(STATS)

    def start_game(self, game: int, seat_agents: Sequence[str], events: Sequence[Event]) -> None:
        super().start_game(game, seat_agents, events)
        self._winners: set[int] = set()
        self._deal_started()

    def _deal_started(self) -> None:
        """A (new) game of the episode is dealt: turn and pick-up counts start again."""
        n = len(self.seat_agents)
        self._turns = [0] * n
        self._pick_ups = [0] * n

    def observe(self, decision: Decision) -> None:
        view, action, agent, seat = decision.view, decision.action, decision.agent, decision.seat
        if action >= LAY_UP_OFFSET:  # the set-up: not a turn of play
            self._events(decision.events)
            return
        self._turns[seat] += 1
        turn = self._turns[seat]
        source = view.source
        picked_up = action == PICK_UP
        if DOWN_OFFSET <= action < PICK_UP:
            playable = any(e.kind == "play" and e.seat == seat for e in decision.events)
            self.tallies.rate("blind_playable", agent, playable)
            picked_up = not playable
        self.tallies.rate("pick_up_by_source", agent, picked_up, source)
        self.tallies.rate("pick_up_by_turn", agent, picked_up, turn_bucket(turn))
        if picked_up:
            self._pick_ups[seat] += 1
            self.tallies.mean("pick_up_size", agent, view.pile_size, source)
        elif action < DOWN_OFFSET:
            kind, count = decode_play(action)
            if kind >= FIRST_SPECIAL:
                name = KINDS[kind]
                self.tallies.mean("special_pile_size", agent, view.pile_size, name)
                self.tallies.rate("special_on_empty", agent, view.pile_size == 0, name)
                self.tallies.mean("special_turn", agent, turn, name)
                in_hand = int(view.hand.sum())
                self.tallies.mean("special_hand_left", agent, in_hand - count if in_hand else 0, name)
        self._events(decision.events)

    def _events(self, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind == "round_won":
                self._game_over(event.seat)
            elif event.kind == "no_winner":
                self._game_over(None, stranded=STRANDED in event.data.get("what", ""))
            elif event.kind == "deal":
                self._deal_started()

    def _game_over(self, winner: int | None, stranded: bool = False) -> None:
        """One game of the episode ends: won by ``winner``, or set aside (``None``)."""
        for seat, agent in enumerate(self.seat_agents):
            self.tallies.mean("pick_ups_per_game", agent, self._pick_ups[seat])
            if winner is None:
                self.tallies.rate("set_aside_stranded", agent, stranded)
        if winner is not None:
            self._winners.add(winner)
            self.tallies.mean("turns_to_go_out", self.seat_agents[winner], self._turns[winner])
            for agent in self.seat_agents:
                self.tallies.rate("set_aside_stranded", agent, False)

    def end_game(self, final_views: Sequence[Any], win_shares: Sequence[float]) -> None:
        for seat, view in enumerate(final_views):
            if win_shares[seat] > 0:
                continue
            holds = view.hand[FIRST_MATE] + view.up[0][FIRST_MATE] > 0
            self.tallies.rate("first_mate_stranded", self.seat_agents[seat], bool(holds))

    def summary(self) -> dict[str, Any]:
        return self.tallies.summary()
