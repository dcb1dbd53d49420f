"""Skull King's declaration (`pirate_envs.core.spec.GameSpec`): ids, players, options, backend."""

from pirate_envs.core.spec import SHIPPED_GAME_PARTS, GameSpec, UserOption
from pirate_envs.skull_king.rules import DEFAULT_PLAYERS, MAX_HANDS, MAX_PLAYERS, MIN_PLAYERS

SPEC = GameSpec(
    env_id="skull_king_v0",
    gym_id="pirate_envs/SkullKing-v0",
    name="Skull King",
    entry_module="pirate_envs.skull_king_v0",
    config="pirate_envs.skull_king.engine:Config",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=DEFAULT_PLAYERS,
    batched_backend="pirate_envs.skull_king.batched:SkullKingBatch",
    batched_scores="seats:S_SCORE",
    winners_by_score=True,
    options=(
        UserOption("num_hands", low=1, high=MAX_HANDS),
        # a short deck (small variants): suit indices, ranks 1..ranks, copies of the five specials. Config
        # checks them with the table (a short deck bounds num_hands), so no range here: a low end would not
        # build with the default ten hands
        UserOption("suits", kind="int_list", on_page=False),
        UserOption("ranks", on_page=False),
        UserOption("specials", kind="int_list", on_page=False),
    ),
    information="imperfect",
    chance=True,
    optional_parts=SHIPPED_GAME_PARTS,
    quick_game=(("num_hands", 2),),
)
