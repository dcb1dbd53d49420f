"""Bad input to every public entry point ends in one clear error: one line that names the value.

Covered: ``pirate_envs.make`` (ids, keyword types, ranges, NaN, bools for integers), the AEC
env's ``reset``, ``step``, ``observe`` and ``last`` (raw and wrapped, before ``reset`` and after
the end), the Gymnasium ids (``step``, ``reset``, ``action_masks``, their keywords) and the
batched engine (``make``, ``reset``, ``step`` and ``active``).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

import agents  # noqa: F401  (registers the Gymnasium ids)
import pirate_envs
from pirate_envs import GYMNASIUM_IDS
from pirate_envs.core.errors import INT64_MAX, IllegalActionError, check_range
from tests.game_data import by_version
from tests.games import require
from tests.helpers import play_random_game

BAD_INTEGERS = [True, np.bool_(False), 1.5, 2.0, float("nan"), np.float64(2), "2", None, [2]]
BAD_ACTIONS = [1.5, "0", np.float64(0), np.float32(1), True, np.bool_(False), [0], float("nan")]
BAD_SEEDS_TYPE = [1.5, "3", True, [1], float("nan"), np.float64(1)]
GYM_IDS = sorted(GYMNASIUM_IDS)


def one_clear_error(error_type: Any, value: object, call: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """``call(*args, **kwargs)`` must raise ``error_type`` with a one-line message that names ``value``."""
    with pytest.raises(error_type) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message, f"a message of several lines: {message!r}"
    assert repr(value) in message or str(value) in message, f"{message!r} does not name {value!r}"
    return message


def integer_fields(env_id: str) -> list[str]:
    config = pirate_envs.make(env_id, raw=True).config
    return [f.name for f in dataclasses.fields(config) if type(getattr(config, f.name)) is int]


def legal_action(env: Any) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


# ----------------------------------------------------------------------------- make
def test_make_refuses_unknown_ids_and_keywords(env_id):
    one_clear_error(ValueError, "no_such_game_v0", pirate_envs.make, "no_such_game_v0")
    one_clear_error(TypeError, 7, pirate_envs.make, 7)
    one_clear_error(TypeError, "no_such_option", pirate_envs.make, env_id, no_such_option=1)


@pytest.mark.parametrize("bad", BAD_INTEGERS, ids=repr)
def test_make_refuses_what_is_not_an_integer_for_every_integer_option(env_id, bad):
    for field in integer_fields(env_id):
        message = one_clear_error(ValueError, bad, pirate_envs.make, env_id, **{field: bad})
        assert field in message


@pytest.mark.parametrize("bad", [-1, 99, 2**70])
def test_make_refuses_out_of_range_player_counts(env_id, bad):
    one_clear_error(ValueError, bad, pirate_envs.make, env_id, num_players=bad)


@pytest.mark.parametrize("keyword", ["reward_mode", "render_mode", "table_layout"])
@pytest.mark.parametrize("bad", ["nope", 3, float("nan")], ids=repr)
def test_make_refuses_bad_env_keywords(env_id, keyword, bad):
    if keyword == "table_layout":
        require(env_id, "table_layouts")
    one_clear_error(ValueError, bad, pirate_envs.make, env_id, **{keyword: bad})


@pytest.mark.parametrize("bad", [(5.0,), (np.float64(6),), (True,), (5, float("nan"))], ids=repr)
def test_piratenpoker_loot_fronts_must_be_integers(bad):
    one_clear_error(ValueError, bad[-1], pirate_envs.make, "piratenpoker_v0", loot_fronts=bad)


# ----------------------------------------------------------------------------- reset
@pytest.mark.parametrize("raw", [True, False])
def test_reset_refuses_bad_seeds_and_options(env_id, raw):
    env = pirate_envs.make(env_id, raw=raw)
    for bad in BAD_SEEDS_TYPE:
        one_clear_error(TypeError, bad, env.reset, seed=bad)
    for bad in (-1, np.int64(-3)):
        one_clear_error(ValueError, int(bad), env.reset, seed=bad)
    for bad in ([1], "x", 3):
        one_clear_error(TypeError, bad, env.reset, seed=0, options=bad)
    message = one_clear_error(ValueError, "no_such_option", env.reset, seed=0, options={"no_such_option": 1})
    assert all(repr(option) in message for option in env.unwrapped.game.RESET_OPTIONS)
    env.reset(seed=2**70)  # any non-negative integer seeds numpy's generator
    assert env.agents


#: Four seats' chosen Lucky Pirate deal, to which a ``pile`` may be added.
LUCKY_DEAL = [{"hand": [card]} for card in ("1", "2", "3", "4")]
#: Four seats' Piratenpoker hands: seat 0 holds the deck's only red 8.
RED_8_HAND = [["red-8"], [], [], []]


def bad_option(env_id: str, options: dict[str, Any], error: type, value: object, allowed: str) -> Any:
    """A reset of ``env_id`` (default config) with ``options`` whose last option is bad: ``error``, one
    line naming that option, ``value`` and ``allowed`` (a part of the text of what is allowed)."""
    shown = repr(options)
    return pytest.param(env_id, options, error, value, allowed, id=f"{env_id}-{shown[:60]}")


BAD_RESET_OPTIONS = [
    # Skull King, 4 players, hand 1 deals 1 card to each
    bad_option("skull_king_v0", {"deal": 3}, TypeError, 3, "list of 4 lists of 1 card names"),
    bad_option("skull_king_v0", {"deal": "escape"}, TypeError, "escape", "list of 4 lists"),
    bad_option("skull_king_v0", {"deal": [["escape"]] * 5}, ValueError, [["escape"]] * 5, "list of 4 lists of 1"),
    bad_option("skull_king_v0", {"deal": [["escape"]] * 3 + ["escape"]}, TypeError, "escape", "list of 1 card names"),
    bad_option("skull_king_v0", {"deal": [["escape"]] * 3 + [[3]]}, TypeError, 3, "card names"),
    bad_option("skull_king_v0", {"deal": [["escape"]] * 3 + [[["escape"]]]}, TypeError, ["escape"], "card names"),
    bad_option("skull_king_v0", {"deal": [["purple-3"]] + [["escape"]] * 3}, ValueError, "purple-3", "'yellow-7'"),
    bad_option("skull_king_v0", {"deal": [["yellow-1"]] * 4}, ValueError, "yellow-1", "the deck holds 1"),
    bad_option("skull_king_v0", {"deals": 3}, TypeError, 3, "list of deals"),
    bad_option("skull_king_v0", {"deals": [[["escape"]] * 4, "x"]}, TypeError, "x", "list of 4 lists of 2 card names"),
    bad_option("skull_king_v0", {"deals": [[["escape"]] * 4] * 2}, ValueError, ["escape"], "list of 2 card names"),
    bad_option("skull_king_v0", {"first_hand": 2.0}, ValueError, 2.0, "1..10"),
    bad_option("skull_king_v0", {"first_hand": "2"}, ValueError, "2", "1..10"),
    # Piratenpoker, 4 players, hands of 6
    bad_option("piratenpoker_v0", {"hands": 3}, TypeError, 3, "list of 4 lists of at most 6 poker card names"),
    bad_option("piratenpoker_v0", {"hands": "green-1"}, TypeError, "green-1", "list of 4 lists"),
    bad_option("piratenpoker_v0", {"hands": [["green-1"], [], []]}, ValueError, [["green-1"], [], []], "list of 4"),
    bad_option("piratenpoker_v0", {"hands": [[1], [], [], []]}, TypeError, 1, "poker card names"),
    bad_option("piratenpoker_v0", {"hands": [["green-4"] * 7, [], [], []]}, ValueError, "green-4", "at most 6"),
    bad_option("piratenpoker_v0", {"deck": 3}, TypeError, 3, "list of poker card names"),
    bad_option("piratenpoker_v0", {"deck": "green-1"}, TypeError, "green-1", "list of poker card names"),
    bad_option("piratenpoker_v0", {"deck": ["green-9"]}, ValueError, "green-9", "'green-5'"),
    bad_option("piratenpoker_v0", {"deck": ["green-1", "green-1"]}, ValueError, "green-1", "the deck holds 1"),
    bad_option("piratenpoker_v0", {"discard": {"green-1": 1}}, TypeError, {"green-1": 1}, "list of poker card names"),
    bad_option("piratenpoker_v0", {"discard": [["green-1"]]}, TypeError, ["green-1"], "poker card names"),
    bad_option("piratenpoker_v0", {"hands": RED_8_HAND, "discard": ["red-8"]}, ValueError, "red-8", "holds 1"),
    bad_option("piratenpoker_v0", {"rest_to_discard": 1}, TypeError, 1, "True or False"),
    bad_option("piratenpoker_v0", {"rest_to_discard": "no"}, TypeError, "no", "True or False"),
    bad_option("piratenpoker_v0", {"loot": 3}, TypeError, 3, "dict"),
    bad_option("piratenpoker_v0", {"loot": [("red", [5])]}, TypeError, [("red", [5])], "dict"),
    bad_option("piratenpoker_v0", {"loot": {"red": 5}}, TypeError, 5, "list of front values"),
    bad_option("piratenpoker_v0", {"loot": {"red": [5.0]}}, ValueError, 5.0, "5..10"),
    bad_option("piratenpoker_v0", {"loot": {"red": [True]}}, ValueError, True, "5..10"),
    bad_option("piratenpoker_v0", {"loot": {"red": [7]}}, ValueError, 7, "[5, 6, 8, 10]"),
    bad_option("piratenpoker_v0", {"loot": {"red": [10, 10]}}, ValueError, 10, "holds 1"),
    bad_option("piratenpoker_v0", {"loot": {"blue": [5]}}, ValueError, "blue", "['green', 'red', 'yellow']"),
    bad_option("piratenpoker_v0", {"loot": {3: [5]}}, TypeError, 3, "colour name"),
    # Lucky Pirate, 4 players, the default deck (two Parrots, at most 4 down cards)
    bad_option("lucky_pirate_v0", {"deal": 3}, TypeError, 3, "list of 4 mappings"),
    bad_option("lucky_pirate_v0", {"deal": {"hand": ["1"]}}, TypeError, {"hand": ["1"]}, "list of 4 mappings"),
    bad_option("lucky_pirate_v0", {"deal": [{}] * 3}, ValueError, [{}] * 3, "list of 4 mappings"),
    bad_option("lucky_pirate_v0", {"deal": [["1"], {}, {}, {}]}, TypeError, ["1"], "dict"),
    bad_option("lucky_pirate_v0", {"deal": [{"hand": "18"}, {}, {}, {}]}, TypeError, "18", "list of card names"),
    bad_option("lucky_pirate_v0", {"deal": [{"hand": [1]}, {}, {}, {}]}, TypeError, 1, "card names"),
    bad_option("lucky_pirate_v0", {"deal": [{"hand": ["9"]}, {}, {}, {}]}, ValueError, "9", "'captain'"),
    bad_option("lucky_pirate_v0", {"deal": [{"down": ["1"] * 5}, {}, {}, {}]}, ValueError, ["1"] * 5, "at most 4"),
    bad_option("lucky_pirate_v0", {"deal": [{3: [], "x": []}, {}, {}, {}]}, ValueError, 3, "'hand'"),
    bad_option("lucky_pirate_v0", {"deal": [{"hand": ["parrot"] * 3}, {}, {}, {}]}, ValueError, "parrot", "holds 2"),
    bad_option("lucky_pirate_v0", {"deal": LUCKY_DEAL, "pile": 3}, TypeError, 3, "list of card names"),
    bad_option("lucky_pirate_v0", {"deal": LUCKY_DEAL, "pile": "18"}, TypeError, "18", "list of card names"),
    bad_option("lucky_pirate_v0", {"deal": LUCKY_DEAL, "pile": ["x"]}, ValueError, "x", "'captain'"),
    bad_option("lucky_pirate_v0", {"deal": LUCKY_DEAL, "pile": ["1"] * 4}, ValueError, "1", "holds 4"),
    bad_option("lucky_pirate_v0", {"pile": ["1"]}, ValueError, ["1"], "'deal'"),
    bad_option("lucky_pirate_v0", {"dealer": 1.0}, ValueError, 1.0, "0..3"),
    bad_option("lucky_pirate_v0", {"dealer": True}, ValueError, True, "0..3"),
    # Piraten Kapern, the deck without the promo cards
    bad_option("piraten_kapern_v0", {"first_card": ["captain"]}, TypeError, ["captain"], "fortune card name"),
    bad_option("piraten_kapern_v0", {"first_card": 3}, TypeError, 3, "fortune card name"),
    bad_option("piraten_kapern_v0", {"first_card": "joker"}, ValueError, "joker", "'captain'"),
    bad_option("piraten_kapern_v0", {"first_card": "storm"}, ValueError, "storm", "'captain'"),
]


@pytest.mark.parametrize(("game_id", "options", "error", "value", "allowed"), BAD_RESET_OPTIONS)
def test_reset_refuses_bad_option_values_naming_the_option_the_value_and_what_is_allowed(
    game_id, options, error, value, allowed
):
    env = pirate_envs.make(game_id, raw=True)
    env.reset(seed=0)
    before = (env.game.render(), env.observe(env.agent_selection)["observation"].copy())
    message = one_clear_error(error, value, env.reset, seed=1, options=options)
    option = list(options)[-1]
    assert option in message and allowed in message, message
    assert env.game.render() == before[0]  # refused before the game changed
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before[1])


def test_reset_option_values_are_cut_short_in_messages():
    env = pirate_envs.make("piratenpoker_v0", raw=True)
    message = one_clear_error(ValueError, "hands", env.reset, options={"hands": [["green-1"]] * 1000})
    assert message.startswith("hands=[['green-1'], ['green-1'], ") and "... has 1000 items" in message
    assert len(message) < 250


@pytest.mark.parametrize("game_id", ["skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0"])
def test_reset_options_given_as_none_are_as_if_not_given(game_id):
    """Lucky Pirate's ``dealer=None`` is left out: it asks for a random dealer."""
    env = pirate_envs.make(game_id, raw=True)
    env.reset(seed=5)
    expected = env.game.render()
    env.reset(seed=5, options={option: None for option in env.game.RESET_OPTIONS if option != "dealer"})
    assert env.game.render() == expected


# ----------------------------------------------------------------------------- step, observe, last
@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=repr)
def test_step_refuses_what_is_not_an_integer(env_id, bad):
    raw = pirate_envs.make(env_id, raw=True)
    raw.reset(seed=0)
    one_clear_error(TypeError, bad, raw.step, bad)
    wrapped = pirate_envs.make(env_id)
    wrapped.reset(seed=0)
    one_clear_error(AssertionError, bad, wrapped.step, bad)


def test_step_refuses_none_while_alive_out_of_range_and_illegal_actions(env_id):
    raw = pirate_envs.make(env_id, raw=True)
    raw.reset(seed=0)
    one_clear_error(TypeError, raw.agent_selection, raw.step, None)
    for bad in (-1, raw.num_actions, 2**70, np.uint64(2**64 - 1)):
        one_clear_error(IllegalActionError, int(bad), raw.step, bad)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    one_clear_error(IllegalActionError, illegal, raw.step, illegal)


@pytest.mark.parametrize("raw", [True, False])
def test_calls_before_reset_and_after_the_end_say_what_to_call(env_id, raw):
    env = pirate_envs.make(env_id, raw=raw)
    error = RuntimeError if raw else AssertionError  # the wrapper keeps PettingZoo's order assertions
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0")):
        with pytest.raises(error, match=r"reset\(\)"):
            call()
    env.reset(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        play_random_game(env, np.random.default_rng(1))
    assert not env.agents
    message = one_clear_error(RuntimeError, "last", env.last)
    assert "game ended" in message and "reset()" in message
    env.reset(seed=1)
    assert env.last()[0] is not None


# ----------------------------------------------------------------------------- the Gymnasium ids
@pytest.fixture(scope="module")
def gym_envs() -> dict[str, gymnasium.Env]:
    return {gym_id: gymnasium.make(gym_id, opponents="random") for gym_id in GYM_IDS}


@pytest.mark.parametrize("gym_id", GYM_IDS)
@pytest.mark.parametrize("bad", [*BAD_ACTIONS, None], ids=repr)
def test_gym_step_refuses_what_is_not_an_integer(gym_envs, gym_id, bad):
    env = gym_envs[gym_id]
    env.reset(seed=0)
    before = env.unwrapped.game.render()
    one_clear_error(TypeError, bad, env.step, bad)
    assert env.unwrapped.game.render() == before  # nothing moved


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_gym_step_refuses_actions_outside_the_space(gym_envs, gym_id):
    env = gym_envs[gym_id]
    env.reset(seed=0)
    n = env.action_space.n
    for bad in (-1, n, 2**70):
        one_clear_error(ValueError, bad, env.step, bad)
    assert env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))  # and plays on


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_gym_reset_refuses_bad_seeds_and_unknown_options(gym_envs, gym_id):
    env = gym_envs[gym_id]
    for bad in BAD_SEEDS_TYPE:
        one_clear_error(TypeError, bad, env.reset, seed=bad)
    one_clear_error(ValueError, -1, env.reset, seed=-1)
    one_clear_error(TypeError, "x", env.reset, seed=0, options="x")
    one_clear_error(ValueError, "no_such_option", env.reset, seed=0, options={"no_such_option": 1})
    env.reset(seed=np.uint64(7))  # numpy integers seed as Python integers do
    first = env.unwrapped.game.render()
    env.reset(seed=7)
    assert env.unwrapped.game.render() == first


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_gym_masks_and_steps_before_reset_and_after_the_end(gym_id):
    env = gymnasium.make(gym_id, opponents="random")
    one_clear_error(RuntimeError, "action_masks", env.unwrapped.action_masks)
    one_clear_error(RuntimeError, "step", env.unwrapped.step, 0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100_000):  # a step budget far above any game's length
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        if terminated or truncated:
            break
    assert terminated or truncated
    assert not env.unwrapped.action_masks().any()
    message = one_clear_error(RuntimeError, "step", env.unwrapped.step, 0)
    assert "reset()" in message


@pytest.mark.parametrize(
    ("keyword", "bad"),
    [
        ("learner_seat", True),
        ("learner_seat", 1.0),
        ("learner_seat", 99),
        ("truncation_reward", "x"),
        ("truncation_reward", float("nan")),
        ("truncation_reward", True),
        ("snapshot_deterministic", 1),
        ("max_snapshots", 1.5),
        ("max_snapshots", 0),
        ("num_players", True),
        ("reward_mode", "money"),
    ],
    ids=repr,
)
def test_gym_make_refuses_bad_keywords(keyword, bad):
    with pytest.raises((TypeError, ValueError)) as caught:
        gymnasium.make("pirate_envs/SkullKing-v0", opponents="random", **{keyword: bad})
    assert keyword in str(caught.value) and repr(bad) in str(caught.value)


# ----------------------------------------------------------------------------- the batched engine
@pytest.fixture(scope="module")
def vector():
    pytest.importorskip("numba")
    import pirate_envs.vector

    return pirate_envs.vector


# the options by version: each game's ``kernel_integers`` in tests/<game>/short_games.json
@pytest.mark.parametrize(
    ("env_id", "field"),
    [(env_id, field) for env_id, fields in by_version("kernel_integers").items() for field in fields],
)
def test_vector_make_refuses_integers_its_kernels_cannot_hold(vector, env_id, field):
    """The env takes any integer; the kernels' 64-bit ones cannot: the error is check_range's."""
    for value in (2**70, INT64_MAX + 1):
        pirate_envs.make(env_id, **{field: value})  # the AEC env holds it
        message = one_clear_error(ValueError, value, vector.make, env_id, 2, **{field: value})
        with pytest.raises(ValueError) as reference:
            check_range(field, value, 1, INT64_MAX)
        assert message.startswith(str(reference.value).replace(f"1..{INT64_MAX}", f"<= {INT64_MAX}"))
    vector.make(env_id, 2, **{field: INT64_MAX})  # the largest one is taken


def test_vector_make_and_reset_refuse_bad_arguments(vector):
    for bad in (0, -1, 1.5, True, "2", 2**70):
        one_clear_error((TypeError, ValueError), bad, vector.make, "skull_king_v0", bad)
    one_clear_error(ValueError, "no_such_game_v0", vector.make, "no_such_game_v0", 2)
    one_clear_error(TypeError, "no_such_option", vector.make, "skull_king_v0", 2, no_such_option=1)
    one_clear_error(ValueError, True, vector.make, "skull_king_v0", 2, num_players=True)
    venv = vector.make("skull_king_v0", 2)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        venv.step(np.zeros(2, dtype=np.int64))
    for bad in BAD_SEEDS_TYPE:
        one_clear_error(TypeError, bad, venv.reset, bad)
    one_clear_error(ValueError, -1, venv.reset, -1)


def test_vector_step_refuses_bad_actions_and_active(vector):
    venv = vector.make("skull_king_v0", 4, seed=0)
    venv.reset()
    legal = vector.random_legal_actions(venv.action_mask, np.random.default_rng(0), venv.terminated | venv.truncated)
    for bad in (legal[:3], legal.astype(float), legal.reshape(4, 1), legal.astype(bool), legal.astype(str), None, 0):
        with pytest.raises(TypeError, match=r"actions must be 4 integers.*got shape"):
            venv.step(bad)
    for value, dtype in ((-1, np.int64), (10**6, np.int64), (2**64 - 1, np.uint64), (INT64_MAX, np.int64)):
        bad = legal.astype(dtype)
        bad[2] = value
        message = one_clear_error(IllegalActionError, value, venv.step, bad)
        assert message.startswith(f"game 2: illegal action {value} (outside")
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(venv.action_mask[1] == 0)[0])
    one_clear_error(IllegalActionError, int(illegal[1]), venv.step, illegal)
    for bad in (np.ones(3, dtype=bool), np.ones(4, dtype=np.int64), np.ones((4, 1), dtype=bool), "x"):
        with pytest.raises(TypeError, match=re.escape("active must be 4 booleans")):
            venv.step(legal, bad)
    venv.step(legal)  # nothing moved on the refused steps: the legal actions still are


def test_vector_make_refuses_more_games_than_it_holds_before_allocating(vector):
    message = one_clear_error(ValueError, 10**9, vector.make, "skull_king_v0", 10**9)
    assert f"1..{vector.MAX_NUM_ENVS}" in message


def test_random_legal_actions_refuses_a_bad_mask_a_bad_rng_and_a_row_without_a_move(vector):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"action_mask must be a 2-D array.*got \(3,\)"):
        vector.random_legal_actions(np.ones(3, np.int8), rng)
    one_clear_error(TypeError, None, vector.random_legal_actions, np.ones((2, 3), np.int8), None)
    mask = np.ones((3, 4), np.int8)
    mask[2] = 0
    with pytest.raises(ValueError, match=r"^action_mask row 2 has no legal action"):
        vector.random_legal_actions(mask, rng)
    assert vector.random_legal_actions(mask, rng, ended=np.array([False, False, True]))[2] == 0
    with pytest.raises(ValueError, match=r"ended must be 3 booleans"):
        vector.random_legal_actions(mask, rng, ended=np.zeros(3, np.int8))


def test_explain_names_a_bad_env_or_agent_name():
    from agents.analysis.explain import explain

    env = pirate_envs.make("skull_king_v0", raw=True)
    env.reset(seed=0)
    one_clear_error(TypeError, None, explain, env, None)
    one_clear_error(TypeError, 3, explain, env, 3)
    one_clear_error(TypeError, None, explain, None, "heuristic")


def test_an_output_name_longer_than_the_file_system_takes_is_refused_up_front(tmp_path):
    from experiments.cli import check_folder, check_output_file

    long_name = "r" * 300
    with pytest.raises(ValueError, match=r"^--run-name .* is 300 bytes; a file name takes at most \d+ there$"):
        check_folder(tmp_path / long_name, "--run-name")
    with pytest.raises(ValueError, match=r"^--out .* is 305 bytes"):
        check_output_file(tmp_path / f"{long_name}.json", "--out")
    with pytest.raises(ValueError, match=r"the path is longer than the \d+ bytes allowed there"):
        check_folder(tmp_path.joinpath(*["a"] * 2100), "--out")
    check_folder(tmp_path / ("r" * 200), "--run-name")  # a long name that fits is taken


@pytest.mark.parametrize(("learning", "why"), [("", "is empty"), ("README.md", "not a folder"), ("no/such", "no such")])
def test_results_pages_refuses_a_learning_folder_that_would_drop_its_sections(capsys, learning, why):
    from experiments import results_pages

    with pytest.raises(SystemExit) as caught:
        results_pages.main(["--learning", learning, "--out", "docs/results"])
    assert caught.value.code == 2
    assert why in capsys.readouterr().err
