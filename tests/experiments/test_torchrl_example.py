"""The TorchRL PPO example learns from one seat of the PettingZoo env and prints a progress line per update.

A tiny budget checks the output, never learning: the learning figures are measured once and quoted, with their
command, in ``docs/guides/ecosystem.md``.
"""

from __future__ import annotations

import pytest

from tests.experiments.example_runs import progress, run_example


def test_tiny_run_prints_progress():
    pytest.importorskip("torchrl")
    stdout = run_example("torchrl_ppo.py", "--total-steps", "256", "--batch", "128", "--epochs", "1")
    lines = progress(stdout)
    assert [line["steps"] for line in lines] == ["128", "256"]
    last = lines[-1]
    assert int(last["games"]) > 0 and last["win_rate"] != "n/a" and last["mean_return"] != "n/a"
    assert int(last["window"]) == min(100, int(last["games"]))
