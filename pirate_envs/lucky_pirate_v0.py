"""Lucky Pirate, version 0 (see :mod:`pirate_envs.lucky_pirate.env` for the documentation)."""

from pirate_envs.core.aec import wrap
from pirate_envs.lucky_pirate.env import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
