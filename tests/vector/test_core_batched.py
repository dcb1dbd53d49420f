"""The helpers shared by the batched backends."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from pirate_envs.core.batched import (
    SplitMix64Stream,
    check_constants,
    kept_moves,
    kernel_layout,
    random_below,
    splitmix64_next,
)
from pirate_envs.core.observation import SEAT_PRESENT, ObservationLayout
from pirate_envs.core.spec import resolve
from tests.games import GAME_IDS, require


def test_check_constants_names_what_changed():
    check_constants("Demo", {"A": (1, 1), "B": ((2, 3), (2, 3))})
    with pytest.raises(RuntimeError, match=r"batched Demo kernels are out of date with the reference: \['B'\]"):
        check_constants("Demo", {"A": (1, 1), "B": (2, 4)})


def test_kept_moves_replays_what_the_row_keeps():
    history = np.array([[5, 6, 7, 0], [1, 2, 3, 4]], dtype=np.int16)
    assert kept_moves(history, 0, 3) == [5, 6, 7]
    assert kept_moves(history, 1, 4) == [1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="game 1 has made 5 moves; only the first 4 are kept"):
        kept_moves(history, 1, 5)


def test_the_python_stream_draws_what_the_kernels_draw():
    """Two games' streams, each from its own state: words and bounded draws equal the kernels', one by one."""
    rng = np.array([12345, 2**64 - 1], dtype=np.uint64)
    streams = [SplitMix64Stream(int(state)) for state in rng]
    for step in range(200):
        for i, stream in enumerate(streams):
            if step % 2:
                assert int(splitmix64_next(rng, i)) == stream.next()
            else:
                bound = 1 + step % 84
                drawn = random_below(rng, i, bound)
                assert drawn == stream.below(bound) and 0 <= drawn < bound
            assert int(rng[i]) == stream.state
    items = list(range(10))
    SplitMix64Stream(7).shuffle(items)
    assert sorted(items) == list(range(10)) and items != list(range(10))


def test_kernel_layout_offsets_in_both_table_layouts():
    def layout(n: int) -> ObservationLayout:
        return ObservationLayout([("me", (3,), "x"), ("rows", (n, 2), "y"), ("tail", (1,), "z")])

    seated, offsets = kernel_layout(layout(2), "seated", layout(4), 4, ("rows", "tail"))
    assert seated.size == 3 + 4 + 1 and offsets.tolist() == [3, 7, -1]
    padded, offsets = kernel_layout(layout(2), "max", layout(4), 4, ("rows", "tail"))
    assert padded.size == 3 + 8 + 1 + 4 and offsets.tolist() == [3, 11, padded.piece(SEAT_PRESENT).start] == [3, 11, 12]
    with pytest.raises(ValueError, match=r"table_layout='wide' is not valid; expected one of \['seated', 'max'\]"):
        kernel_layout(layout(2), "wide", layout(4), 4, ("rows",))


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_kernels_compile_without_reference_counting(env_id):
    """Every game's kernels are ``core.batched.kernel``s: no atomic reference counts in the step.

    (They cost about 40% of a Kapern step; a kernel decorated with a plain ``njit`` brings them back.)
    """
    require(env_id, "batched_kernels")
    backend = resolve(pirate_envs.game_spec(env_id).batched_backend)
    for kernel in (backend.reset_kernel, backend.step_kernel):
        assert kernel.targetoptions.get("_nrt") is False, f"{env_id}: {kernel.py_func.__name__} counts references"


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_every_backend_hands_its_kernels_one_record(env_id):
    """Each game's kernels take one record (its backend's `State`) holding the backend's own attributes.

    The base builds it from the names the record declares, and it is what both kernels are given.
    """
    require(env_id, "batched_kernels")
    from pirate_envs import vector

    venv = vector.make(env_id, 2, seed=0)
    backend = venv._backend
    assert isinstance(backend.state, backend.State)
    for name in backend.State._fields:
        assert getattr(backend.state, name) is getattr(backend, name), f"{env_id}: state.{name}"
    venv.reset()
    venv.step(vector.random_legal_actions(venv.action_mask, np.random.default_rng(0), venv.terminated | venv.truncated))
    for kernel, inputs in ((backend.reset_kernel, 1), (backend.step_kernel, 2)):
        assert [len(signature) for signature in kernel.signatures] == [inputs], f"{env_id}: {kernel.signatures}"
