"""A rule of play: where it applies (a condition over the deciding seat's observation) and what it prescribes.

Conditions and prescriptions act on rows at once: ``observations`` ``(M, D)`` (each row a seat's
observation vector, which encodes its View) and ``masks`` ``(M, A)`` (its legal moves), read by
piece name through the table's `ObservationLayout` (`piece`). A game's rules are read in order, the
first that applies deciding where two contradict (`deciding`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: ``condition(observations, masks, layout)``: ``(M,)`` bools, the rows where the rule speaks.
Condition = Callable[[np.ndarray, np.ndarray, Any], np.ndarray]
#: ``prescribed(observations, masks, layout)``: ``(M, A)`` bools, the moves the rule prescribes.
Prescription = Callable[[np.ndarray, np.ndarray, Any], np.ndarray]


@dataclass(frozen=True)
class Rule:
    """One piece of advice: a short ``name``, the ``words`` a player reads, where it applies and what it prescribes."""

    name: str
    words: str
    condition: Condition
    prescribed: Prescription

    def applies(self, observations: np.ndarray, masks: np.ndarray, layout: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(choice, prescribed)``: the rows where the condition holds AND the legal moves hold both a
        prescribed and an other move (a real choice), and the prescribed moves ``(M, A)`` there."""
        legal = np.asarray(masks).astype(bool, copy=False)
        holds = np.asarray(self.condition(observations, legal, layout), dtype=bool)
        moves = np.asarray(self.prescribed(observations, legal, layout), dtype=bool) & legal
        choice = holds & moves.any(axis=1) & (legal & ~moves).any(axis=1)
        return choice, moves


def deciding(rules: Sequence[Rule], observations: np.ndarray, masks: np.ndarray, layout: Any) -> np.ndarray:
    """``(R, M)`` bools: the rows where each of ``rules``, checked in order (the first that applies decides),
    decides: it has a real choice and no earlier rule with a real choice there prescribes none of its moves
    (a contradiction: the earlier rule wins it)."""
    applied = [rule.applies(observations, masks, layout) for rule in rules]
    out = np.zeros((len(rules), len(observations)), dtype=bool)
    for i, (choice, moves) in enumerate(applied):
        beaten = np.zeros(len(observations), dtype=bool)
        for earlier, earlier_moves in applied[:i]:
            beaten |= earlier & ~(moves & earlier_moves).any(axis=1)
        out[i] = choice & ~beaten
    return out


def piece(observations: np.ndarray, layout: Any, name: str) -> np.ndarray:
    """The columns of piece ``name`` of every row, shaped ``(M, *piece shape)``."""
    p = layout.piece(name)
    size = int(np.prod(p.shape))
    return observations[:, p.start : p.start + size].reshape((len(observations), *p.shape))


def actions(num_actions: int, chosen: Any) -> np.ndarray:
    """``(A,)`` bools: the action ids ``chosen`` (an index, a slice, a list or a bool array)."""
    out = np.zeros(num_actions, dtype=bool)
    out[chosen] = True
    return out


__all__ = ["Condition", "Prescription", "Rule", "actions", "deciding", "piece"]
