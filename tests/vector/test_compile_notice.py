"""The batched engine says when a first run compiles its kernels, and nothing when they are cached."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs.core.batched import compile_notice

WAIT_S = 60.0  # a wide margin: the notice's timer fires after 0.01 s


class UncompiledKernel:
    """Stands for a numba dispatcher before its first call: no signature compiled yet."""

    signatures: list = []


class CompiledKernel:
    """Stands for a dispatcher that has compiled (or loaded from the cache) its signature."""

    signatures: list = [("int64",)]


def wait_for(stream: io.StringIO, text: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while text not in stream.getvalue():
        assert time.monotonic() < deadline, f"no {text!r} within {WAIT_S} s: {stream.getvalue()!r}"
        time.sleep(0.01)


def test_a_long_first_call_says_it_compiles_and_how_long_it_took():
    stream = io.StringIO()
    with compile_notice("the batched test engine's step kernel", UncompiledKernel(), delay=0.01, stream=stream):
        wait_for(stream, "compiling")  # the call is still running when the notice appears
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("pirate_envs: compiling the batched test engine's step kernel (first run only")
    assert lines[1].startswith("pirate_envs: the batched test engine's step kernel compiled in ")
    assert len(lines) == 2


def test_a_first_call_within_the_delay_says_nothing():
    stream = io.StringIO()
    with compile_notice("kernels", UncompiledKernel(), delay=3600.0, stream=stream):
        pass
    assert stream.getvalue() == ""


def test_a_compiled_kernel_says_nothing_however_long_the_call():
    stream = io.StringIO()
    with compile_notice("kernels", CompiledKernel(), delay=0.0, stream=stream):
        time.sleep(0.05)
    assert stream.getvalue() == ""


def test_the_backends_call_their_kernels_inside_the_notice(monkeypatch):
    import pirate_envs.core.batched as batched
    import pirate_envs.vector

    seen: list[str] = []
    real = batched.compile_notice

    def spy(what, kernel, *args, **kwargs):
        seen.append(what)
        return real(what, kernel, *args, **kwargs)

    monkeypatch.setattr(batched, "compile_notice", spy)
    venv = pirate_envs.vector.make("skull_king_v0", 2, seed=0, num_players=3)
    venv.reset()
    venv.step(pirate_envs.vector.random_legal_actions(venv.action_mask, np.random.default_rng(0)))
    venv.step(pirate_envs.vector.random_legal_actions(venv.action_mask, np.random.default_rng(1)))
    assert seen == ["the batched skull_king engine's reset kernel", "the batched skull_king engine's step kernel"]
