"""The agent protocol and the random agent, usable with every env id."""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Sequence
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


def sample_legal(mask: np.ndarray, rng: np.random.Generator, blocks: Sequence[tuple[int, int]] = ()) -> int:
    """A random legal action: a block with a legal action uniformly, then an action in it.

    ``blocks`` are ``(start, stop)`` ranges of the action table; with none, the draw is uniform
    over all legal actions. Sampling by block keeps a huge block (Piraten Kapern's 2073
    re-rolls) from drowning a small one (its single ``stop``).
    """
    legal = mask.view(np.bool_).nonzero()[0]  # a 0/1 int8 mask read as bool: 5x faster
    n = legal.size
    if n == 0:
        raise ValueError("no legal action in the mask: is it this agent's turn?")
    if len(blocks) > 1 and n > 1:
        starts, bounds = _block_bounds(tuple(blocks))
        if bisect_right(starts, int(legal[0])) != bisect_right(starts, int(legal[-1])):  # several blocks
            positions = legal.searchsorted(bounds).tolist()
            present = [b for b in range(len(blocks)) if positions[b + 1] > positions[b]]
            b = present[int(rng.random() * len(present))]
            return int(legal[positions[b] + int(rng.random() * (positions[b + 1] - positions[b]))])
    return int(legal[int(rng.random() * n)])


@functools.cache
def _block_bounds(blocks: tuple[tuple[int, int], ...]) -> tuple[list[int], np.ndarray]:
    """Block starts (for ``bisect``) and starts plus the last stop (for ``searchsorted``)."""
    starts = [start for start, _ in blocks]
    return starts, np.array([*starts, blocks[-1][1]])


class RandomAgent:
    """Random legal actions, uniform over action blocks and then within the block drawn.

    Give ``blocks`` (``[(start, stop), ...]`` of the env's action table, see
    :func:`action_blocks`) for block-uniform play, or leave it empty for plain uniform play.
    """

    name = "random"

    def __init__(self, seed: int | None = None, blocks: Sequence[tuple[int, int]] = ()):
        self.rng = np.random.default_rng(seed)
        self.blocks = tuple((int(start), int(stop)) for start, stop in blocks)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        return sample_legal(observation["action_mask"], self.rng, self.blocks)


def action_blocks(env: Any) -> tuple[tuple[int, int], ...]:
    """The ``(start, stop)`` ranges of an env's action table (wrapped or raw)."""
    return tuple((b.start, b.stop) for b in env.unwrapped.actions.blocks)
