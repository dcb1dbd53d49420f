"""Lucky Pirate's declaration (`pirate_envs.core.spec.GameSpec`): ids, players, options, backend and agents."""

from pirate_envs.core.spec import GameSpec, UserOption

SPEC = GameSpec(
    env_id="lucky_pirate_v0",
    gym_id="pirate_envs/LuckyPirate-v0",
    name="Lucky Pirate",
    entry_module="pirate_envs.lucky_pirate_v0",
    config="pirate_envs.lucky_pirate.engine:Config",
    min_players=2,
    max_players=6,
    default_players=4,
    batched_backend="pirate_envs.lucky_pirate.batched:LuckyPirateBatch",
    heuristic="agents.lucky_pirate_heuristic:LuckyPirateHeuristic",
    batched_heuristic="agents.batched.lucky_pirate_heuristic:LuckyPirateHeuristicBatch",
    options=(
        UserOption("wins_to_win", low=1, high=5),  # the rules' tournament
        # the guards' defaults (engine.DEFAULT_MAX_TURNS, engine.DEFAULT_MAX_SET_ASIDE_GAMES)
        UserOption("max_turns", low=1, high=5000, on_page=False),
        UserOption("max_set_aside_games", low=0, high=10, on_page=False),
    ),
)
