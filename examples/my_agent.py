"""Your own agent: a starting point to copy. Every command that takes an agent of yours reads it so:

    python -m experiments.evaluate --env-id piraten_kapern_v0 --agents examples/my_agent.py:make random --games 20
    python -m experiments.play --env-id piraten_kapern_v0 --agents examples/my_agent.py:make
    python -m experiments.benchmark --env-id piraten_kapern_v0 --agent examples/my_agent.py:make --out runs/mine

``path/to/file.py:factory`` (or ``package.module:factory`` for an importable module) names the
file and the function that builds the agent. Loading the file runs its code, on your machine:
the commands say so before they load it, and the web table never loads one.

The rule here is simple on purpose: play the legal move of the lowest action number. In Piraten
Kapern that is ``stop`` whenever stopping is allowed (bank the points at once); in Skull King and
Lucky Pirate it bids low. Change `CautiousPirate.act` to play your own rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class CautiousPirate:
    """An agent: ``reset`` before every game, ``act`` for every move of its seat."""

    name = "cautious-pirate"

    def __init__(self, env_id: str, seed: int | None = None):
        self.env_id = env_id
        self.rng = np.random.default_rng(seed)  # for a rule that draws; this one does not

    def reset(self, seed: int | None = None) -> None:
        """A new game (``seed``: to make a rule that draws reproducible)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The move to play: an index of the game's action table whose ``action_mask`` entry is 1.

        ``observation["observation"]`` is the seat's vector, ``view`` what the seat sees as
        Python objects (its hand, the scores ...; see the game's ``View``).
        """
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[0])


def make(env_id: str, seed: int | None, env: Any) -> CautiousPirate:
    """The factory: one agent for one game of ``env_id`` at the table ``env`` (a raw env; its
    ``action_to_string(action)`` names a move)."""
    return CautiousPirate(env_id, seed)
