"""Lucky Pirate (``lucky_pirate_v0``): a shedding card game with special pirate cards.

The game's page, ``docs/games/lucky_pirate.md``, holds the rules summary, the arguments and
reset options, the observation and action layout, the rewards, every assumption (each with its
option; ``docs/rulings.md`` lists them with their defaults), how games end, the measured
outcomes, the small variant, the code map and the version history (v1:
`pirate_envs.lucky_pirate.v1`). The game's options are fields of
`pirate_envs.lucky_pirate.engine.Config`.
"""

from __future__ import annotations

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.lucky_pirate.engine import MAX_PLAYERS, Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.observation import Encoder, build_layout, largest_layout, piece_bounds

#: Score mode pays +1 per game won (the score is the number of games won).
SCORE_SCALE = 1.0


class raw_env(TableLayoutOption, PirateAECEnv):
    """Lucky Pirate as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "lucky_pirate_v0"}
    CONFIG = Config
    ENGINE = LuckyPirateEngine
    SCORE_SCALE = SCORE_SCALE

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        seated = Encoder(build_layout(self.config), self.config)
        largest = largest_layout(self.config.observe_known, self.config.observe_pile)
        return table_layout_encoder(self.table_layout, seated, largest, MAX_PLAYERS, self.config.num_players)
