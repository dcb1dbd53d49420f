"""How often a rule "works": the outcome of the stretch of play (a hand, a turn) a decision belongs to.

A game whose advice can say more than "the game was won" declares an `Outcome`: the unit a decision
belongs to (Skull King's hand, Kapern's turn), the words for success ("the bid is made", "the turn
scores") and how the batched game shows that the unit is over:

* ``score_changes``: the deciding seat's score changes when the unit ends and never otherwise
  (a Skull King hand scores every bid, made or missed, and nothing between hands);
* ``turn_passes``: the unit is the seat's own turn; it ends when another seat is to move.

A game that ends ends every unit. A decision *works* when the seat's score at the unit's end is above
its score when the unit's first counted decision was taken. `OutcomeTally` follows one focal seat per
game row; it counts per row the decisions resolved (``tried``) and those that worked (``works``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: How a unit's end shows (`Outcome.ends_when`).
UNIT_ENDS = ("score_changes", "turn_passes")


@dataclass(frozen=True)
class Outcome:
    """What "it works" means for a game's rules: the ``unit`` a decision belongs to, the ``works`` words
    of success, and how the unit's end shows (``ends_when``, one of `UNIT_ENDS`)."""

    unit: str
    works: str
    ends_when: str

    def __post_init__(self) -> None:
        if self.ends_when not in UNIT_ENDS:
            raise ValueError(f"ends_when {self.ends_when!r} is not valid; choose from {', '.join(UNIT_ENDS)}")


class OutcomeTally:
    """Per game row of a batched table: the focal seat's open unit and the decisions resolved in it."""

    def __init__(self, outcome: Outcome, rows: int):
        self.outcome = outcome
        self.pending = np.zeros(rows, dtype=np.int64)
        self.start = np.zeros(rows)
        self.tried = np.zeros(rows, dtype=np.int64)
        self.works = np.zeros(rows, dtype=np.int64)

    def decided(self, venv: Any, rows: np.ndarray, focal_seat: np.ndarray) -> None:
        """The focal seat took one counted decision in each of ``rows`` (before the step plays it)."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0:
            return
        fresh = rows[self.pending[rows] == 0]
        if fresh.size:
            self.start[fresh] = venv.scores(fresh)[np.arange(fresh.size), focal_seat[fresh]]
        np.add.at(self.pending, rows, 1)

    def stepped(self, venv: Any, ended: np.ndarray, focal_seat: np.ndarray) -> None:
        """After a step: resolve the open units that are over (``ended``: the rows whose game is over)."""
        open_rows = np.flatnonzero(self.pending > 0)
        if open_rows.size == 0:
            return
        score = venv.scores(open_rows)[np.arange(open_rows.size), focal_seat[open_rows]]
        if self.outcome.ends_when == "score_changes":
            over = score != self.start[open_rows]
        else:
            over = venv.current_player[open_rows] != focal_seat[open_rows]
        over |= ended[open_rows]
        done = open_rows[over]
        if done.size == 0:
            return
        worked = score[over] > self.start[done]
        self.tried[done] += self.pending[done]
        self.works[done] += np.where(worked, self.pending[done], 0)
        self.pending[done] = 0


__all__ = ["UNIT_ENDS", "Outcome", "OutcomeTally"]
