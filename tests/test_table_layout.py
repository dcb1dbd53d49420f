"""The env option ``table_layout``: ``"seated"`` (the default vector, unchanged) and ``"max"``.

``"max"`` lays the per-player pieces out for the game's largest table with a ``seat_present``
flag per row. The expected vector is derived here from the layouts' piece names and shapes:
the seated vector's pieces, each per-player piece in the first rows of its padded piece.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
import random

import numpy as np
import pytest

import pirate_envs
from agents.base import action_blocks, sample_legal
from tests.doc_pages import game_page
from tests.game_data import golden
from tests.games import GAME_SPECS

#: The player counts of every game that declares the option (its declaration's ``player_counts``).
PLAYER_COUNTS = {spec.env_id: spec.player_counts for spec in GAME_SPECS if spec.has("table_layouts")}
CASES = [(env_id, n) for env_id, counts in PLAYER_COUNTS.items() for n in counts]


def play_lockstep(envs: list, games: int, seed: int = 0):
    """Play random seeded games in ``envs`` (same game, other options) in lockstep.

    Yields, before every step, the observations of every seat in each env.
    """
    rng = random.Random(seed)
    for game in range(games):
        for env in envs:
            env.reset(seed=seed + game)
        blocks = action_blocks(envs[0])
        for _agent in envs[0].agent_iter(max_iter=3000):
            yield [{agent: env.observe(agent)["observation"] for agent in env.possible_agents} for env in envs]
            obs, _, terminated, truncated, _ = envs[0].last()
            action = None if terminated or truncated else sample_legal(obs["action_mask"], rng, blocks)
            for env in envs:
                env.step(action)


def default_hash(env_id: str, num_players: int) -> str:
    """sha256 (first 16 hex digits) of every seat's default observation before each step of three seeded random
    games."""
    digest = hashlib.sha256()
    env = pirate_envs.make(env_id, raw=True, num_players=num_players)
    rng = random.Random(1)
    for game in range(3):
        env.reset(seed=game)
        blocks = action_blocks(env)
        for _agent in env.agent_iter(max_iter=3000):
            obs, _, terminated, truncated, _ = env.last()
            for agent in env.possible_agents:
                digest.update(env.observe(agent)["observation"].tobytes())
            env.step(None if terminated or truncated else sample_legal(obs["action_mask"], rng, blocks))
    return digest.hexdigest()[:16]


def per_player_pieces(env_id: str) -> set[str]:
    """The pieces whose shape grows with the table: a leading axis of one row per player."""
    counts = PLAYER_COUNTS[env_id]
    smallest, largest = (
        pirate_envs.make(env_id, raw=True, num_players=n).observation_layout for n in (counts[0], counts[-1])
    )
    return {piece.name for piece in smallest.pieces if piece.shape != largest.piece(piece.name).shape}


@pytest.mark.parametrize(("env_id", "num_players"), CASES)
def test_default_vector_is_unchanged(env_id: str, num_players: int) -> None:
    """No option, or ``table_layout="seated"``: the vector recorded in ``tests/<game>/golden.json`` (for the games
    that had an observation before the option existed, the vector the code gave then)."""
    recorded = golden(env_id, f"default_observation_hash_{num_players}p", lambda: default_hash(env_id, num_players))
    assert default_hash(env_id, num_players) == recorded
    default = pirate_envs.make(env_id, raw=True, num_players=num_players)
    seated = pirate_envs.make(env_id, raw=True, num_players=num_players, table_layout="seated")
    assert default.table_layout == "seated"
    assert "seat_present" not in default.observation_layout
    assert [p.shape for p in default.observation_layout.pieces] == [p.shape for p in seated.observation_layout.pieces]
    for before_step in play_lockstep([default, seated], games=1):
        for agent in default.possible_agents:
            assert before_step[0][agent].tobytes() == before_step[1][agent].tobytes()


@pytest.mark.parametrize(("env_id", "num_players"), CASES)
def test_max_layout_is_the_seated_vector_scattered(env_id: str, num_players: int) -> None:
    """Every piece as in the seated vector; per-player pieces in the first rows; absent rows zero."""
    max_players = PLAYER_COUNTS[env_id][-1]
    seated = pirate_envs.make(env_id, raw=True, num_players=num_players)
    padded = pirate_envs.make(env_id, raw=True, num_players=num_players, table_layout="max")
    largest = pirate_envs.make(env_id, raw=True, num_players=max_players).observation_layout
    rows = per_player_pieces(env_id)
    assert rows, "every game has per-player pieces"
    layout = padded.observation_layout
    # the largest table's pieces at the same offsets, then the flags
    assert [(p.name, p.shape, p.start) for p in layout.pieces[:-1]] == [
        (p.name, p.shape, p.start) for p in largest.pieces
    ]
    assert layout.pieces[-1].name == "seat_present" and layout.pieces[-1].shape == (max_players,)
    assert padded.observation_space(padded.possible_agents[0])["observation"].shape == (layout.size,)
    steps = 0
    for before_step in play_lockstep([seated, padded], games=2, seed=11):
        for agent in seated.possible_agents:
            small = seated.observation_layout.unpack(before_step[0][agent])
            big = layout.unpack(before_step[1][agent])
            assert big["seat_present"].tolist() == [1.0] * num_players + [0.0] * (max_players - num_players)
            for name, values in small.items():
                if name in rows:
                    assert values.shape[0] == num_players
                    np.testing.assert_array_equal(big[name][:num_players], values, err_msg=name)
                    assert not big[name][num_players:].any(), f"{name}: an absent seat's row is not zero"
                else:
                    np.testing.assert_array_equal(big[name], values, err_msg=name)
            assert set(big) == set(small) | {"seat_present"}
        steps += 1
    assert steps > 10


@pytest.mark.parametrize("env_id", list(PLAYER_COUNTS))
def test_max_layout_has_one_size_for_every_table(env_id: str) -> None:
    sizes = {
        pirate_envs.make(env_id, raw=True, num_players=n, table_layout="max").observation_layout.size
        for n in PLAYER_COUNTS[env_id]
    }
    assert len(sizes) == 1
    # and the largest table is the game's limit
    with pytest.raises(ValueError, match="num_players"):
        pirate_envs.make(env_id, raw=True, num_players=PLAYER_COUNTS[env_id][-1] + 1, table_layout="max")


@pytest.mark.parametrize("env_id", list(PLAYER_COUNTS))
def test_max_layout_env_copies_and_pickles(env_id: str) -> None:
    """A ``"max"`` env copies like any env: the copy observes what the original does."""
    env = pirate_envs.make(env_id, raw=True, num_players=PLAYER_COUNTS[env_id][0], table_layout="max")
    env.reset(seed=3)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.table_layout == "max"
        for agent in env.possible_agents:
            np.testing.assert_array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])


@pytest.mark.parametrize("bad", ["maximum", None, 6, ["max"]])
def test_bad_table_layout_is_one_clear_error(bad: object) -> None:
    with pytest.raises(ValueError, match=r"table_layout=.*expected one of \['seated', 'max'\]"):
        pirate_envs.make("skull_king_v0", table_layout=bad)


@pytest.mark.parametrize("env_id", list(PLAYER_COUNTS))
def test_each_game_documents_the_option(env_id: str) -> None:
    text = game_page(env_id)
    max_players = PLAYER_COUNTS[env_id][-1]
    size = pirate_envs.make(env_id, raw=True, num_players=max_players, table_layout="max").observation_layout.size
    assert "table_layout" in text and "seat_present" in text
    assert f"= {size} floats" in text  # the "max" vector's size, as the game's page states it
