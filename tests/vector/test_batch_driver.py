"""The shared batch driver (``core.batched.reset_games`` and ``step_games``) on a toy game.

The toy: each game lasts ``length`` moves; a move of ``a`` earns seat 0 ``a`` and passes the turn;
the last move ends the game (truncated when it is a 7, else terminated); a 99 writes its own
output (``apply`` returns ``False``). Its kernels are built as the games' are, so a fresh
process loading them from numba's cache checks that the pattern caches.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs.core.batched import inline_kernel, kernel, reset_games, step_games

F_CURRENT, F_MOVES, F_SHOWN, F_LEFT = range(4)
SELF_WRITTEN = 99
TRUNCATING = 7


class ToyState(NamedTuple):
    length: int
    starts: np.ndarray
    game: np.ndarray
    history: np.ndarray
    observation: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


@inline_kernel
def _new_game(i, st):
    st.starts[i] += 1
    st.game[i, F_CURRENT] = 0
    st.game[i, F_MOVES] = 0
    st.game[i, F_SHOWN] = -1
    st.game[i, F_LEFT] = st.length


@inline_kernel
def _apply(i, action, st):
    if action == SELF_WRITTEN:
        st.observation[i] = -1.0
        return False
    st.game[i, F_CURRENT] = 1 - st.game[i, F_CURRENT]
    st.game[i, F_LEFT] -= 1
    st.rewards[i, 0] = action
    if st.game[i, F_LEFT] == 0:
        if action == TRUNCATING:
            st.truncated[i] = True
        else:
            st.terminated[i] = True
    return True


@inline_kernel
def _output(i, st):
    st.observation[i] = st.game[i, F_LEFT]
    st.current_player[i] = st.game[i, F_CURRENT]


@kernel
def toy_reset_kernel(st):
    reset_games(st, _new_game, _output)


@kernel
def toy_step_kernel(actions, st):
    step_games(actions, st, _new_game, _apply, _output, F_MOVES, F_SHOWN, F_CURRENT)


def toy_state(num: int, length: int, capacity: int) -> ToyState:
    return ToyState(
        length=length,
        starts=np.zeros(num, dtype=np.int64),
        game=np.zeros((num, 4), dtype=np.int64),
        history=np.full((num, capacity), -5, dtype=np.int64),
        observation=np.zeros(num, dtype=np.float32),
        current_player=np.zeros(num, dtype=np.int64),
        rewards=np.zeros((num, 2), dtype=np.float32),
        terminated=np.zeros(num, dtype=np.bool_),
        truncated=np.zeros(num, dtype=np.bool_),
    )


def test_reset_starts_every_game_clears_its_end_and_writes_its_outputs():
    st = toy_state(3, length=4, capacity=8)
    st.terminated[0] = st.truncated[1] = True
    st.rewards[:] = 5.0
    toy_reset_kernel(st)
    assert st.starts.tolist() == [1, 1, 1]
    assert not st.terminated.any() and not st.truncated.any() and not st.rewards.any()
    assert st.observation.tolist() == [4.0, 4.0, 4.0] and st.current_player.tolist() == [0, 0, 0]


def test_a_step_records_applies_and_writes_and_a_waiting_row_keeps_all_but_its_rewards():
    st = toy_state(3, length=4, capacity=8)
    toy_reset_kernel(st)
    st.rewards[:] = 5.0
    waiting = (st.game[0].copy(), st.history[0].copy(), st.observation[0])
    toy_step_kernel(np.array([-1, 3, SELF_WRITTEN], dtype=np.int64), st)
    assert (st.game[0] == waiting[0]).all() and (st.history[0] == waiting[1]).all() and st.observation[0] == waiting[2]
    assert st.rewards.tolist() == [[0, 0], [3, 0], [0, 0]]
    # row 1: recorded, counted, its mover shown, applied (the turn passed), its outputs written
    assert st.history[1, 0] == 3 and st.game[1, F_MOVES] == 1 and st.game[1, F_SHOWN] == 0
    assert st.game[1, F_CURRENT] == 1 and st.observation[1] == 3.0 and st.current_player[1] == 1
    # row 2: recorded too, but ``apply`` wrote its outputs and the driver left them
    assert st.history[2, 0] == SELF_WRITTEN and st.game[2, F_MOVES] == 1 and st.observation[2] == -1.0


@pytest.mark.parametrize(("last_action", "ended"), [(2, "terminated"), (TRUNCATING, "truncated")])
def test_the_action_after_an_end_starts_a_new_game_instead_of_moving(last_action, ended):
    st = toy_state(1, length=2, capacity=8)
    toy_reset_kernel(st)
    toy_step_kernel(np.array([1]), st)
    toy_step_kernel(np.array([last_action]), st)
    assert getattr(st, ended)[0] and st.rewards[0, 0] == last_action and st.game[0, F_MOVES] == 2
    toy_step_kernel(np.array([-1]), st)  # a waiting row stays ended
    assert getattr(st, ended)[0] and st.starts[0] == 1
    toy_step_kernel(np.array([4]), st)
    assert st.starts[0] == 2 and not st.terminated[0] and not st.truncated[0] and not st.rewards.any()
    assert st.game[0, F_MOVES] == 0 and st.observation[0] == 2.0  # the 4 was not applied


def test_moves_past_the_history_row_are_counted_not_kept():
    st = toy_state(1, length=5, capacity=2)
    toy_reset_kernel(st)
    for action in (1, 2, 3):
        toy_step_kernel(np.array([action]), st)
    assert st.history[0].tolist() == [1, 2] and st.game[0, F_MOVES] == 3


def test_the_kernels_compile_without_reference_counting():
    for compiled in (toy_reset_kernel, toy_step_kernel):
        assert compiled.targetoptions.get("_nrt") is False


_CACHE_RUN = """
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("toy_batch_driver", {path!r})
toy = sys.modules["toy_batch_driver"] = importlib.util.module_from_spec(spec)  # the cache pickles ToyState by name
spec.loader.exec_module(toy)
st = toy.toy_state(2, length=3, capacity=4)
toy.toy_reset_kernel(st)
toy.toy_step_kernel(np.array([1, -1]), st)
kernels = (toy.toy_reset_kernel, toy.toy_step_kernel)
print(sum(sum(k.stats.cache_hits.values()) for k in kernels), sum(sum(k.stats.cache_misses.values()) for k in kernels))
"""


def test_a_new_process_loads_the_driven_kernels_from_the_cache(tmp_path):
    """Kernels built from the driver and a game's steps are cached: a second process compiles nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    snippet = textwrap.dedent(_CACHE_RUN.format(path=str(Path(__file__).resolve())))
    counts = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", snippet], env=env, capture_output=True, text=True, check=True)
        counts.append(tuple(int(x) for x in out.stdout.split()))
    assert counts[0] == (0, 2), counts  # the first process compiles both kernels ...
    assert counts[1] == (2, 0), counts  # ... the second loads both from the cache
