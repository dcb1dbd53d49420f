"""Skull King env: rewards as documented, the game-length piece of the observation, copies mid-game."""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import agents.skull_king.heuristic
from pirate_envs import skull_king_v0
from pirate_envs.skull_king import env as env_module
from pirate_envs.skull_king.engine import Config
from pirate_envs.skull_king.env import raw_env
from pirate_envs.skull_king.observation import Encoder, build_layout, encode
from tests.doc_pages import game_page


def play_random(env: raw_env, rng: np.random.Generator, steps: int | None = None) -> None:
    """Play random legal actions until the game ends (or for ``steps`` actions)."""
    done = 0
    while not all(env.terminations.values()) and (steps is None or done < steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        done += 1


# ----------------------------------------------------------------------------- docs
def test_docs_point_to_the_projects_own_rulings_page() -> None:
    """The docstrings name ``docs/rulings.md``, never a file outside the project."""
    package = Path(env_module.__file__).parent
    for path in [*package.glob("*.py"), Path(agents.skull_king.heuristic.__file__)]:
        assert "RULINGS" not in path.read_text(encoding="utf-8"), path
    assert "docs/rulings.md" in env_module.__doc__ and "docs/rulings.md" in game_page("skull_king_v0")


# ----------------------------------------------------------------------------- rewards
def test_the_page_states_the_win_rewards() -> None:
    doc = game_page("skull_king_v0")
    assert "each loser ``-1/(n - w)``" in doc
    assert "each of the ``w`` winners ``1/w``" in doc
    assert "losers -1)" not in doc


def test_win_rewards_of_finished_games_follow_the_docstring() -> None:
    """Winners get 1/w, each loser -1/(n - w), all 0 when everybody ties (from the final scores)."""
    seen = set()
    for num_players in (2, 3, 5):
        env = raw_env(num_players=num_players, num_hands=2)
        rng = np.random.default_rng(num_players)
        for seed in range(60):
            env.reset(seed=seed)
            play_random(env, rng)
            scores = env.game.score
            n, winners = num_players, [s for s, v in enumerate(scores) if v == max(scores)]
            w = len(winners)
            for seat, agent in enumerate(env.agents):
                if w == n:
                    expected = Fraction(0)
                elif seat in winners:
                    expected = Fraction(1, w)
                else:
                    expected = Fraction(-1, n - w)
                assert env.rewards[agent] == float(expected), (scores, env.rewards)
            seen.add("all tie" if w == n else "sole winner" if w == 1 else "shared win")
    assert seen == {"sole winner", "shared win", "all tie"}


# ----------------------------------------------------------------------------- game length in the observation
DEAL_OF_HAND_5 = [
    ["yellow-1", "yellow-2", "red-3", "black-4", "pirate"],
    ["blue-5", "blue-6", "red-7", "escape", "mermaid"],
    ["black-8", "yellow-9", "red-10", "escape", "skull_king"],
]


def hand_5_of(num_hands: int) -> raw_env:
    """A 3-player game of ``num_hands`` hands started at hand 5 with the same deal."""
    env = raw_env(num_players=3, num_hands=num_hands)
    env.reset(seed=0, options={"first_hand": 5, "deal": DEAL_OF_HAND_5})
    return env


def test_hand_5_of_a_5_hand_and_of_a_10_hand_game_encode_differently() -> None:
    short, long = hand_5_of(5), hand_5_of(10)
    layout = short.observation_layout
    for agent in short.agents:
        a = layout.unpack(short.observe(agent)["observation"])
        b = layout.unpack(long.observe(agent)["observation"])
        assert not np.array_equal(short.observe(agent)["observation"], long.observe(agent)["observation"])
        assert {name for name in a if not np.array_equal(a[name], b[name])} == {"hands_left"}
        # hand 5 of 5: no hand after this one; hand 5 of 10: five more (6..10)
        assert a["hands_left"].tolist() == [1] + [0] * 9
        assert b["hands_left"].tolist() == [0] * 5 + [1] + [0] * 4


def test_hands_left_counts_down_to_the_end_of_the_game() -> None:
    """hands_left is num_hands - hand_number for every seat: 2, 1, 0 in a 3-hand game, 0 at the end."""
    env = raw_env(num_players=2, num_hands=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    seen = []
    while not all(env.terminations.values()):
        for agent in env.agents:
            piece = env.observation_layout.unpack(env.observe(agent)["observation"])["hands_left"]
            assert piece.sum() == 1 and int(np.argmax(piece)) == 3 - env.game.hand_number
        seen.append(env.game.hand_number)
        play_random(env, rng, steps=1)
    for agent in env.agents:
        assert env.observation_layout.unpack(env.observe(agent)["observation"])["hands_left"][0] == 1
    assert sorted(set(seen)) == [1, 2, 3]


def test_new_pieces_leave_the_offsets_of_the_old_ones_alone() -> None:
    """Trained agents read the pieces by their offsets: hands_left comes after every older piece."""
    layout = raw_env(num_players=4).observation_layout
    assert layout.piece("scores").start == 436 and layout.piece("hands_left").start == 440
    assert layout.size == 450


def test_the_encoder_cache_tells_game_lengths_apart() -> None:
    """One encoder fed hand 5 of a 10-hand game, then the same table of a 5-hand game, encodes both right."""
    short, long = hand_5_of(5), hand_5_of(10)
    encoder = Encoder(build_layout(Config(num_players=3)), 3)
    for game in (long.game, short.game, long.game):
        view = game.view(1)
        np.testing.assert_array_equal(encoder(view), encode(view, encoder.layout))


# ----------------------------------------------------------------------------- copies
def trajectory(env, actions_rng: np.random.Generator, max_steps: int = 400) -> list:
    """Play random legal actions to the end; every observation, mask, reward and end flag on the way."""
    record = []
    for agent in env.agent_iter(max_steps):
        obs, reward, terminated, truncated, _ = env.last()
        record.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(actions_rng.choice(np.flatnonzero(obs["action_mask"]))))
    record.append(env.unwrapped.game.render())
    return record


@pytest.mark.parametrize("copy_with", ["pickle", "deepcopy"])
@pytest.mark.parametrize("steps", [0, 3, 17, 40])  # start, bidding, mid-trick, later hands
def test_a_copy_mid_game_plays_on_independently_and_identically(copy_with: str, steps: int) -> None:
    env = skull_king_v0.env(num_players=4, num_hands=4)
    env.reset(seed=11)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    before = env.observe(env.agent_selection)["observation"].copy()
    clone = pickle.loads(pickle.dumps(env)) if copy_with == "pickle" else copy.deepcopy(env)
    with pytest.raises(ValueError, match="read-only"):
        clone.observe(clone.agent_selection)["action_mask"][0] = 1
    played_by_clone = trajectory(clone, np.random.default_rng(99))
    # the clone played a whole game: the original has not moved
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before)
    assert trajectory(env, np.random.default_rng(99)) == played_by_clone  # same actions: same game
    final = list(env.unwrapped.game.score)
    clone.reset(seed=3)  # and a reset of the copy leaves the original's finished game alone
    assert env.unwrapped.game.score == final and env.unwrapped.game.terminated


def test_resampling_a_copy_leaves_the_original_alone() -> None:
    env = raw_env(num_players=3, num_hands=5)
    env.reset(seed=2, options={"first_hand": 5})
    play_random(env, np.random.default_rng(0), steps=7)
    hands, bids = env.game.hands.copy(), list(env.game.bids)
    clone = copy.deepcopy(env)
    clone.game.resample_hidden(0, np.random.default_rng(1))
    assert not np.array_equal(clone.game.hands, hands)
    np.testing.assert_array_equal(env.game.hands, hands)
    assert env.game.bids == bids and env.game.counts == env.game.hands.tolist()
