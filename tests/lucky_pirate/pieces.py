"""Reading Lucky Pirate's counting pieces in copies per kind (tests of the observation options)."""

from __future__ import annotations

import numpy as np

from pirate_envs.lucky_pirate.cards import KIND_INDEX, NUM_KINDS
from pirate_envs.lucky_pirate_v0 import raw_env

COPIES = 4  # most copies of a kind in the default deck: counts are divided by it


def observed_piece(env: raw_env, agent: str, name: str) -> np.ndarray:
    """``agent``'s observed piece ``name``, in copies."""
    return env.observation_layout.unpack(env.observe(agent)["observation"])[name] * COPIES


def counts(*cards: str) -> list[float]:
    """A row of copies per kind holding ``cards``."""
    row = [0.0] * NUM_KINDS
    for card in cards:
        row[KIND_INDEX[card]] += 1
    return row
