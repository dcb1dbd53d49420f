"""The Tianshou PPO example prints a win rate with its interval before and after training and a progress line
per update.

A tiny budget checks the output, never learning: the learning figures are measured once and quoted, with their
command, in ``docs/guides/ecosystem.md``.
"""

from __future__ import annotations

import re

import pytest

from tests.experiments.example_runs import progress, run_example

RATE = r"win_rate=[01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\] over 2 games"


def test_tiny_run_prints_win_rates_and_progress():
    pytest.importorskip("tianshou")
    stdout = run_example(
        "tianshou_ppo.py", "--total-steps", "256", "--num-envs", "2", "--batch", "128", "--epochs", "1",
        "--eval-games", "2",
    )  # fmt: skip
    assert re.search(rf"^before training: {RATE}$", stdout, flags=re.M), stdout
    assert re.search(rf"^after 256 steps: {RATE} \(before [01]\.\d{{3}}\)$", stdout, flags=re.M), stdout
    lines = progress(stdout)
    assert [line["steps"] for line in lines] == ["128", "256"]
    last = lines[-1]
    assert int(last["games"]) > 0 and last["win_rate"] != "n/a" and last["mean_return"] != "n/a"
    assert int(last["window"]) == min(100, int(last["games"]))
