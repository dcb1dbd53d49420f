"""A simple honest Piratenpoker player: it reads only its View (and the action mask).

* Bids: in rounds 1 and 2 it spends only cheap cards (value <= 2), or passes, keeping strong
  cards for round 3 (after a round that everybody passed it bids its cheapest card rather than
  pass again); in round 2 it bids up to 8 with its lowest cards when it holds a negative card
  to give away. In round 3 it bids every card of the loot's colour (they count double),
  its cheap cards, then its highest cards until the total reaches 10 + the loot's worth to it.
  Cards spent are replaced at the next game, so low cards cost little.
* Round 1 win: a shark back goes to itself; otherwise the most negative back goes to the
  leading opponent (a card it wants less is preferred).
* Round 2 win: the loot worth most to it, weighted by its strength in that colour, stays for
  round 3; its most negative card goes to the leading opponent.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.piratenpoker.actions import ADD, COMMIT, GIVE, KEEP, LOOT, PASS, RECIPIENT
from pirate_envs.piratenpoker.cards import (
    BACK_SIDE,
    COLOUR_MULTIPLIER,
    DISPLAYED_NAMES,
    DISPLAYED_POINTS,
    FRONT_SIDE,
    IS_SHARK,
    KIND_COLOUR,
    KIND_VALUE,
    NEGATIVE_KINDS,
    NUM_COLOURS,
    displayed_kind,
    names_of,
)
from pirate_envs.piratenpoker.engine import BELOW_DECK_ROUND, LOOT_ROUND, OVERBOARD_ROUND, Phase
from pirate_envs.piratenpoker.rules import final_score
from pirate_envs.piratenpoker.view import TableView, View

CHEAP_VALUE = 2  # cards this low are spent freely
GIFT_BID_TARGET = 8  # round-2 bid when holding a negative card to give away
KEEP_FOR_LOOT = 2  # highest cards never spent on that round-2 bid
LOOT_BID_MARGIN = 10  # round-3 bid target = margin + worth of the loot
STRENGTH_SCALE = 20  # colour strength (sum of its card values) that doubles a loot card's appeal
UNWANTED_WEIGHT = 0.3  # how much sending a wanted card overboard counts against it
#: The ``mcts`` options of Piratenpoker (`agents.search.ismcts.SearchAgent` keywords; named by the game's
#: spec): rollouts stop after three score changes, as a hand lasts the game's three rounds.
SEARCH_OPTIONS = {"horizon": 3}


class PiratenpokerHeuristic:
    """Bids cheaply until round 3, keeps sharks, sends negative cards to the leader."""

    name = "piratenpoker_heuristic"

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.fallbacks = 0  # times its own choice was illegal and the first legal action was taken

    def reset(self, seed: int | None = None) -> None:
        """Deterministic: nothing to reset."""

    def act(self, observation: dict[str, np.ndarray], view: View) -> int:
        """The chosen legal action for ``view``."""
        mask = observation["action_mask"]
        phase = view.table.phase
        if phase == Phase.BID:
            action = self._bid_action(view)
        elif phase == Phase.PICK_LOOT:
            action = self._pick_loot(view, mask)
        elif phase == Phase.GIFT:
            action = self._gift(view, mask)
        else:
            action = self._recipient(view, mask)
        if mask[action]:
            return action
        self.fallbacks += 1
        return int(np.flatnonzero(mask)[0])

    # ----------------------------------------------------------------- values
    def _mine(self, view: View) -> list[str]:
        return names_of(view.table.displayed[view.seat], DISPLAYED_NAMES)

    def _gain(self, view: View, kind: int) -> int:
        """How much displaying loot ``kind`` would change its own final score."""
        mine = self._mine(view)
        return final_score([*mine, DISPLAYED_NAMES[kind]]) - final_score(mine)

    def _leader(self, view: View) -> int:
        """Relative seat of the opponent with the highest score."""
        scores = view.table.scores
        n = view.table.num_players
        return max(range(1, n), key=lambda r: scores[(view.seat + r) % n])

    # ----------------------------------------------------------------- bids
    def _bid_action(self, view: View) -> int:
        full = view.hand + view.bid  # his cards at the start of the round
        target = self._plan_bid(view, full)
        if target is None:
            return PASS
        missing = np.flatnonzero(target > view.bid)
        return ADD + int(missing[0]) if missing.size else COMMIT

    def _plan_bid(self, view: View, full: np.ndarray) -> np.ndarray | None:
        """The bid (counts per kind) for this round, or ``None`` for the Pass."""
        kinds = [k for k in np.flatnonzero(full).tolist() for _ in range(int(full[k]))]
        cheap = [k for k in kinds if KIND_VALUE[k] <= CHEAP_VALUE]
        table = view.table
        if table.round == LOOT_ROUND:
            colour = next(c for c in range(NUM_COLOURS) if table.face_up[c] >= 0)
            worth = self._gain(view, displayed_kind(colour, FRONT_SIDE, table.face_up[colour]))
            chosen = [k for k in kinds if KIND_COLOUR[k] == colour or KIND_VALUE[k] <= CHEAP_VALUE]
            rest = sorted((k for k in kinds if k not in chosen), key=KIND_VALUE.__getitem__, reverse=True)
            total = sum(KIND_VALUE[k] * (COLOUR_MULTIPLIER if KIND_COLOUR[k] == colour else 1) for k in chosen)
            for k in rest:
                if total >= LOOT_BID_MARGIN + worth:
                    break
                chosen.append(k)
                total += KIND_VALUE[k]
        elif table.round == BELOW_DECK_ROUND and table.displayed[view.seat, list(NEGATIVE_KINDS)].any():
            chosen, total = [], 0
            for k in sorted(kinds, key=KIND_VALUE.__getitem__)[:-KEEP_FOR_LOOT]:
                if total >= GIFT_BID_TARGET:
                    break
                chosen.append(k)
                total += KIND_VALUE[k]
        else:
            chosen = cheap
        if not chosen and view.pass_available and not _everybody_passed_last_time(table):
            return None
        if not chosen and kinds:
            chosen = [min(kinds, key=KIND_VALUE.__getitem__)]
        target = np.zeros_like(full)
        for k in chosen:
            target[k] += 1
        return target

    # ----------------------------------------------------------------- winner's choices
    def _pick_loot(self, view: View, mask: np.ndarray) -> int:
        table = view.table
        colours = [c for c in range(NUM_COLOURS) if mask[LOOT + c]]
        if table.round == OVERBOARD_ROUND:

            def overboard_value(c: int) -> float:
                back = displayed_kind(c, BACK_SIDE, table.face_up[c])
                wanted = self._gain(view, displayed_kind(c, FRONT_SIDE, table.face_up[c]))
                gift = self._gain(view, back) if IS_SHARK[back] else -DISPLAYED_POINTS[back]
                return gift - UNWANTED_WEIGHT * wanted

            return LOOT + max(colours, key=overboard_value)
        hand = view.hand + view.bid

        def prize_value(c: int) -> float:
            strength = sum(KIND_VALUE[k] * int(hand[k]) for k in range(len(hand)) if KIND_COLOUR[k] == c)
            return self._gain(view, displayed_kind(c, FRONT_SIDE, table.face_up[c])) * (1 + strength / STRENGTH_SCALE)

        return LOOT + min(colours, key=prize_value)  # the less wanted card goes below deck

    def _gift(self, view: View, mask: np.ndarray) -> int:
        gifts = [i for i in range(len(NEGATIVE_KINDS)) if mask[GIVE + i]]
        if not gifts:
            return KEEP
        return GIVE + min(gifts, key=lambda i: DISPLAYED_POINTS[NEGATIVE_KINDS[i]])

    def _recipient(self, view: View, mask: np.ndarray) -> int:
        table = view.table
        if table.may_give_to_self and DISPLAYED_POINTS[table.pending] > 0:
            return RECIPIENT
        return RECIPIENT + self._leader(view)


def _everybody_passed_last_time(table: TableView) -> bool:
    """Whether this round was just restarted because every player passed.

    Passing again would repeat the same round with the same hands for ever (deterministic
    players meet in a loop the turn guard ends); the heuristic then bids its cheapest card.
    """
    return table.last_round == table.round and table.last_winner < 0 and all(table.last_passed)
