"""The batched Skull King heuristic chooses what the one-game heuristic chooses, move by move."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.skull_king.batched_heuristic import SkullKingHeuristicBatch
from agents.skull_king.heuristic import SkullKingHeuristic
from pirate_envs.core.observation import TABLE_LAYOUTS
from tests.helpers import assert_replays_with_agent, supported_player_counts

ENV_ID = "skull_king_v0"
PLAYER_COUNTS = supported_player_counts(ENV_ID)
GAMES_PER_TABLE = 2


def play_heuristic_games(num_players: int, table_layout: str, agent: SkullKingHeuristicBatch) -> dict[str, np.ndarray]:
    """Games of the one-game heuristic at every seat; at every decision the batched agent, given the one row,
    must choose the same. Returns every position seen: ``observations``, ``masks``, ``expected``, ``games``."""
    heuristic = SkullKingHeuristic()
    observations, masks, expected, games = [], [], [], []
    for game in range(GAMES_PER_TABLE):
        env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
        env.reset(seed=1000 * num_players + game)
        agent.reset_games(np.array([game]))
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = heuristic.act(observation, env.game.view(env.game.current_player))
            row, mask = observation["observation"][None], observation["action_mask"][None]
            batched = agent.act_batch(np.array([game]), row, mask)
            assert batched.dtype == np.int64 and batched.shape == (1,)
            assert int(batched[0]) == action, (num_players, table_layout, env.game.view(env.game.current_player))
            observations.append(observation["observation"])
            masks.append(observation["action_mask"])
            expected.append(action)
            games.append(game)
            env.step(action)
    return {
        "observations": np.array(observations),
        "masks": np.array(masks),
        "expected": np.array(expected, dtype=np.int64),
        "games": np.array(games, dtype=np.int64),
    }


def batched_agent(num_players: int, table_layout: str) -> SkullKingHeuristicBatch:
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
    return SkullKingHeuristicBatch(env, GAMES_PER_TABLE, seed=0)


@pytest.fixture(scope="module")
def positions() -> dict[tuple[int, str], dict[str, np.ndarray]]:
    """Every position of the heuristic's games, per (player count, table layout), each checked row by row."""
    return {
        (n, layout): play_heuristic_games(n, layout, batched_agent(n, layout))
        for n in PLAYER_COUNTS
        for layout in TABLE_LAYOUTS
    }


@pytest.mark.parametrize("table_layout", TABLE_LAYOUTS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_one_big_batch_matches_the_one_game_heuristic(positions, num_players: int, table_layout: str) -> None:
    seen = positions[(num_players, table_layout)]
    order = np.random.default_rng(num_players).permutation(len(seen["expected"]))  # rows in any order
    agent = batched_agent(num_players, table_layout)
    chosen = agent.act_batch(seen["games"][order], seen["observations"][order], seen["masks"][order])
    np.testing.assert_array_equal(chosen, seen["expected"][order])
    bids = seen["expected"] < pirate_envs.make(ENV_ID, raw=True).actions.offset("card")
    assert bids.any() and not bids.all()  # both decisions were compared


def test_one_agent_of_the_max_layout_plays_every_table_size(positions) -> None:
    """Rows of the ``"max"`` layout have one size at every table: each row's ``seat_present`` counts its players."""
    seen = [positions[(n, "max")] for n in PLAYER_COUNTS]
    agent = batched_agent(PLAYER_COUNTS[0], "max")
    observations = np.concatenate([s["observations"] for s in seen])
    masks = np.concatenate([s["masks"] for s in seen]).astype(bool)  # bool masks as well as int8
    chosen = agent.act_batch(np.zeros(len(masks), dtype=np.int64), observations, masks)
    np.testing.assert_array_equal(chosen, np.concatenate([s["expected"] for s in seen]))


def test_it_plays_the_batched_engine_as_the_one_game_heuristic_plays_the_env() -> None:
    """Whole games on the batched engine's arrays; replayed in the AEC env, every move is the heuristic's."""
    num_games, num_players = 16, 4
    venv = pirate_envs.vector.make(ENV_ID, num_envs=num_games, seed=5, num_players=num_players)
    venv.reset()
    agent = SkullKingHeuristicBatch(pirate_envs.make(ENV_ID, raw=True, num_players=num_players), num_games, seed=0)
    agent.reset_games(np.arange(num_games))
    while not venv.terminated.any():
        venv.step(agent.act_batch(np.arange(num_games), venv.observation, venv.action_mask))
    assert venv.terminated.all()  # every game has the same number of moves
    heuristic = SkullKingHeuristic()
    for i in range(3):
        env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players)
        assert_replays_with_agent(env, venv, i, heuristic)


def test_make_batched_agent_builds_it() -> None:
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3)
    agent = make_batched_agent("heuristic", ENV_ID, env, 8, 0)
    assert isinstance(agent, SkullKingHeuristicBatch) and agent.name == "heuristic"


def test_bad_rows_are_refused() -> None:
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    agent = SkullKingHeuristicBatch(env, 2, seed=0)
    observations = np.stack([observation["observation"]] * 2)
    masks = np.stack([observation["action_mask"]] * 2)
    masks[1] = 0
    with pytest.raises(ValueError, match="row 1 of action_masks has no legal action"):
        agent.act_batch(np.arange(2), observations, masks)
    with pytest.raises(ValueError, match="observations of shape"):
        agent.act_batch(np.arange(2), observations[:, :-1], masks)
    with pytest.raises(ValueError, match="action_masks of shape"):
        agent.act_batch(np.arange(1), observations, masks)
