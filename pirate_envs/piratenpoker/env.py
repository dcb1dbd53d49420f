"""Piratenpoker (Michael Schacht, Piatnik): 3 to 5 pirates bid poker cards for loot.

The game's page, ``docs/games/piratenpoker.md``, holds the rules summary, the arguments and
reset options, the action and observation layout, the rewards, every assumption (each with its
option; ``docs/rulings.md`` lists them for every game), the small variant and the version
history. The game's options are fields of `pirate_envs.piratenpoker.engine.Config`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.piratenpoker.engine import Config, PiratenpokerEngine
from pirate_envs.piratenpoker.observation import Encoder, largest_layout, piece_bounds
from pirate_envs.piratenpoker.rules import MAX_PLAYERS


class raw_env(TableLayoutOption, PirateAECEnv):
    """Piratenpoker as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**PirateAECEnv.metadata, "name": "piratenpoker_v0"}
    CONFIG = Config
    ENGINE = PiratenpokerEngine
    SCORE_SCALE = 0.1

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        n = self.config.num_players
        return table_layout_encoder(self.table_layout, Encoder(self.config), largest_layout(), MAX_PLAYERS, n)
