"""Skull King (first edition), version 0: see :mod:`pirate_envs.skull_king.env`."""

from pirate_envs.core.aec import wrap
from pirate_envs.skull_king.env import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
