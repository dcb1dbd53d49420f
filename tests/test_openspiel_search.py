"""OpenSpiel's own searches on the games: ``ISMCTSBot`` through ``resample_from_infostate``, and clones
that draw fresh chance under ``clone_chance="fresh"`` (so ``MCTSBot`` does not know the future)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
ismcts = pytest.importorskip("open_spiel.python.algorithms.ismcts")
mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")

import pirate_envs  # noqa: E402
from pirate_envs.core.chance import Chance  # noqa: E402
from pirate_envs.openspiel import load_game  # noqa: E402
from tests.game_data import by_version  # noqa: E402
from tests.games import GAME_IDS, require  # noqa: E402

#: The cap on a game's moves (a game that reaches it ends truncated, as the OpenSpiel guide says).
MAX_GAME_LENGTH = 80


def short_game(env_id: str):
    """The game's quick game (its declaration's `quick_game`) at its fewest players, its length capped."""
    spec = pirate_envs.game_spec(env_id)
    require(env_id, "openspiel_facts")
    return load_game(env_id, players=spec.min_players, max_game_length=MAX_GAME_LENGTH, **spec.quick_options)


def hidden_state(state) -> bytes:
    """The state's engine without its chance sources (a resampled world draws from fresh ones)."""
    engine = state.table.engine
    return pickle.dumps({name: value for name, value in vars(engine).items() if not isinstance(value, Chance)})


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_ismcts_bot_plays_whole_games(env_id):
    game = short_game(env_id)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(2))
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert len(state.returns()) == game.num_players()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_resampled_states_look_the_same_to_the_player(env_id):
    game = short_game(env_id)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(6):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(20)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions() and world.history() == state.history()
    if pirate_envs.game_spec(env_id).information == "imperfect":  # Kapern's hidden part is its deck's order
        assert len({hidden_state(world) for world in worlds}) > 1, "the hidden part was never redrawn"
    with pytest.raises(ValueError, match="do not replay"):
        worlds[0].serialize()


def outcomes(state, moves: int) -> str:
    """The game after ``moves`` first legal moves (the same moves for every clone)."""
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
    return str(state)


# the moves and game parameters by version: each game's ``fresh_chance`` in tests/<game>/short_games.json
@pytest.mark.parametrize(
    ("env_id", "moves", "params"),
    [(env_id, case["moves"], case["params"]) for env_id, case in by_version("fresh_chance").items()],
)
def test_clones_draw_fresh_chance_under_the_option(env_id, moves, params):
    """Default: two clones given the same moves draw the same dice and deals; under ``clone_chance="fresh"``
    they diverge (an MCTSBot searching from clones cannot know the future)."""
    shared = load_game(env_id, **params).new_initial_state()
    shared.apply_action(shared.legal_actions()[0])
    assert outcomes(shared.clone(), moves) == outcomes(shared.clone(), moves)
    fresh = load_game(env_id, clone_chance="fresh", **params).new_initial_state()
    fresh.apply_action(fresh.legal_actions()[0])
    assert len({outcomes(fresh.clone(), moves) for _ in range(6)}) > 1


def test_mcts_bot_plays_a_game_on_fresh_clones():
    game = load_game("piraten_kapern_v0", players=2, target_score=300, max_game_length=40, clone_chance="fresh")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=np.random.RandomState(3))
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert len(state.returns()) == 2


def test_fresh_clones_are_refused_under_explicit_chance():
    with pytest.raises(ValueError, match="clone_chance"):
        load_game("skull_king_v0", players=2, num_hands=1, chance="explicit", clone_chance="fresh")
