"""Pig's declaration (`pirate_envs.core.spec.GameSpec`): ids, players, options, what the game is and ships.

Pig is not one of the shipped games: ``pirate_envs.register(SPEC)`` makes it known to a process.
"""

from examples.pig.engine import DEFAULT_MAX_TURNS, Config
from examples.pig.rules import MAX_PLAYERS, MIN_PLAYERS
from pirate_envs.core.spec import GameSpec, UserOption

#: The highest target a person may set (a game to 1,000 takes a few hundred turns).
MAX_TARGET = 1000

SPEC = GameSpec(
    env_id="pig_v0",
    name="Pig",
    entry_module="examples.pig.pig_v0",
    config="examples.pig.engine:Config",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=Config.num_players,
    options=(
        UserOption("target_score", low=1, high=MAX_TARGET),
        UserOption("max_turns", low=1, high=DEFAULT_MAX_TURNS, on_page=False),
    ),
    information="perfect",
    chance=True,
    optional_parts=frozenset({"invariants"}),
    quick_game=(("target_score", 30),),
)
