"""Pig (``pig_v0``): the example game, a press-your-luck race with one die.

The game's page, ``docs/games/pig.md``, holds the rules summary, the arguments, the observation
and action layout, the rewards, the assumptions and the version history.
"""

from __future__ import annotations

from examples.pig.engine import Config, PigEngine
from examples.pig.observation import Encoder, build_layout
from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv

SCORE_SCALE = 1.0 / 100.0


class raw_env(PirateAECEnv):
    """Pig as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "pig_v0"}
    CONFIG = Config
    ENGINE = PigEngine
    SCORE_SCALE = SCORE_SCALE

    def make_encoder(self) -> ObservationEncoder:
        return Encoder(build_layout(self.config.num_players))
