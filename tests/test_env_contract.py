"""The contract every registered env keeps, parametrized over ``ENV_IDS``: copies and clear errors.

Copies: ``pickle`` and ``copy.deepcopy`` of the wrapped and of the raw env, taken at the start,
in the middle, just before the last decision and after the end of a seeded game. Each copy
plays on by itself; given the same actions it plays exactly what the original plays, and
playing a copy (with other actions) does not change what the original plays next.

Clear errors: every bad argument gets one error that names the bad value and what is valid.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.errors import IllegalActionError, check_range
from pirate_envs.testing import assert_same, check_env, snapshot
from tests.games import GAME_IDS
from tests.helpers import play_random_game, supported_player_counts

CASES = [
    (env_id, n)
    for env_id in GAME_IDS
    for n in sorted({supported_player_counts(env_id)[0], supported_player_counts(env_id)[-1]})
]


# ---------------------------------------------------------------------------- copies
@pytest.mark.parametrize(("env_id", "n"), CASES)
def test_copies_play_on_independently_and_exactly_like_the_original(env_id, n):
    """``check_env``'s ``copies`` check: ``pickle`` and ``copy.deepcopy`` of the wrapped env (win
    rewards) and of the raw env (score rewards) at four points of a seeded game."""
    assert check_env(env_id, num_players=n, checks=["copies"]).checked == ["copies"]


# ---------------------------------------------------------------------------- clear errors
def both_envs(env_id: str) -> list[Any]:
    """The wrapped and the raw env of ``env_id``, reset with seed 0."""
    envs = [pirate_envs.make(env_id), pirate_envs.make(env_id, raw=True)]
    for env in envs:
        env.reset(seed=0)
    return envs


@pytest.mark.parametrize("agent", ["player_99", "nobody", 0, None, ("player_0",), ["player_0"]])
def test_unknown_agent_names_the_agents(env_id, agent):
    for env in both_envs(env_id):
        for method in (env.observe, env.observation_space, env.action_space):
            with pytest.raises(KeyError) as caught:
                method(agent)
            message = str(caught.value)
            assert repr(agent) in message and "player_1" in message, message  # the agents are listed
        with pytest.raises(KeyError, match="player_1"):
            env.unwrapped.seat_of(agent)


def test_action_to_string_names_the_action_space(env_id):
    for env in both_envs(env_id):
        n = env.action_space(env.possible_agents[0]).n
        space = re.escape(f"Discrete({n}): integers 0..{n - 1}")
        for bad in (-1, n, 10**30):
            with pytest.raises(ValueError, match=space):
                env.action_to_string(bad)
        for bad in (1.0, 0.5, "1", "player_0", None, True, [0]):
            with pytest.raises(TypeError, match=space):
                env.action_to_string(bad)
        assert env.action_to_string(np.int64(n - 1)) == env.action_to_string(n - 1)


def test_step_rejects_actions_outside_the_action_space(env_id):
    """The raw env raises ``TypeError`` (``IllegalActionError`` out of range) and does not move; the
    wrapped env fails an assertion, as PettingZoo's ``AssertOutOfBoundsWrapper`` does."""
    wrapped, raw = both_envs(env_id)
    n = raw.num_actions
    space = re.escape(f"Discrete({n}): integers 0..{n - 1}")
    legal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[-1])
    before = snapshot(raw)
    for bad in (float(legal), str(legal), [legal], True, False, None, np.float32(legal), np.bool_(True)):
        with pytest.raises(TypeError, match=space):
            raw.step(bad)
        assert_same(snapshot(raw), before, f"raw env after step({bad!r})")
        with pytest.raises(AssertionError, match=space):
            wrapped.step(bad)
    for bad in (-1, n):
        with pytest.raises(IllegalActionError, match=space):
            raw.step(bad)
        with pytest.raises(AssertionError, match=space):
            wrapped.step(bad)
    assert_same(snapshot(raw), before, "raw env after out-of-range actions")
    raw.step(legal)
    after = snapshot(raw)
    for numpy_action in (np.int64(legal), np.int32(legal), np.uint16(legal), np.array(legal)):
        raw.reset(seed=0)
        raw.step(numpy_action)
        assert_same(snapshot(raw), after, f"step({numpy_action!r})")


def test_step_after_the_end_of_a_raw_game_says_so(env_id):
    env = pirate_envs.make(env_id, raw=True)
    env.reset(seed=3)
    play_random_game(env, random.Random(3))
    assert not env.agents
    with pytest.raises(RuntimeError, match=r"game ended.*reset\(\)"):
        env.step(None)
    env.reset(seed=3)  # and the env plays again
    assert env.agents


def config_values_as_numpy(value: Any) -> Any:
    """``value`` with every Python integer (also inside tuples, lists and dicts) as a numpy integer."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, (tuple, list)):
        return type(value)(config_values_as_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: config_values_as_numpy(v) for k, v in value.items()}
    return value


def has_numpy_scalar(value: Any) -> bool:
    if isinstance(value, np.generic):
        return True
    if isinstance(value, (tuple, list)):
        return any(has_numpy_scalar(v) for v in value)
    if isinstance(value, dict):
        return any(has_numpy_scalar(k) or has_numpy_scalar(v) for k, v in value.items())
    return False


def test_numpy_integers_are_accepted_as_options(env_id):
    default = pirate_envs.make(env_id, raw=True).config
    tried = 0
    for field in dataclasses.fields(default):
        value = getattr(default, field.name)
        as_numpy = config_values_as_numpy(value)
        if not has_numpy_scalar(as_numpy):
            continue
        tried += 1
        config = pirate_envs.make(env_id, raw=True, **{field.name: as_numpy}).config
        assert config == default and not has_numpy_scalar(getattr(config, field.name)), field.name
    assert tried >= 1  # num_players at least
    for n in supported_player_counts(env_id):
        for numpy_n in (np.int64(n), np.int32(n), np.uint8(n)):
            env = pirate_envs.make(env_id, num_players=numpy_n)
            assert type(env.unwrapped.config.num_players) is int
            assert env.unwrapped.config == pirate_envs.make(env_id, raw=True, num_players=n).config
    with pytest.raises(ValueError, match="num_players"):
        pirate_envs.make(env_id, num_players=np.int64(99))
    with pytest.raises(ValueError, match="num_players"):
        pirate_envs.make(env_id, num_players=np.float64(supported_player_counts(env_id)[0]))


def test_reset_options_reach_the_engine_with_python_integers(env_id):
    env = pirate_envs.make(env_id, raw=True)
    engine_reset, received = env.game.reset, []

    def recording_reset(rng, options=None):
        received.append(options)
        engine_reset(rng, None)  # the probe's option names are no engine's

    env.game.reset = recording_reset
    env.game.RESET_OPTIONS = {"seat": "a probe", "seats": "a probe", "flag": "a probe"}
    env.reset(seed=0, options={"seat": np.int64(2), "seats": (np.int32(1), np.uint8(0)), "flag": np.bool_(True)})
    assert received == [{"seat": 2, "seats": (1, 0), "flag": True}]
    assert not has_numpy_scalar(received[0])


def test_check_range_takes_numpy_integers_but_not_floats_or_bools():
    assert check_range("count", np.int64(3), 1, 5) == 3
    assert type(check_range("count", np.uint16(3), 1)) is int
    for bad in (3.0, np.float64(3), True, "3"):
        with pytest.raises(ValueError, match=re.escape(f"count={bad!r} must be an integer")):
            check_range("count", bad, 1, 5)
    with pytest.raises(ValueError, match=re.escape("count=9 is out of range; allowed: 1..5")):
        check_range("count", np.int8(9), 1, 5)


def test_seed_must_be_a_non_negative_integer(env_id):
    for env in both_envs(env_id):
        before = snapshot(env)
        for bad in (-1, np.int64(-5)):
            with pytest.raises(ValueError, match=re.escape(f"seed={int(bad)} is negative")):
                env.reset(seed=bad)
        for bad in (1.5, 2.0, "3", True, [1, 2], np.float64(1)):
            with pytest.raises(TypeError, match=re.escape(f"seed={bad!r}") + ".*non-negative integer"):
                env.reset(seed=bad)
        assert_same(snapshot(env), before, "env after refused seeds")
        env.reset(seed=np.int64(12))
        numpy_seeded = snapshot(env)
        env.reset(seed=12)
        assert_same(numpy_seeded, snapshot(env), "seed=np.int64(12) against seed=12")
    fresh = pirate_envs.make(env_id)
    with pytest.raises(ValueError, match="seed=-1"):
        fresh.reset(seed=-1)
    with pytest.raises(AssertionError, match=re.escape("reset() needs to be called before step")):
        fresh.step(0)  # a refused reset leaves the wrapped env as it was: not reset


def test_options_must_be_a_dict(env_id):
    for env in both_envs(env_id):
        for bad in ([("a", 1)], "abc", 3, ("a",)):
            with pytest.raises(TypeError, match=re.escape(f"options={bad!r}") + ".*dict or None"):
                env.reset(seed=0, options=bad)
        env.reset(seed=0, options={})
        env.reset(seed=0, options=None)


def test_make_names_bad_arguments(env_id):
    for bad in (3, None, ["skull_king_v0"], b"skull_king_v0"):
        with pytest.raises(TypeError, match=re.escape(repr(bad)) + ".*valid ids"):
            pirate_envs.make(bad)
    for bad in ("yes", 1, None):
        with pytest.raises(TypeError, match=re.escape(f"raw={bad!r}") + ".*True or False"):
            pirate_envs.make(env_id, raw=bad)
    assert isinstance(pirate_envs.make(env_id, raw=np.bool_(True)), pirate_envs.env_module(env_id).raw_env)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_legal_mask_of_the_agent_on_turn_is_public_and_read_only(env_id):
    env = pirate_envs.make(env_id)
    env.reset(seed=3)
    raw = env.unwrapped
    mask = raw.legal_mask()
    assert np.array_equal(mask, env.observe(env.agent_selection)["action_mask"])
    assert not mask.flags.writeable
