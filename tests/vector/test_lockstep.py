"""The batched kernels against the reference engines and the AEC env, step by step.

Every game of a batch is mirrored by a raw AEC env whose engine is ``venv.reference_engine(i)``,
reset with ``venv.reset_options(i)``: the same cards and dice. Random legal play drives both
(Kapern's player stops now and then, so that turns score and games end), and after every step
the observation, the mask, the seat shown, the rewards of every seat and the ends must be
identical. ``engine(i)`` must reproduce the AEC env's engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import pirate_envs

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET
from pirate_envs.piraten_kapern.engine import MAX_CHEST_MOVES_PER_ROLL

SKULL_KING = "skull_king_v0"
KAPERN = "piraten_kapern_v0"
#: Kapern's random player stops with this probability when he may (uniform play almost never stops).
KAPERN_STOP_PROBABILITY = 0.3


def _mismatch(what: str, i: int, step: int, batched: object, reference: object) -> str:
    return f"game {i}, batch step {step}: {what} differs\nbatched:   {batched}\nreference: {reference}"


def _compare(venv: vector.VectorEnv, env, i: int, step: int) -> None:
    """Assert that game ``i`` of ``venv`` shows exactly what the AEC env ``env`` shows."""
    agent = env.agent_selection
    seat = env.possible_agents.index(agent)
    obs = env.observe(agent)
    assert venv.current_player[i] == seat, _mismatch("seat shown", i, step, venv.current_player[i], seat)
    if not np.array_equal(venv.observation[i], obs["observation"]):
        diff = np.flatnonzero(venv.observation[i] != obs["observation"]).tolist()
        raise AssertionError(_mismatch(f"observation (indices {diff})", i, step, venv.observation[i][diff],
                                       obs["observation"][diff]))  # fmt: skip
    assert np.array_equal(venv.action_mask[i], obs["action_mask"]), _mismatch(
        "action mask", i, step, np.flatnonzero(venv.action_mask[i]), np.flatnonzero(obs["action_mask"])
    )
    rewards = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
    assert np.array_equal(venv.rewards[i], rewards), _mismatch("rewards", i, step, venv.rewards[i], rewards)
    terminated = all(env.terminations.values())
    truncated = all(env.truncations.values())
    assert venv.terminated[i] == terminated, _mismatch("terminated", i, step, venv.terminated[i], terminated)
    assert venv.truncated[i] == truncated, _mismatch("truncated", i, step, venv.truncated[i], truncated)


def _compare_engine(venv: vector.VectorEnv, env, i: int) -> None:
    """``venv.engine(i)`` holds the AEC env's game: every view, the scores, whose turn, the rendering."""
    rebuilt, game = venv.engine(i), env.game
    for seat in range(game.num_players):
        assert rebuilt.view(seat) == game.view(seat)
    if hasattr(game, "results"):
        assert rebuilt.results == game.results
    assert rebuilt.scores().tolist() == game.scores().tolist()
    assert (rebuilt.current_player, rebuilt.terminated, rebuilt.truncated) == (
        game.current_player,
        game.terminated,
        game.truncated,
    )
    assert rebuilt.render() == game.render()


def _start(venv: vector.VectorEnv, env, i: int) -> None:
    """Start the AEC env on game ``i``'s current game (its engine deals the same cards and dice)."""
    env.game = venv.reference_engine(i)
    env.reset(options=venv.reset_options(i))


def _random_actions(venv: vector.VectorEnv, rng: np.random.Generator) -> np.ndarray:
    actions = vector.random_legal_actions(venv.action_mask, rng)
    if venv.env_id == KAPERN:
        stop = (venv.action_mask[:, 0] == 1) & (rng.random(venv.num_envs) < KAPERN_STOP_PROBABILITY)
        actions[stop] = 0
    return actions


def _chest_actions(venv: vector.VectorEnv, rng: np.random.Generator) -> np.ndarray:
    """Kapern play that moves dice on and off the Treasure Chest whenever it may (up to the per-roll limit)."""
    actions = _random_actions(venv, rng)
    chest = venv.action_mask.copy()
    chest[:, :CHEST_PUT_OFFSET] = 0
    may_move = chest.any(axis=1)
    actions[may_move] = vector.random_legal_actions(chest, rng)[may_move]
    return actions


def play_lockstep(
    env_id: str, num_envs: int, games: int, seed: int, policy: Callable = _random_actions, **env_kwargs: Any
) -> dict[str, int]:
    """Play at least ``games`` games in lockstep with ``policy(venv, rng)``; return the counts of what was seen.

    Counted: games ended, truncated games, AEC steps, ``engine(i)`` checks, and (Kapern) the steps
    that found the chest moves used up for the roll.
    """
    venv = vector.make(env_id, num_envs, seed=seed, **env_kwargs)
    envs = [pirate_envs.make(env_id, raw=True, **env_kwargs) for _ in range(num_envs)]
    venv.reset()
    for i, env in enumerate(envs):
        _start(venv, env, i)
        _compare(venv, env, i, 0)
    rng = np.random.default_rng(seed)
    finished = steps = engine_checks = batch_steps = truncated = chest_limit = 0
    while finished < games:
        ended = venv.terminated | venv.truncated
        actions = policy(venv, rng)
        venv.step(actions)
        batch_steps += 1
        for i, env in enumerate(envs):
            if ended[i]:
                _start(venv, env, i)
            else:
                env.step(int(actions[i]))
                steps += 1
            _compare(venv, env, i, batch_steps)
            if env_id == KAPERN and env.game.turn.chest_moves >= MAX_CHEST_MOVES_PER_ROLL:
                chest_limit += 1
        finished += int(np.count_nonzero(venv.terminated | venv.truncated))
        truncated += int(np.count_nonzero(venv.truncated))
        # the rebuilt engine: game 0 at every end of a game, and a random game now and then
        if venv.terminated[0] or rng.random() < 0.05:
            i = 0 if venv.terminated[0] else int(rng.integers(num_envs))
            _compare_engine(venv, envs[i], i)
            engine_checks += 1
    return {
        "games": finished,
        "truncated": truncated,
        "steps": steps,
        "engine_checks": engine_checks,
        "chest_limit": chest_limit,
    }


@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_skull_king_lockstep(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(SKULL_KING, 16, 40, seed=100 + num_players, num_players=num_players,
                           reward_mode=reward_mode)  # fmt: skip
    assert counts["games"] >= 40 and counts["engine_checks"] > 0


@pytest.mark.parametrize("num_players", [2, 6])
def test_skull_king_lockstep_short_games_and_other_dealer(num_players: int) -> None:
    """Options change the deal sizes, the dealer order and ``hands_left``: the same in both."""
    counts = play_lockstep(SKULL_KING, 16, 60, seed=7, num_players=num_players, num_hands=3,
                           first_dealer=num_players - 1, reward_mode="score")  # fmt: skip
    assert counts["games"] >= 60


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_skull_king_lockstep_long(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(SKULL_KING, 64, 1000, seed=1000 + num_players, num_players=num_players,
                           reward_mode=reward_mode)  # fmt: skip
    assert counts["games"] >= 1000


@pytest.mark.parametrize("num_players", [2, 5])
def test_skull_king_lockstep_max_table_layout(num_players: int) -> None:
    """``table_layout="max"``: the rows of a six-player table (absent seats zero) and ``seat_present``."""
    counts = play_lockstep(SKULL_KING, 8, 16, seed=60 + num_players, num_players=num_players, num_hands=4,
                           table_layout="max", reward_mode="score")  # fmt: skip
    assert counts["games"] >= 16 and counts["engine_checks"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_skull_king_lockstep_max_table_layout_long(num_players: int) -> None:
    counts = play_lockstep(SKULL_KING, 64, 300, seed=1100 + num_players, num_players=num_players,
                           table_layout="max")  # fmt: skip
    assert counts["games"] >= 300


#: Kapern games short enough for CI: a low target (games end by the final round) and a turn limit.
KAPERN_SHORT = {"target_score": 1500, "max_turns": 40}


@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_kapern_lockstep(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(KAPERN, 16, 40, seed=200 + num_players, num_players=num_players, reward_mode=reward_mode,
                           promo_cards=True, **KAPERN_SHORT)  # fmt: skip
    assert counts["games"] >= 40 and counts["engine_checks"] > 0
    assert 0 < counts["truncated"] < counts["games"]  # both ends are exercised


def test_kapern_lockstep_default_game_and_a_game_over_at_reset() -> None:
    counts = play_lockstep(KAPERN, 8, 8, seed=5, num_players=2)  # the default deck, target and limit
    assert counts["games"] >= 8
    counts = play_lockstep(KAPERN, 8, 40, seed=6, num_players=3, max_turns=1, reward_mode="score")
    assert counts["truncated"] == counts["games"]


def test_kapern_lockstep_chest_moves_up_to_their_limit() -> None:
    """Dice go on and off the Treasure Chest until the per-roll limit closes the chest moves."""
    counts = play_lockstep(KAPERN, 16, 32, seed=8, policy=_chest_actions, num_players=2, **KAPERN_SHORT)
    assert counts["games"] >= 32 and counts["chest_limit"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_kapern_lockstep_long(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(KAPERN, 64, 1000, seed=2000 + num_players, num_players=num_players,
                           reward_mode=reward_mode, promo_cards=num_players % 2 == 0, target_score=3000,
                           max_turns=200)  # fmt: skip
    assert counts["games"] >= 1000


@pytest.mark.parametrize("num_players", [2, 4])
def test_kapern_lockstep_max_table_layout(num_players: int) -> None:
    """``table_layout="max"``: the rows of a five-player table (absent seats zero) and ``seat_present``."""
    counts = play_lockstep(KAPERN, 8, 16, seed=210 + num_players, num_players=num_players, table_layout="max",
                           reward_mode="score", **KAPERN_SHORT)  # fmt: skip
    assert counts["games"] >= 16 and counts["engine_checks"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_kapern_lockstep_max_table_layout_long(num_players: int) -> None:
    counts = play_lockstep(KAPERN, 64, 300, seed=2100 + num_players, num_players=num_players, table_layout="max",
                           target_score=3000, max_turns=200)  # fmt: skip
    assert counts["games"] >= 300
