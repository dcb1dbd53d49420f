"""The agent protocol and the random agent, usable with every env id."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pirate_envs.core.actions import RandomSource, action_blocks, sample_legal

__all__ = ["Agent", "RandomAgent", "RandomSource", "action_blocks", "sample_legal"]


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
