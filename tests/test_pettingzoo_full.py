"""PettingZoo's full test set on every env: its unmodified ``api_test``, the global state and ``rgb_array``.

``check_env`` runs ``api_test``, ``seed_test``, ``render_test`` and the state checks at every table
size (``tests/test_all_envs.py``); this file adds what those checks take for granted.
"""

from __future__ import annotations

import copy
import itertools
import re
import sys
import warnings

import numpy as np
import pytest

import pirate_envs
from tests.games import GAME_IDS, require

ALL_TABLES = [(env_id, n) for env_id in GAME_IDS for n in pirate_envs.player_counts(env_id)]
_TABLE_IDS = [f"{env_id}-{n}p" for env_id, n in ALL_TABLES]


# ---------------------------------------------------------------------------- PettingZoo's api_test probe
@pytest.mark.parametrize(("env_id", "n"), ALL_TABLES, ids=_TABLE_IDS)
def test_unmodified_api_test_passes(env_id, n):
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(pirate_envs.make(env_id, num_players=n), num_cycles=100)


def test_api_test_probe_is_no_option(env_id):
    for raw in (True, False):
        probed, plain = pirate_envs.make(env_id, raw=raw), pirate_envs.make(env_id, raw=raw)
        probed.reset(seed=3, options={"options": 1})
        plain.reset(seed=3)
        assert probed.agent_selection == plain.agent_selection
        np.testing.assert_array_equal(probed.state(), plain.state())


@pytest.mark.parametrize("options", [{"options": 2}, {"options": True}, {"options": {"a": 1}}, {"options": 1, "x": 1}])
def test_anything_but_the_exact_probe_is_refused(env_id, options):
    env = pirate_envs.make(env_id, raw=True)
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) \[.*'options'.*\]; valid options: "):
        env.reset(seed=0, options=options)


# ---------------------------------------------------------------------------- state
def test_state_holds_every_seats_hidden_information():
    """Redrawing what the seat on turn cannot see keeps its observation; where it changes another
    seat's observation (the other hands), it changes the state too."""
    from pirate_envs.core.actions import action_blocks, sample_legal

    shown = {}
    for env_id in GAME_IDS:
        shown[env_id] = 0
        env = pirate_envs.make(env_id, raw=True)
        rng = np.random.default_rng(0)
        for seed in range(3):
            env.reset(seed=seed)
            for _ in range(20):
                if not env.agents:
                    break
                seat = env.seat_of(env.agent_selection)
                twin = copy.deepcopy(env)
                twin.game.resample_hidden(seat, np.random.default_rng(seed))
                twin._obs_cache.clear()
                agent = env.agent_selection
                np.testing.assert_array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])
                others_differ = any(
                    not np.array_equal(twin.observe(a)["observation"], env.observe(a)["observation"])
                    for a in env.possible_agents
                )
                assert others_differ == (not np.array_equal(twin.state(), env.state()))
                shown[env_id] += others_differ
                env.step(sample_legal(env.observe(agent)["action_mask"], rng, action_blocks(env)))
    assert sum(shown.values()) > 0, f"the state never showed another seat's hidden cards: {shown}"


def test_state_layout_names_every_seat_and_the_turn(env_id):
    env = pirate_envs.make(env_id, raw=True, num_players=3)
    env.reset(seed=0)
    layout, state = env.state_layout, env.state()
    pieces = layout.unpack(state)
    for agent in env.possible_agents:
        own = env.observation_layout.unpack(env.observe(agent)["observation"])
        for name, value in own.items():
            np.testing.assert_array_equal(pieces[f"{agent}/{name}"], value)
    expected_turn = np.zeros(3, dtype=np.float32)
    expected_turn[env.seat_of(env.agent_selection)] = 1
    np.testing.assert_array_equal(pieces["on_turn"], expected_turn)
    assert env.state_space.shape == (layout.size,) and env.state_space.dtype == np.float32
    assert "| player_1/" in layout.table()


def test_state_has_one_size_at_every_table_under_max_layout(env_id):
    require(env_id, "table_layouts")
    sizes = set()
    for n in pirate_envs.player_counts(env_id):
        env = pirate_envs.make(env_id, num_players=n, table_layout="max")
        env.reset(seed=0)
        assert env.state().shape == env.state_space.shape
        sizes.add(env.state_space.shape)
    assert len(sizes) == 1, sizes


def test_raw_state_before_reset_is_a_clear_error(env_id):
    with pytest.raises(RuntimeError, match=re.escape("state() called before reset(); call reset() first")):
        pirate_envs.make(env_id, raw=True).state()


def test_no_seat_is_on_turn_in_the_state_after_an_illegal_move_ends_the_game(env_id):
    env = pirate_envs.make(env_id)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    assert not env.state()[env.unwrapped.state_layout["on_turn"]].any()


# ---------------------------------------------------------------------------- rgb_array
def _frames(env_id: str, n: int, seed: int, steps: int) -> list[np.ndarray]:
    from pirate_envs.core.actions import action_blocks, sample_legal

    env = pirate_envs.make(env_id, num_players=n, render_mode="rgb_array")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    for _agent in env.agent_iter(steps):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else sample_legal(obs["action_mask"], rng, action_blocks(env)))
        frames.append(env.render())
    return frames


def test_rgb_array_frames_are_images_of_one_size_the_same_for_the_same_seed(env_id):
    pytest.importorskip("PIL")
    from pirate_envs.core.render import image_size

    n = pirate_envs.player_counts(env_id)[-1]
    frames = _frames(env_id, n, seed=1, steps=12)
    for frame in frames:
        assert frame.dtype == np.uint8 and frame.shape == (*image_size(), 3)
        assert frame.shape[0] % 2 == 0 and frame.shape[1] % 2 == 0  # video codecs want even sizes
    assert any(not np.array_equal(a, b) for a, b in itertools.pairwise(frames)), "the picture never changed"
    again = _frames(env_id, n, seed=1, steps=12)
    assert all(np.array_equal(a, b) for a, b in zip(frames, again))


def test_rgb_array_without_pillow_is_a_one_line_error(env_id, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # ``import PIL`` raises ImportError
    with pytest.raises(ImportError, match=r'^render_mode="rgb_array" needs pillow, the "render" extra: pip install'):
        pirate_envs.make(env_id, render_mode="rgb_array")
    pirate_envs.make(env_id, render_mode="ansi")  # the other modes need no pillow


def test_rgb_array_is_listed_among_the_render_modes(env_id):
    assert "rgb_array" in pirate_envs.make(env_id).metadata["render_modes"]


# ---------------------------------------------------------------------------- performance_benchmark
@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "n"), ALL_TABLES, ids=_TABLE_IDS)
def test_performance_benchmark_runs(env_id, n, capsys):
    """PettingZoo's ``performance_benchmark`` plays on (it stops itself after 5 seconds); not timed."""
    from pettingzoo.test import performance_benchmark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        performance_benchmark(pirate_envs.make(env_id, num_players=n))
    assert "Finished performance benchmark" in capsys.readouterr().out
