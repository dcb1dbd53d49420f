"""Entry module of ``piraten_kapern_v0``: ``env()`` (wrapped) and ``raw_env``."""

from pirate_envs.core.aec import wrap
from pirate_envs.piraten_kapern.env import raw_env

env = wrap(raw_env)

__all__ = ["env", "raw_env"]
