"""pirate_envs: multi-agent RL environments for four pirate tabletop games.

    import pirate_envs
    env = pirate_envs.make("piraten_kapern_v0", num_players=3)

Each game is declared once, in ``pirate_envs/<game>/spec.py`` (a `GameSpec`), and listed in
`GAME_SPECS` (`pirate_envs.registry`); `game_spec` gives one, `register` adds a game declared
elsewhere. The import registers each game's single-agent Gymnasium id (`GYMNASIUM_IDS`, e.g.
``gymnasium.make("pirate_envs/SkullKing-v0")``).
"""

from pirate_envs.core.spec import GameSpec
from pirate_envs.registry import (
    ENV_IDS,
    GAME_SPECS,
    GYMNASIUM_IDS,
    env_module,
    game_spec,
    make,
    player_counts,
    register,
    register_gymnasium_ids,
    registered_specs,
)

__version__ = "0.3.15"

register_gymnasium_ids()

__all__ = ["ENV_IDS", "GAME_SPECS", "GYMNASIUM_IDS", "GameSpec", "__version__", "env_module", "game_spec", "make",
           "player_counts", "register", "registered_specs"]  # fmt: skip
