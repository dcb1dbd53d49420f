"""Lucky Pirate's declarations (`pirate_envs.core.spec.GameSpec`): ids, players, options, backend.

`SPEC` declares version 0, `SPEC_V1` version 1 (`pirate_envs.lucky_pirate.v1`): the same game with
its own ids, entry module and config, which version 0's agents play too (`GameSpec.same_game_as`).
"""

import dataclasses

from pirate_envs.core.spec import SHIPPED_GAME_PARTS, GameSpec, UserOption
from pirate_envs.lucky_pirate.cards import MAX_UP_DOWN, NUMBER_CARDS, SPECIAL_KINDS
from pirate_envs.lucky_pirate.engine import (
    DEFAULT_MAX_SET_ASIDE_GAMES,
    DEFAULT_MAX_TURNS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Config,
)

SPEC = GameSpec(
    env_id="lucky_pirate_v0",
    gym_id="pirate_envs/LuckyPirate-v0",
    name="Lucky Pirate",
    entry_module="pirate_envs.lucky_pirate_v0",
    config="pirate_envs.lucky_pirate.engine:Config",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=Config.num_players,
    batched_backend="pirate_envs.lucky_pirate.batched:LuckyPirateBatch",
    batched_scores="seats:S_WINS",
    options=(
        UserOption("wins_to_win", low=1, high=5),  # the rules' tournament
        # up to the guards' defaults
        UserOption("max_turns", low=1, high=DEFAULT_MAX_TURNS, on_page=False),
        UserOption("max_set_aside_games", low=0, high=DEFAULT_MAX_SET_ASIDE_GAMES, on_page=False),
        # the small variants' short deck (a replayed record or OpenSpiel may set them)
        UserOption("ranks", low=1, high=len(NUMBER_CARDS), on_page=False),
        # no spec range: 1 copy of each kind is too few cards for the default table; Config checks 1..6 and the deal
        UserOption("copies", on_page=False),
        UserOption("specials", low=0, high=len(SPECIAL_KINDS), on_page=False),
        UserOption("up_down_cards", low=0, high=MAX_UP_DOWN, on_page=False),
    ),
    information="imperfect",
    chance=True,
    optional_parts=SHIPPED_GAME_PARTS,
    quick_game=(("max_turns", 60),),
)

SPEC_V1 = dataclasses.replace(
    SPEC,
    env_id="lucky_pirate_v1",
    gym_id="pirate_envs/LuckyPirate-v1",
    entry_module="pirate_envs.lucky_pirate_v1",
    config="pirate_envs.lucky_pirate.v1:ConfigV1",
    same_game_as=("lucky_pirate_v0",),
    optional_parts=SPEC.optional_parts,  # version 0's rule card plays it too (same_game_as)
)
