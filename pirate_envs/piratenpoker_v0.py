"""Piratenpoker, version 0 (see :mod:`pirate_envs.piratenpoker.env` for the documentation)."""

from pirate_envs.core.aec import wrap
from pirate_envs.piratenpoker.env import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
