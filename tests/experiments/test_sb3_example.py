"""The MaskablePPO example prints a win rate before and after training and a progress line per rollout.

A tiny budget checks the output, never learning: the learning figures are measured once and quoted, with their
command, in ``docs/guides/single_agent.md``.
"""

from __future__ import annotations

import re

import pytest

from tests.experiments.example_runs import progress, run_example


def test_tiny_run_prints_win_rates_and_progress():
    pytest.importorskip("sb3_contrib")
    stdout = run_example("sb3_maskable_ppo.py", "--total-timesteps", "256", "--n-steps", "128", "--eval-games", "2")
    assert re.search(r"^before training: win_rate=[01]\.\d{3} over 2 games$", stdout, flags=re.M), stdout
    assert re.search(r"^after 256 steps: win_rate=[01]\.\d{3} over 2 games \(before [01]\.\d{3}\)$", stdout, flags=re.M)
    lines = progress(stdout)
    assert [line["steps"] for line in lines] == ["128", "256"]
    assert int(lines[-1]["games"]) > 0 and lines[-1]["win_rate"] != "n/a"
