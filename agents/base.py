"""The agent protocol and the random agent, usable with every env id."""

from __future__ import annotations

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


class RandomAgent:
    """Uniformly random over the legal actions (``observation["action_mask"]``)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        return int(legal[self.rng.integers(legal.size)])
