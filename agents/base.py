"""The agent protocol and the random agent, usable with every env id."""

from __future__ import annotations

import functools
import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """A player: ``act`` gets the env observation (vector and mask) and the player's View.

    Honest agents read only these two; the View never exposes hidden information.
    """

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` makes a stochastic agent reproducible."""

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """Choose a legal action."""


class RandomSource(Protocol):
    """Anything with ``random() -> float`` in ``[0, 1)``: ``random.Random`` or a numpy Generator."""

    def random(self) -> float: ...


def sample_legal(mask: np.ndarray, rng: RandomSource, blocks: Sequence[tuple[int, int]] = ()) -> int:
    """A random legal action: a block with a legal action uniformly, then an action in it.

    ``blocks`` are ``(start, stop)`` ranges of the action table; with none, the draw is uniform
    over all legal actions. Sampling by block keeps a huge block (Piraten Kapern's 2073
    re-rolls) from drowning a small one (its single ``stop``). ``rng`` is best a
    ``random.Random``: its ``random()`` costs a tenth of a numpy Generator's.
    """
    legal = mask.view(np.bool_).nonzero()[0]  # a 0/1 int8 mask read as bool: 5x faster
    n = legal.size
    if n == 0:
        raise ValueError("no legal action in the mask: is it this agent's turn?")
    if len(blocks) > 1 and n > 1:
        starts, bounds = _block_bounds(blocks if isinstance(blocks, tuple) else tuple(blocks))
        if bisect_right(starts, legal[0]) != bisect_right(starts, legal[-1]):  # legal actions in several blocks
            positions = legal.searchsorted(bounds).tolist()
            present = [(lo, hi) for lo, hi in pairwise(positions) if hi > lo]
            lo, hi = present[int(rng.random() * len(present))]
            return int(legal[lo + int(rng.random() * (hi - lo))])
    return int(legal[int(rng.random() * n)])


@functools.cache
def _block_bounds(blocks: tuple[tuple[int, int], ...]) -> tuple[list[int], np.ndarray]:
    """Block starts (for ``bisect``) and starts plus the last stop (for ``searchsorted``)."""
    starts = [start for start, _ in blocks]
    return starts, np.array([*starts, blocks[-1][1]])


class RandomAgent:
    """Random legal actions, uniform over action blocks and then within the block drawn.

    Give ``blocks`` (``[(start, stop), ...]`` of the env's action table, see
    `action_blocks`) for block-uniform play, or leave it empty for plain uniform play.
    """

    name = "random"

    def __init__(self, seed: int | None = None, blocks: Sequence[tuple[int, int]] = ()):
        self.rng = random.Random(seed)
        self.blocks = tuple((int(start), int(stop)) for start, stop in blocks)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        return sample_legal(observation["action_mask"], self.rng, self.blocks)


def action_blocks(env: Any) -> tuple[tuple[int, int], ...]:
    """The ``(start, stop)`` ranges of an env's action table (wrapped or raw)."""
    return tuple((b.start, b.stop) for b in env.unwrapped.actions.blocks)
