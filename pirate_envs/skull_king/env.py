"""Skull King (first edition, Schmidt Spiele), ``skull_king_v0``.

A trick-taking game in which every player bids, each hand, exactly how many tricks he will
win.

The game's page, ``docs/games/skull_king.md``, holds the rules, the arguments and reset options,
the observation and action layout, views and agents, every assumption (each with its option;
``docs/rulings.md`` lists them all), the code map and the version history.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.skull_king.engine import Config, SkullKingEngine
from pirate_envs.skull_king.observation import Encoder, build_layout, largest_layout, piece_bounds
from pirate_envs.skull_king.rules import MAX_PLAYERS


class raw_env(TableLayoutOption, PirateAECEnv):
    """Skull King as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**PirateAECEnv.metadata, "name": "skull_king_v0"}
    CONFIG = Config
    ENGINE = SkullKingEngine
    #: Score-mode rewards: a hand's score (typically -100..+200) times 0.01.
    SCORE_SCALE = 0.01

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        n = self.config.num_players
        seated = Encoder(build_layout(self.config), n)
        return table_layout_encoder(self.table_layout, seated, largest_layout(), MAX_PLAYERS, n)
