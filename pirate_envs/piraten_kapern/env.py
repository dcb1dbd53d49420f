"""Piraten Kapern (``piraten_kapern_v0``): press-your-luck dice with fortune cards.

The game's page, ``docs/games/piraten_kapern.md``, holds the rules summary, the arguments, small
variants and reset option, the observation and action layout (with the action features), the
rewards, every assumption (each with its option; ``docs/rulings.md`` lists them all) and the
version history.
"""

from __future__ import annotations

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.piraten_kapern.engine import MAX_PLAYERS, Config, KapernEngine
from pirate_envs.piraten_kapern.observation import Encoder, build_layout, largest_layout, piece_bounds

SCORE_SCALE = 1.0 / 1000.0


class raw_env(TableLayoutOption, PirateAECEnv):
    """Piraten Kapern as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "piraten_kapern_v0"}
    CONFIG = Config
    ENGINE = KapernEngine
    SCORE_SCALE = SCORE_SCALE

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        n = self.config.num_players
        return table_layout_encoder(self.table_layout, Encoder(build_layout(n)), largest_layout(), MAX_PLAYERS, n)
