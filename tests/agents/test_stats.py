"""Intervals of ``agents.evaluation.stats``: they hold the estimate whatever the float rounding."""

from __future__ import annotations

import pytest

from agents.evaluation.stats import wilson_interval
from experiments import evaluate


@pytest.mark.parametrize("n", range(1, 201))
def test_the_wilson_interval_holds_the_proportion_at_the_edges(n):
    for successes in (0, n / 2, n):
        p, low, high = wilson_interval(successes, n)
        assert 0.0 <= low <= p <= high <= 1.0, (successes, n, low, p, high)
    assert wilson_interval(0, n)[:2] == (0.0, 0.0) and wilson_interval(n, n)[::2] == (1.0, 1.0)


def test_an_agent_that_never_wins_gets_its_bar_drawn(tmp_path):
    """No win in 3 games once put the Wilson low bound above 0 and the chart's error bar below zero."""
    pytest.importorskip("matplotlib")
    argv = ["--env-id", "piratenpoker_v0", "--agents", "heuristicx2", "random", "--games", "3",
            "--env-kwargs", "max_games=3", "--no-progress", "--out", str(tmp_path)]  # fmt: skip
    results = evaluate.main(argv)
    assert any(r.win_rate == 0 for r in results)
    assert (tmp_path / "results.png").stat().st_size > 0
