"""Chance sources: where a rules engine's deals, dice and random choices come from.

An engine draws only through its ``chance`` (a `Chance`, set by ``reset``), with the few
operations the games need:

* ``permutation(items)``: a shuffled copy (an ``int``: of ``range(items)``), as an array;
* ``shuffle(items)``: shuffle a list in place;
* ``integers(low, high=None)``: an ``int`` in ``low..high-1`` (``integers(n)``: in ``0..n-1``);
* ``roll_dice(n)``: ``n`` fair six-sided dice as counts per face;
* ``seed_dice()``: start the dice stream (a source that rolls from a stream of its own seeds it
  here, so the draws keep their order; the others do nothing).

The sources (`GeneratorChance`, `SplitMix64Stream`, `ScriptedChance`, `WithDice`,
`RecordingChance`), how a batched row's outcomes are read back, `as_chance`, ``clone`` and
``fresh``: ``docs/api/core.md``, section "Chance sources". Pure Python and ``numpy``; no ``numba``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

#: Faces of a die (`Chance.roll_dice`).
DIE_FACES = 6
#: One draw of ``2**63`` seeds every derived stream (as the engines always seeded theirs).
SEED_BOUND = 2**63


def count_vectors(n: int, faces: int = DIE_FACES) -> list[tuple[int, ...]]:
    """Every way ``n`` interchangeable dice can show ``faces`` faces, as counts per face.

    The order is that of ``itertools.combinations_with_replacement`` over the faces.
    """
    vectors = []
    for dice in itertools.combinations_with_replacement(range(faces), n):
        counts = [0] * faces
        for face in dice:
            counts[face] += 1
        vectors.append(tuple(counts))
    return vectors


def roll_probability(counts: tuple[int, ...]) -> float:
    """The probability that ``sum(counts)`` fair dice of ``len(counts)`` faces show exactly ``counts``."""
    n = sum(counts)
    ways = math.factorial(n)
    for k in counts:
        ways //= math.factorial(k)
    return ways / len(counts) ** n


@functools.cache
def roll_table(n: int, faces: int = DIE_FACES) -> tuple[list[tuple[int, ...]], list[float]]:
    """``(count vectors, cumulative probabilities)`` of a roll of ``n`` dice (one ``bisect`` per roll)."""
    vectors = count_vectors(n, faces)
    cumulative = list(itertools.accumulate(roll_probability(v) for v in vectors))
    cumulative[-1] = 1.0  # random() < 1.0, so bisect never runs off the end
    return vectors, cumulative


class DiceRoller:
    """Six-sided dice from a ``random.Random`` of their own: one ``random()`` per roll (picklable)."""

    __slots__ = ("uniform",)

    def __init__(self, seed: int):
        self.uniform = random.Random(seed)

    def __call__(self, n: int) -> tuple[int, ...]:
        vectors, cumulative = roll_table(n)
        return vectors[bisect_right(cumulative, self.uniform.random())]

    def clone(self) -> DiceRoller:
        """A roller that rolls on as this one would, independently."""
        twin = DiceRoller.__new__(DiceRoller)
        twin.uniform = random.Random()
        twin.uniform.setstate(self.uniform.getstate())
        return twin


class Chance(ABC):
    """Where an engine's chance comes from (see the module docstring for the operations)."""

    __slots__ = ()

    @abstractmethod
    def permutation(self, items: Any) -> np.ndarray:
        """A shuffled copy of ``items`` (an ``int`` ``n``: of ``range(n)``)."""

    @abstractmethod
    def shuffle(self, items: list) -> None:
        """Shuffle the list ``items`` in place."""

    @abstractmethod
    def integers(self, low: int, high: int | None = None) -> int:
        """An integer in ``low..high-1`` (``high`` ``None``: in ``0..low-1``)."""

    @abstractmethod
    def roll_dice(self, n: int) -> tuple[int, ...]:
        """``n`` fair six-sided dice as counts per face."""

    def seed_dice(self) -> None:
        """Start the dice stream where the engine's draws have reached (nothing unless it has one)."""
        return None

    @abstractmethod
    def clone(self) -> Chance:
        """An independent copy that draws exactly what this source would."""

    def fresh(self, rng: np.random.Generator) -> Chance:
        """A new source seeded from ``rng`` (nothing of this source's future draws survives in it)."""
        return GeneratorChance(np.random.default_rng(int(rng.integers(SEED_BOUND))))


def _bounds(low: int, high: int | None) -> tuple[int, int]:
    """``(low, high)`` of an ``integers`` call (``high`` ``None``: ``(0, low)``)."""
    return (0, int(low)) if high is None else (int(low), int(high))


class GeneratorChance(Chance):
    """The draws of a ``numpy`` generator, call for call what the engines have always made."""

    __slots__ = ("dice", "rng")

    def __init__(self, rng: np.random.Generator, dice: DiceRoller | None = None):
        self.rng = rng
        #: The dice stream, seeded by `seed_dice` (``None`` until then).
        self.dice = dice

    def permutation(self, items: Any) -> np.ndarray:
        return self.rng.permutation(items)

    def shuffle(self, items: list) -> None:
        self.rng.shuffle(items)

    def integers(self, low: int, high: int | None = None) -> int:
        return int(self.rng.integers(low, high))

    def seed_dice(self) -> None:
        self.dice = DiceRoller(int(self.rng.integers(SEED_BOUND)))

    def roll_dice(self, n: int) -> tuple[int, ...]:
        if self.dice is None:
            self.seed_dice()
        return self.dice(n)  # type: ignore[misc]

    def clone(self) -> GeneratorChance:
        bits = self.rng.bit_generator
        twin = np.random.Generator(type(bits)(0))
        twin.bit_generator.state = bits.state
        return GeneratorChance(twin, None if self.dice is None else self.dice.clone())

    def fresh(self, rng: np.random.Generator) -> GeneratorChance:
        """One seed from ``rng`` for the generator, then one for the dice stream if this source has one."""
        chance = GeneratorChance(np.random.default_rng(int(rng.integers(SEED_BOUND))))
        if self.dice is not None:
            chance.dice = DiceRoller(int(rng.integers(SEED_BOUND)))
        return chance


def as_chance(source: Chance | np.random.Generator) -> Chance:
    """``source`` as a `Chance`: a generator is wrapped in a `GeneratorChance`; ``TypeError`` for anything else."""
    if isinstance(source, Chance):
        return source
    if isinstance(source, np.random.Generator):
        return GeneratorChance(source)
    raise TypeError(
        f"expected a chance source (pirate_envs.core.chance.Chance) or a numpy Generator, got {type(source).__name__}"
    )


class SplitMix64Stream(Chance):
    """A batched game's random stream in Python: the numbers the kernels draw, in their order.

    ``below`` is ``random_below`` of `pirate_envs.core.batched`; shuffles are Fisher-Yates from
    the end of the list down; a die is one ``below(6)``. The plain engine given this source
    deals and rolls exactly the batched row whose stream starts at ``state``.
    """

    __slots__ = ("state",)
    _MASK = (1 << 64) - 1

    def __init__(self, state: int):
        self.state = int(state)

    def next(self) -> int:
        """The next 64-bit word (as ``splitmix64_next``)."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & self._MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """An integer in ``0..bound-1`` (as ``random_below``)."""
        return ((self.next() >> 32) * bound) >> 32

    def shuffle(self, items: list) -> None:
        """Shuffle ``items`` in place: Fisher-Yates from the end of the list down (as the kernels shuffle)."""
        for j in range(len(items) - 1, 0, -1):
            r = self.below(j + 1)
            items[j], items[r] = items[r], items[j]

    def permutation(self, items: Any) -> np.ndarray:
        array = np.arange(items) if isinstance(items, (int, np.integer)) else np.asarray(items)
        shuffled = array.tolist()
        self.shuffle(shuffled)
        return np.array(shuffled, dtype=array.dtype)

    def integers(self, low: int, high: int | None = None) -> int:
        low, high = _bounds(low, high)
        return low + self.below(high - low)

    def roll_dice(self, n: int) -> tuple[int, ...]:
        """Counts per face of ``n`` dice, one ``below(6)`` per die (as the kernels roll)."""
        counts = [0] * DIE_FACES
        for _ in range(n):
            counts[self.below(DIE_FACES)] += 1
        return tuple(counts)

    def clone(self) -> SplitMix64Stream:
        return SplitMix64Stream(self.state)


class ScriptedChance(Chance):
    """Plays a script: each draw takes the next outcome of ``outcomes``.

    Outcomes, by draw: ``permutation``/``shuffle``: the items in their new order (a rearrangement
    of the items given); ``integers``: the integer; ``roll_dice``: counts per face (six, summing to
    the dice rolled). A draw past the end or an outcome that does not fit raises ``ValueError``
    in one line.
    """

    def __init__(self, outcomes: Iterable[Any]):
        self.script: deque[Any] = deque(outcomes)
        self.drawn = 0

    def _next(self, draw: str) -> Any:
        if not self.script:
            raise ValueError(f"ScriptedChance: the script ran out at draw {self.drawn} ({draw}); script more outcomes")
        self.drawn += 1
        return self.script.popleft()

    def _refuse(self, outcome: Any, draw: str, allowed: str) -> ValueError:
        where = f"draw {self.drawn - 1} ({draw})"
        return ValueError(f"ScriptedChance: outcome {outcome!r} of {where} is invalid; {allowed}")

    def _rearranged(self, items: list, draw: str) -> list:
        outcome = self._next(draw)
        listed = list(outcome.tolist() if isinstance(outcome, np.ndarray) else outcome)
        if sorted(listed, key=repr) != sorted(items, key=repr):
            raise self._refuse(outcome, draw, f"expected a rearrangement of {items!r}")
        return listed

    def permutation(self, items: Any) -> np.ndarray:
        array = np.arange(items) if isinstance(items, (int, np.integer)) else np.asarray(items)
        return np.array(self._rearranged(array.tolist(), f"permutation of {array.size} items"), dtype=array.dtype)

    def shuffle(self, items: list) -> None:
        items[:] = self._rearranged(list(items), f"shuffle of {len(items)} items")

    def integers(self, low: int, high: int | None = None) -> int:
        low, high = _bounds(low, high)
        draw = f"integer in {low}..{high - 1}"
        outcome = self._next(draw)
        if isinstance(outcome, bool) or not isinstance(outcome, (int, np.integer)) or not low <= outcome < high:
            raise self._refuse(outcome, draw, f"expected an integer in {low}..{high - 1}")
        return int(outcome)

    def roll_dice(self, n: int) -> tuple[int, ...]:
        draw = f"roll of {n} dice"
        outcome = self._next(draw)
        counts = tuple(outcome)
        ok = len(counts) == DIE_FACES and all(isinstance(c, (int, np.integer)) and c >= 0 for c in counts)
        if not ok or sum(counts) != n:
            raise self._refuse(outcome, draw, f"expected {DIE_FACES} counts per face summing to {n}")
        return tuple(int(c) for c in counts)

    def clone(self) -> ScriptedChance:
        twin = ScriptedChance(self.script)
        twin.drawn = self.drawn
        return twin


class WithDice(Chance):
    """``source``'s draws, but dice rolled by ``dice(n)`` (counts per face): tests script only the dice."""

    def __init__(self, source: Chance, dice: Callable[[int], Sequence[int]]):
        self.source = source
        self.dice = dice

    def permutation(self, items: Any) -> np.ndarray:
        return self.source.permutation(items)

    def shuffle(self, items: list) -> None:
        self.source.shuffle(items)

    def integers(self, low: int, high: int | None = None) -> int:
        return self.source.integers(low, high)

    def roll_dice(self, n: int) -> tuple[int, ...]:
        return tuple(self.dice(n))

    def clone(self) -> WithDice:
        return WithDice(self.source.clone(), self.dice)


class RecordingChance(Chance):
    """Draws from ``source`` and keeps every outcome in ``outcomes`` (replay them with `ScriptedChance`)."""

    def __init__(self, source: Chance | np.random.Generator):
        self.source = as_chance(source)
        self.outcomes: list[Any] = []

    def permutation(self, items: Any) -> np.ndarray:
        result = self.source.permutation(items)
        self.outcomes.append(result.tolist())
        return result

    def shuffle(self, items: list) -> None:
        self.source.shuffle(items)
        self.outcomes.append(list(items))

    def integers(self, low: int, high: int | None = None) -> int:
        result = self.source.integers(low, high)
        self.outcomes.append(result)
        return result

    def roll_dice(self, n: int) -> tuple[int, ...]:
        result = self.source.roll_dice(n)
        self.outcomes.append(tuple(result))
        return result

    def seed_dice(self) -> None:
        self.source.seed_dice()

    def clone(self) -> RecordingChance:
        twin = RecordingChance(self.source.clone())
        twin.outcomes = list(self.outcomes)
        return twin


__all__ = [
    "DIE_FACES",
    "Chance",
    "DiceRoller",
    "GeneratorChance",
    "RecordingChance",
    "ScriptedChance",
    "SplitMix64Stream",
    "WithDice",
    "as_chance",
    "count_vectors",
    "roll_probability",
    "roll_table",
]
