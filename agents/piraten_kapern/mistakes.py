"""Piraten Kapern's part of "Where play goes wrong" (`agents.analysis.mistakes`).

* Situations: the fortune card's kind (a Sea Battle, the Treasure Chest, the Sorceress, Storm, Peace,
  or another card) x skulls showing (the card's included) x points at risk.
* The exact measure (`OracleRegret`): the one-turn oracle's expected points of the turn after each
  legal move (`agents.piraten_kapern.oracle.expected_points_of_moves`); regret = the best move's less
  the chosen move's, exact and never below 0. Counted: stop and re-roll decisions of a normal turn
  (chest moves only arrange dice: the oracle moves them for free; the Island of Skulls is worth 0
  whatever is played).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.analysis.mistakes.regret import legal_moves
from agents.piraten_kapern.analysis import risk_bucket
from agents.piraten_kapern.oracle import expected_points_of_moves
from pirate_envs.core.text import counted
from pirate_envs.piraten_kapern.actions import REROLL_OFFSET, REROLL_TUPLES, STOP
from pirate_envs.piraten_kapern.rules import SEA_BATTLES, SKULL, card_skulls

#: Cards that change how far a turn is pushed, named alone (Sea Battles by their sabres).
NAMED_CARDS = {"treasure_chest": "Treasure Chest", "sorceress": "Sorceress", "storm": "Storm", "peace": "Peace"}
#: The other cards (Captain, Gold, Diamond, Monkey Business, skull cards), named together.
PLAIN_CARD = "another card"

NOTE = (
    "Situations: the fortune card (another card: the Captain, Gold, Diamond, Monkey Business or a skull card), "
    "the skulls showing (the card's included) and the points at risk (what stopping scores now)."
)


def situation(view: Any, legal: np.ndarray) -> str:
    """The fortune card's kind, skulls showing (the card's included) and points at risk (stopping's score)."""
    card = view.card
    kind = f"Sea Battle ({SEA_BATTLES[card][0]} sabres)" if card in SEA_BATTLES else NAMED_CARDS.get(card, PLAIN_CARD)
    skulls = int(view.showing[SKULL]) + card_skulls(card)
    return f"{kind}, {counted(skulls, 'skull')} showing, {risk_bucket(view.turn_points)} points at risk"


class OracleRegret:
    """The exact regret in expected points of the turn (see the module docstring)."""

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "oracle",
            "name": "the exact one-turn oracle",
            "unit": "expected points of the turn",
            "short_unit": "expected points",
        }

    def reset(self, seed: int) -> None:
        """Exact: nothing to seed."""

    def regret(self, env: Any, action: int) -> tuple[float, int] | None:
        game = env.game
        view = game.view(game.current_player)
        legal = legal_moves(env)
        decisions = [a for a in legal if a == STOP or REROLL_OFFSET <= a < REROLL_OFFSET + len(REROLL_TUPLES)]
        if view.phase != "rolling" or view.island or len(legal) < 2 or action not in decisions:
            return None
        values = expected_points_of_moves(view, [int(a) for a in legal])
        best = int(np.argmax(values))
        chosen = values[int(np.flatnonzero(legal == action)[0])]
        return max(0.0, values[best] - chosen), int(legal[best])


#: The game's regret is exact: the driver measures it with this, not the search.
EXACT_MEASURE = OracleRegret
