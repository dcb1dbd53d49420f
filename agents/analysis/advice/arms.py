"""A base batched agent played WITH a rule or WITHOUT it, counting what the base would have done.

Where the rule has a real choice (`Rule.applies`), the ``with`` arm plays the base agent's choice
if it is prescribed, else the base's choice among the prescribed moves only; the ``without`` arm
plays the base's choice if it is not prescribed, else the base's choice among the other legal
moves (its next choice). Elsewhere both play the base's move. So the arms differ only where the
condition holds, and there only in whether a prescribed move is played.

The base agent must choose from any non-empty subset of the legal moves given as its mask (a policy
network does; Lucky Pirate's batched heuristic refuses some subsets no position has).

The agent counts, per game slot, the decisions where the rule had a choice (``hits``) and those
where the base agent's own choice was prescribed (``follows``): how often the base "does it"; and
the slots of the last call's counted decisions (``last_hits``), for `agents.analysis.advice.outcome`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.analysis.advice.rules import Rule

ARMS = ("with", "without")


class RuleAgent:
    """``base`` (a `agents.batched.BatchedAgent`) with ``rule`` applied (``arm="with"``) or avoided (``"without"``)."""

    def __init__(self, base: Any, rule: Rule, arm: str, layout: Any, num_slots: int):
        if arm not in ARMS:
            raise ValueError(f"arm {arm!r} is not valid; choose from {', '.join(ARMS)}")
        self.base, self.rule, self.arm, self.layout = base, rule, arm, layout
        self.name = f"{getattr(base, 'name', 'agent')}[{arm} {rule.name}]"
        self.hits = np.zeros(num_slots, dtype=np.int64)
        self.follows = np.zeros(num_slots, dtype=np.int64)
        #: The slots whose decision of the last `act_batch` call counted (the rule had a choice).
        self.last_hits = np.zeros(0, dtype=np.int64)

    def reset_games(self, games: np.ndarray) -> None:
        """The slots ``games`` start new games: the base forgets them, their counts restart."""
        self.base.reset_games(games)
        self.hits[games] = 0
        self.follows[games] = 0

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        legal = np.asarray(action_masks).astype(bool, copy=False)
        actions = np.asarray(self.base.act_batch(games, observations, legal), dtype=np.int64)
        choice, moves = self.rule.applies(observations, legal, self.layout)
        rows = np.flatnonzero(choice)
        self.last_hits = np.asarray(games)[rows]
        if rows.size == 0:
            return actions
        followed = moves[rows, actions[rows]]
        np.add.at(self.hits, games[rows], 1)
        np.add.at(self.follows, games[rows], followed.astype(np.int64))
        redo = rows[~followed] if self.arm == "with" else rows[followed]
        if redo.size:
            allowed = legal[redo] & (moves[redo] if self.arm == "with" else ~moves[redo])
            actions[redo] = self.base.act_batch(games[redo], observations[redo], allowed)
        return actions


__all__ = ["ARMS", "RuleAgent"]
