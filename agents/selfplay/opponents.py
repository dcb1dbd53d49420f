"""The opponent pool of self-play: frozen snapshots of the learner plus registry agents.

Opponents are drawn per seat and per episode: first a kind by its weight (``"self"`` for the
snapshots, or any agent name of ``agents.registry`` such as ``heuristic`` or ``random``),
then, for ``"self"``, a snapshot uniformly among the most recent ``max_snapshots``.
Snapshots are numpy `agents.policy.mlp.MlpPolicy` copies, cheap to pickle into env
worker processes and to run there.
"""

from __future__ import annotations

import contextlib
import math
from collections import deque
from typing import Any

import numpy as np

from agents.base import Agent
from agents.policy.agent import PolicyAgent
from agents.policy.mlp import MlpPolicy
from agents.registry import make_agent

#: The pool kind that stands for the learner's frozen snapshots.
SELF = "self"


def split_weight(spec: str) -> tuple[str, float]:
    """``"heuristic:0.3"`` -> ``("heuristic", 0.3)``; no weight (``"random"``, ``"ppo:<path>"``): weight 1."""
    head, sep, tail = spec.rpartition(":")
    if sep:
        with contextlib.suppress(ValueError):  # no weight after a colon in the name, e.g. ppo:<path>
            return head, float(tail)
    return spec, 1.0


def parse_weights(specs: list[str]) -> dict[str, float]:
    """``["self:0.6", "heuristic:0.3", "random"]`` -> ``{"self": 0.6, "heuristic": 0.3, "random": 1.0}``."""
    weights: dict[str, float] = {}
    for spec in specs:
        name, weight = split_weight(spec)
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"opponents: weight of {name!r} must be >= 0 and finite, got {weight}")
        weights[name] = weights.get(name, 0.0) + weight
    if sum(weights.values()) <= 0:
        raise ValueError(f"opponents: the weights must sum to more than 0, got {specs}")
    return weights


def check_available(name: str, env_id: str, env: Any) -> None:
    """``ValueError`` naming the agent unless the registry can build ``name`` for ``env_id`` and ``env``."""
    try:
        make_agent(name, env_id, seed=0, env=env)
    except (ValueError, ImportError) as error:
        raise ValueError(f"opponents: agent {name!r} cannot play: {error}") from None


class OpponentPool:
    """Draws opponents for one env; agents are built once per (kind, seat) and reused.

    A name the registry cannot build for this env is a ``ValueError`` at once (never dropped).
    """

    def __init__(
        self,
        env_id: str,
        env: Any,
        weights: dict[str, float],
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
    ):
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be >= 1, got {max_snapshots}")
        self.env_id = env_id
        self.env = env
        self.snapshots: deque[MlpPolicy] = deque(maxlen=max_snapshots)
        self.snapshot_deterministic = snapshot_deterministic
        self._agents: dict[tuple[str, int], Agent] = {}
        for name in weights:
            if name != SELF:
                check_available(name, env_id, env)
        self.weights = {k: w for k, w in weights.items() if w > 0}
        if not self.weights:
            raise ValueError(f"opponents: no weight above 0 in {weights}")

    def add_snapshot(self, policy: MlpPolicy) -> None:
        """Add a frozen copy of the learner (the oldest goes once ``max_snapshots`` are held)."""
        self.snapshots.append(policy)

    def kinds(self) -> tuple[list[str], np.ndarray]:
        """The kinds that can be drawn now and their probabilities."""
        names = [k for k in self.weights if k != SELF or self.snapshots]
        if not names:
            raise ValueError("opponents: only 'self' is in the pool and no snapshot was added yet")
        p = np.array([self.weights[k] for k in names])
        return names, p / p.sum()

    def draw_kinds(self, rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Opponents for the seats of ``shape``: the kinds drawable now, each seat's kind (an index
        into them, by weight) and its snapshot (an index into `snapshots`, used where the kind is ``self``)."""
        names, p = self.kinds()
        kind = rng.choice(len(names), size=shape, p=p)
        snapshot = rng.integers(max(len(self.snapshots), 1), size=shape)
        return names, kind, snapshot

    def agent(self, kind: str, key: int, snapshot: int = 0) -> Agent:
        """The one-game agent of ``kind`` that plays the seat ``key`` (built once per kind and key;
        ``self``: playing the snapshot of index ``snapshot``)."""
        agent = self._agents.get((kind, key))
        if agent is None:
            if kind == SELF:
                agent = PolicyAgent(self.snapshots[snapshot], name=SELF, deterministic=self.snapshot_deterministic)
            else:
                agent = make_agent(kind, self.env_id, seed=key, env=self.env)
            self._agents[(kind, key)] = agent
        if kind == SELF:
            agent.policy = self.snapshots[snapshot]  # type: ignore[attr-defined]
        return agent

    def draw(self, seat: int, rng: np.random.Generator) -> Agent:
        """An opponent for ``seat`` in the next episode."""
        names, kind, snapshot = self.draw_kinds(rng, ())
        return self.agent(names[int(kind)], seat, int(snapshot))
