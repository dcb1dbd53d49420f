"""Pig, version 0: ``env()`` (wrapped) and ``raw_env``. The game's page: ``docs/games/pig.md``."""

from examples.pig.env import raw_env
from pirate_envs.core.aec import wrap

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
