"""A cross-module kernel's disk cache is keyed by the sources of its packages, not its own file alone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]

KERNEL = """
from pirate_envs.core.kernel_cache import cross_module_kernel
from deppkg.helper import step


@cross_module_kernel("deppkg")
def run(x):
    return step(x)
"""

ENGINE_KERNEL = """
from pirate_envs.core.batched import kernel
from deppkg.rules import LIMIT


@kernel
def run(x):
    return min(x, LIMIT)
"""

PROBE = "import deppkg.kernel as k; print(k.run(1), sum(k.run.stats.cache_hits.values()))"


def _helper(add: int) -> str:
    return f"from numba import njit\n\n\n@njit(cache=True)\ndef step(x):\n    return x + {add}\n"


def _run(folder: Path) -> tuple[int, int]:
    """``(run(1), cache hits)`` of a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    value, hits = out.stdout.split()
    return int(value), int(hits)


def test_a_change_to_a_called_module_recompiles_the_kernel(tmp_path):
    package = tmp_path / "deppkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text(textwrap.dedent(KERNEL))
    (package / "helper.py").write_text(_helper(1))
    assert _run(tmp_path) == (2, 0)  # compiled and cached
    assert _run(tmp_path) == (2, 1)  # read back from the cache
    (package / "helper.py").write_text(_helper(2))  # the kernel's own file is unchanged
    assert _run(tmp_path) == (3, 0)  # recompiled with the new helper, not the cached copy of the old
    assert _run(tmp_path) == (3, 1)


def test_an_engine_kernel_reads_a_changed_constant_of_its_games_package(tmp_path):
    """`pirate_envs.core.batched.kernel` keys the cache by the kernel's package: numba freezes a global
    constant into the compiled kernel, and its own key (the kernel's file) would keep the old one."""
    package = tmp_path / "deppkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text(textwrap.dedent(ENGINE_KERNEL))
    (package / "rules.py").write_text("LIMIT = 5\n")
    assert _run(tmp_path) == (1, 0)
    (package / "rules.py").write_text("LIMIT = 0\n")
    assert _run(tmp_path) == (0, 0)
    assert _run(tmp_path) == (0, 1)
