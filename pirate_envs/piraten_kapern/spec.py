"""Piraten Kapern's declaration (`pirate_envs.core.spec.GameSpec`): ids, players, options, backend."""

from pirate_envs.core.spec import SHIPPED_GAME_PARTS, GameSpec, UserOption
from pirate_envs.piraten_kapern.engine import DEFAULT_MAX_TURNS, MAX_PLAYERS, MIN_DICE, MIN_PLAYERS, Config
from pirate_envs.piraten_kapern.rules import NUM_DICE

#: The most rolls per turn the option ``max_rolls`` may name (0: no limit).
MAX_ROLLS_OPTION = 100

SPEC = GameSpec(
    env_id="piraten_kapern_v0",
    gym_id="pirate_envs/PiratenKapern-v0",
    name="Piraten Kapern",
    entry_module="pirate_envs.piraten_kapern_v0",
    config="pirate_envs.piraten_kapern.engine:Config",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=Config.num_players,
    batched_backend="pirate_envs.piraten_kapern.batched:KapernBatch",
    batched_scores="scores",
    winners_by_score=True,
    options=(
        UserOption("target_score", low=1, high=10_000),  # the rules play to 6,000
        UserOption("max_turns", low=1, high=DEFAULT_MAX_TURNS, on_page=False),  # up to the turn guard's default
        # the small variants (fewer dice, a chosen fortune deck, a roll limit); the rules: 8, the base deck, 0
        UserOption("num_dice", low=MIN_DICE, high=NUM_DICE, on_page=False),
        UserOption("fortune_deck", kind="int_list", on_page=False),
        UserOption("max_rolls", low=0, high=MAX_ROLLS_OPTION, on_page=False),
    ),
    information="imperfect",
    chance=True,
    optional_parts=SHIPPED_GAME_PARTS,
    quick_game=(("target_score", 500),),
)
