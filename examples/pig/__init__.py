"""Pig, the example game: roll a die to build a turn total, hold to bank it (see `.env` for the rules page).

Registered only when asked for: ``pirate_envs.register(examples.pig.spec.SPEC)``.
"""

from examples.pig.engine import Config, Engine, PigEngine
from examples.pig.observation import Encoder
from examples.pig.view import View

__all__ = ["Config", "Encoder", "Engine", "PigEngine", "View"]
