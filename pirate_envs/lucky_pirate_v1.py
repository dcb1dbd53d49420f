"""Lucky Pirate, version 1: ``env()`` (wrapped) and ``raw_env``.

The game's page is the docstring of `pirate_envs.lucky_pirate.env`; version 1's differences are
in `pirate_envs.lucky_pirate.v1`.
"""

from pirate_envs.core.aec import wrap
from pirate_envs.lucky_pirate.v1 import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
