"""Skull King (first edition), version 0: ``env()`` (wrapped) and ``raw_env``.

The game's page is the docstring of `pirate_envs.skull_king.env`.
"""

from pirate_envs.core.aec import wrap
from pirate_envs.skull_king.env import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
