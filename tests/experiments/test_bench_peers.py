"""``benchmarks/bench_peers.py``: every peer target measures a positive rate; the script prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_peers  # noqa: E402


def test_openspiel_targets_with_tensors_and_bare():
    pytest.importorskip("pyspiel")
    measures = bench_peers.openspiel_measures(0.02)
    names = [f"openspiel {g}" + (" 4p" if g == "oh_hell" else "") for g in bench_peers.OPENSPIEL_GAMES]
    assert sorted(measures) == sorted(f"{name} {kind}" for name in names for kind in ("tensor", "bare"))
    assert bench_peers.REFERENCE in measures
    assert all(measure(0) > 0 for measure in measures.values())


def test_rlcard_targets():
    pytest.importorskip("rlcard")
    measures = bench_peers.rlcard_measures(0.02)
    assert sorted(measures) == ["rlcard leduc-holdem", "rlcard uno"]
    assert all(measure(0) > 0 for measure in measures.values())


def test_bad_budget_is_one_line():
    script = ROOT / "benchmarks" / "bench_peers.py"
    run = subprocess.run([sys.executable, str(script), "--seconds", "0"], capture_output=True, text=True)
    assert run.returncode == 2 and "--seconds must be positive" in run.stderr and run.stderr.count("\n") == 1


@pytest.mark.slow
def test_the_script_prints_every_target():
    pytest.importorskip("numba")
    script = ROOT / "benchmarks" / "bench_peers.py"
    run = subprocess.run(
        [sys.executable, str(script), "--seconds", "0.02", "--repeats", "1", "--num-envs", "16"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert "| pirate skull_king_v0 4p batched" in run.stdout and "| pirate skull_king_v0 4p aec" in run.stdout
