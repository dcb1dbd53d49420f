"""What a game declares for the OpenSpiel adapter (`pirate_envs.openspiel`): its facts and explicit chance.

A game's ``openspiel.py`` builds its `OpenSpielFacts` from these types; under ``chance="explicit"``
the engine draws from an `ExplicitChance`, which raises `DrawNeeded` (carrying the `Draw`) on a
draw it has no outcome for. They sit below the games, so that a game's facts import nothing above it.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pirate_envs.core.chance import Chance, count_vectors, roll_probability
from pirate_envs.core.engine import Engine

#: ``max_game_length`` of a game whose length has no fixed limit, unless its facts say otherwise.
DEFAULT_MAX_GAME_LENGTH = 100_000


class DrawNeeded(Exception):
    """Raised by `ExplicitChance` on a draw it has no outcome for: the state becomes a chance node of ``draw``."""

    def __init__(self, draw: Draw):
        super().__init__(draw.kind)
        self.draw = draw


@dataclass(frozen=True)
class Draw:
    """One draw an engine asked for under explicit chance, and its outcomes (small integer ids, exact odds).

    * ``"permutation"``/``"shuffle"`` of ``items``: resolved position by position, one chance node
      each; outcome id ``i`` puts the ``i``-th distinct item value (in order of first appearance)
      next, with probability (its copies left) / (items left). Identical items are one outcome.
    * ``"integers"`` in ``low..high-1`` (``items == (low, high)``): id ``v - low``, uniform.
    * ``"roll_dice"`` of ``n`` dice (``items == (n,)``): id ``i`` is ``count_vectors(n)[i]``
      (counts per face), with probability `roll_probability`.
    """

    kind: str
    items: tuple[Any, ...]
    #: ``numpy`` dtype of a permutation's array (``None`` for the other draws).
    dtype: Any = None

    @property
    def shuffles(self) -> bool:
        return self.kind in ("permutation", "shuffle")

    @functools.cached_property
    def distinct(self) -> list[Any]:
        """A permutation's distinct item values in order of first appearance (outcome id -> value)."""
        return list(dict.fromkeys(self.items))

    def outcomes(self, chosen: Sequence[Any] = ()) -> list[tuple[int, float]]:
        """``(id, probability)`` of the next outcome; for a permutation, after the values ``chosen`` so far."""
        if self.shuffles:
            left = collections.Counter(self.items)
            left.subtract(chosen)
            total = len(self.items) - len(chosen)
            return [(i, left[value] / total) for i, value in enumerate(self.distinct) if left[value] > 0]
        if self.kind == "integers":
            low, high = self.items
            return [(i, 1.0 / (high - low)) for i in range(high - low)]
        return [(i, roll_probability(counts)) for i, counts in enumerate(count_vectors(self.items[0]))]

    def value(self, outcome: int) -> Any:
        """The value of outcome ``outcome``: a permutation's next item, the integer, or the roll's counts."""
        if self.shuffles:
            return self.distinct[outcome]
        if self.kind == "integers":
            return self.items[0] + outcome
        return count_vectors(self.items[0])[outcome]

    def completed(self, chosen: Sequence[Any]) -> list[Any]:
        """A permutation's result: the values ``chosen`` first, then the other items in their given order."""
        rest = collections.Counter(chosen)
        tail = []
        for item in self.items:
            if rest[item] > 0:
                rest[item] -= 1
            else:
                tail.append(item)
        return list(chosen) + tail


class ExplicitChance(Chance):
    """A chance source that replays the outcomes ``script`` and raises `DrawNeeded` on a draw past it.

    `Table` runs every engine of an explicit-chance game on one: when a draw has no outcome yet,
    the state becomes a chance node of that draw, and once chosen the interrupted step is run
    again on a copy of the engine from before it, with the outcome scripted.
    """

    __slots__ = ("script", "used")

    def __init__(self, script: Sequence[Any] = ()):
        self.script = list(script)
        self.used = 0

    def _next(self, draw: Draw) -> Any:
        if self.used == len(self.script):
            raise DrawNeeded(draw)
        self.used += 1
        return self.script[self.used - 1]

    def permutation(self, items: Any) -> np.ndarray:
        array = np.arange(items) if isinstance(items, (int, np.integer)) else np.asarray(items)
        return np.array(self._next(Draw("permutation", tuple(array.tolist()), array.dtype)), dtype=array.dtype)

    def shuffle(self, items: list) -> None:
        items[:] = self._next(Draw("shuffle", tuple(items)))

    def integers(self, low: int, high: int | None = None) -> int:
        low, high = (0, int(low)) if high is None else (int(low), int(high))
        return int(self._next(Draw("integers", (low, high))))

    def roll_dice(self, n: int) -> tuple[int, ...]:
        return tuple(self._next(Draw("roll_dice", (int(n),))))

    def clone(self) -> ExplicitChance:
        twin = ExplicitChance(self.script)
        twin.used = self.used
        return twin


def _all_positions(engine: Engine, draw: Draw) -> int:
    return len(draw.items)


def _plain_label(draw: Draw, value: Any) -> str:
    if draw.kind == "roll_dice":
        return "roll " + "".join(str(face + 1) * count for face, count in enumerate(value))
    return f"{'draw' if draw.kind == 'integers' else 'next'} {value}"


@dataclass(frozen=True)
class ExplicitRules:
    """How one game (or variant) plugs into explicit chance (``chance="explicit"``).

    A game offers explicit chance by an entry in `EXPLICIT_CHANCE`: a function of the engine's
    config returning its `ExplicitRules` (or raising a one-line ``ValueError`` for a config it
    does not offer). Nothing else is needed: the engine keeps drawing through ``self.chance``
    (`pirate_envs.core.chance`) and `Table` turns each draw into chance nodes (`Draw`). The rules:

    * ``max_chance_outcomes``: a bound on every outcome id (`Draw`: a permutation's distinct item
      values, ``high - low`` of an ``integers`` draw, ``len(count_vectors(n))`` of a roll of
      ``n`` dice); an id beyond it raises ``RuntimeError``.
    * ``max_chance_nodes``: a bound on the chance nodes of one history (OpenSpiel's
      ``max_chance_nodes_in_history``).
    * ``positions(engine, draw)``: how many leading positions of a permutation or shuffle are
      dealt by chance nodes; the other items follow in their given order. ``engine`` is the
      engine as it stood when it drew. This is exact when the engine never reads the items past
      those positions before it draws that list anew (Skull King deals the first ``n * k`` cards
      of the deck and shuffles the whole deck again next hand): the game's law is then a
      function of the leading positions only, and dealing them one by one with each value's
      copies left over the items left gives exactly their law under a uniform permutation.
      Default: every position. A sequence of sizes instead of a number deals the leading
      positions as consecutive *hands* whose order the engine ignores (it reads each as a
      multiset: Skull King's seats): each hand is dealt as a set, its values in outcome-id
      order, one chance node per card, with the odds of each set under a uniform permutation
      (a multiset ``m`` of the ``c_v`` copies left of each value: ``prod C(c_v, m_v) / C(N, k)``;
      `hand_outcomes`), so a hand of ``k`` cards makes up to ``k!`` times fewer histories.
    * ``label(draw, value)``: a chance outcome's ``action_to_string``.

    A draw with a single outcome (the last distinct value of a permutation, ``integers(1)``) is
    resolved without a chance node.
    """

    max_chance_outcomes: int
    max_chance_nodes: int
    positions: Callable[[Engine, Draw], int | Sequence[int]] = _all_positions
    label: Callable[[Draw, Any], str] = _plain_label


@dataclass(frozen=True)
class OpenSpielFacts:
    """What the OpenSpiel adapter needs to know of one game, declared by the game (``pirate_envs/<game>/openspiel.py``).

    ``explicit_rules(config)``: the game's `ExplicitRules` (``chance="explicit"``; ``None``: not offered;
    a config the game does not offer raises its one line). ``score_bound(config)``: the default
    ``score_bound`` of ``returns="score"``. ``exact_length(config)``: the number of moves of every
    game where the rules fix it (``None``: no fixed length, `max_game_length` is the default).
    """

    score_bound: Callable[[Any], int]
    explicit_rules: Callable[[Any], ExplicitRules] | None = None
    exact_length: Callable[[Any], int | None] | None = None
    max_game_length: int = DEFAULT_MAX_GAME_LENGTH


__all__ = ["DEFAULT_MAX_GAME_LENGTH", "Draw", "DrawNeeded", "ExplicitChance", "ExplicitRules", "OpenSpielFacts"]
