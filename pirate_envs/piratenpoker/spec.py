"""Piratenpoker's declaration (`pirate_envs.core.spec.GameSpec`): ids, players, options, backend."""

from pirate_envs.core.spec import SHIPPED_GAME_PARTS, GameSpec, UserOption
from pirate_envs.piratenpoker.cards import HAND_SIZE
from pirate_envs.piratenpoker.engine import Config
from pirate_envs.piratenpoker.rules import MAX_PLAYERS, MIN_PLAYERS

SPEC = GameSpec(
    env_id="piratenpoker_v0",
    gym_id="pirate_envs/Piratenpoker-v0",
    name="Piratenpoker",
    entry_module="pirate_envs.piratenpoker_v0",
    config="pirate_envs.piratenpoker.engine:Config",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=Config.num_players,
    batched_backend="pirate_envs.piratenpoker.batched:PiratenpokerBatch",
    batched_scores="seats:S_SCORE",
    # a 4-player game has about 100 searched moves: 11 CPU-s per game at 50 against 35 at 200,
    # where Skull King takes 14 and Lucky Pirate 9 at 200
    options=(
        UserOption("loot_fronts", kind="int_list"),
        UserOption("max_games", low=1, high=Config.max_games),  # up to the game guard's default
        # the small variants' short deck and short hands (a replayed record or OpenSpiel may set them)
        UserOption("poker_copies", kind="int_list", on_page=False),
        UserOption("hand_size", low=1, high=HAND_SIZE, on_page=False),
    ),
    information="imperfect",
    chance=True,
    optional_parts=SHIPPED_GAME_PARTS,
    quick_game=(("max_games", 1),),
)
