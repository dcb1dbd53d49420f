"""Lucky Pirate, version 0: ``env()`` (wrapped) and ``raw_env``.

The game's page is the docstring of `pirate_envs.lucky_pirate.env`.
"""

from pirate_envs.core.aec import wrap
from pirate_envs.lucky_pirate.env import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
