"""The contract every registered env keeps, parametrized over ``ENV_IDS``: copies and clear errors.

Copies: ``pickle`` and ``copy.deepcopy`` of the wrapped and of the raw env, taken at the start,
in the middle, just before the last decision and after the end of a seeded game. Each copy
plays on by itself; given the same actions it plays exactly what the original plays, and
playing a copy (with other actions) does not change what the original plays next.

Clear errors: every bad argument gets one error that names the bad value and what is valid.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import pirate_envs
from agents.base import action_blocks, sample_legal
from pirate_envs.core.errors import IllegalActionError, check_range
from tests.helpers import play_random_game, supported_player_counts

RESET = "reset"  # a step of a script that resets the env (no seed: the env's own stream goes on)
STEPS_AFTER_RESET = 6  # decisions of the next game that a script plays after the reset
COPIERS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}
CASES = [
    (env_id, n)
    for env_id in pirate_envs.ENV_IDS
    for n in sorted({supported_player_counts(env_id)[0], supported_player_counts(env_id)[-1]})
]


# ---------------------------------------------------------------------------- copies
def snapshot(env: Any) -> dict[str, Any]:
    """Everything the agents can read from ``env`` now (arrays copied, so later steps cannot touch them)."""
    observations = {}
    for agent in env.agents:
        obs = env.observe(agent)
        observations[agent] = {key: np.array(value, copy=True) for key, value in obs.items()}
    return {
        "agents": list(env.agents),
        "agent_selection": env.agent_selection,
        "observations": observations,
        "rewards": dict(env.rewards),
        "cumulative_rewards": dict(env._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": copy.deepcopy(env.infos),
    }


def assert_same(actual: Any, expected: Any, where: str) -> None:
    """Exact equality of nested dicts, lists and arrays (dtype included), naming the first difference."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), f"{where}: keys differ"
        for key in expected:
            assert_same(actual[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"{where}: lengths differ"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray) and actual.dtype == expected.dtype, f"{where}: dtype differs"
        differ = np.flatnonzero(actual.ravel() != expected.ravel()) if actual.shape == expected.shape else [0]
        assert len(differ) == 0, f"{where}: differs at index {list(differ[:5])}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def choose(env: Any, rng: random.Random) -> int | None:
    """A random legal action of the agent on turn (``None`` for an agent that is done)."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return None
    return sample_legal(env.observe(agent)["action_mask"], rng, action_blocks(env))


def apply(env: Any, step: int | str | None) -> None:
    """Play one step of a script."""
    if step == RESET:
        env.reset()
    else:
        env.step(step)


def record(env: Any, rng: random.Random) -> tuple[list[Any], list[dict[str, Any]]]:
    """Play the game from ``env``'s state to its end, reset, and play a few steps of the next game.

    Returns the script (the steps) and the snapshot before the first and after every step.
    """
    script: list[Any] = []
    trace = [snapshot(env)]
    while env.agents:
        script.append(choose(env, rng))
        env.step(script[-1])
        trace.append(snapshot(env))
    script.append(RESET)
    env.reset()
    trace.append(snapshot(env))
    for _ in range(STEPS_AFTER_RESET):
        if not env.agents:
            break
        script.append(choose(env, rng))
        env.step(script[-1])
        trace.append(snapshot(env))
    return script, trace


def checkpoints(script: list[Any]) -> dict[str, int]:
    """Where to copy: the start, the middle, before the last decision, and after the end of the first game."""
    end = script.index(RESET)
    decisions = [i for i in range(end) if script[i] is not None]
    return {"start": 0, "middle": decisions[len(decisions) // 2], "last decision": decisions[-1], "end": end}


def make_seeded(env_id: str, n: int, raw: bool, seed: int) -> Any:
    """The wrapped env with win rewards, or the raw env with score rewards (a score changes every step or so)."""
    env = pirate_envs.make(env_id, raw=raw, num_players=n, reward_mode="score" if raw else "win")
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize("method", list(COPIERS))
@pytest.mark.parametrize("raw", [False, True], ids=["wrapped-win", "raw-score"])
@pytest.mark.parametrize(("env_id", "n"), CASES)
def test_copies_play_on_independently_and_exactly_like_the_original(env_id, n, raw, method):
    seed = 11 * n
    copier = COPIERS[method]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's logger warns on steps of done agents
        script, trace = record(make_seeded(env_id, n, raw, seed), random.Random(seed))
        for name, k in checkpoints(script).items():
            original = make_seeded(env_id, n, raw, seed)
            for step in script[:k]:
                apply(original, step)
            assert_same(snapshot(original), trace[k], f"replay to the {name}")  # observes all: caches filled
            twin, stray = copier(original), copier(original)
            assert_same(snapshot(twin), trace[k], f"copy at the {name}")
            for agent in twin.agents:
                mask = twin.observe(agent)["action_mask"]
                assert not mask.flags.writeable, f"copy at the {name}: the mask of {agent} can be written to"
            # the stray copy plays other actions through the rest of the game and into the next
            stray_rng = random.Random(seed + 1)
            for _ in range(len(script) - k):
                apply(stray, choose(stray, stray_rng) if stray.agents else RESET)
            # the original and its twin, stepped in turn with the same actions, both play the recorded future
            for i in range(k, len(script)):
                for who, env in (("original", original), ("copy", twin)):
                    apply(env, script[i])
                    assert_same(snapshot(env), trace[i + 1], f"{who} copied at the {name} (step {i})")


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
