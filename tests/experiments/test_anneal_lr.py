"""``train --anneal-lr``: the step size falls linearly to 0 over ``--total-timesteps``, through a resume too;
without the flag (and in a run saved before it existed) it stays constant."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from experiments import train
from tests.experiments.test_training_safety import GAME, QUIET, TINY

ROLLOUT = 64  # --num-envs 2 x --n-steps 32
TOTAL = 5 * ROLLOUT


def learning_rates(run: Path) -> dict[int, float]:
    """The step size of each update by the learner steps at its end (sb3's ``progress.csv``)."""
    with (run / "progress.csv").open() as rows:
        return {
            int(row["time/total_timesteps"]): float(row["train/learning_rate"])
            for row in csv.DictReader(rows)
            if row.get("train/learning_rate")
        }


def run_tiny(out_dir: Path, *extra: str, total: int = TOTAL) -> Path:
    train.main([*GAME, *TINY, *QUIET, "--out-dir", str(out_dir), "--run-name", "run", "--eval-every", "0",
                "--total-timesteps", str(total), *extra])  # fmt: skip
    return out_dir / "run"


def test_annealing_lowers_the_step_size_linearly_to_zero_over_the_budget(tmp_path):
    rates = learning_rates(run_tiny(tmp_path / "annealed", "--anneal-lr", "--learning-rate", "1e-3"))
    # each update runs after its rollout, at the fraction of the budget still to go
    expected = {steps: 1e-3 * (1 - steps / TOTAL) for steps in range(ROLLOUT, TOTAL + 1, ROLLOUT)}
    assert rates.keys() - {ROLLOUT} <= expected.keys() and len(rates) >= 3
    for steps, rate in rates.items():
        if steps > ROLLOUT:  # sb3 logs an update's rate with the next rollout's step count
            assert rate == pytest.approx(expected[steps - ROLLOUT], rel=1e-9)
    assert min(rates.values()) < 0.5e-3
    assert json.loads((tmp_path / "annealed" / "run" / "config.json").read_text())["anneal_lr"] is True

    constant = learning_rates(run_tiny(tmp_path / "constant", "--learning-rate", "1e-3"))
    assert set(constant.values()) == {1e-3}


def test_a_resumed_run_keeps_its_schedule_and_an_older_run_resumes_constant(tmp_path):
    run = run_tiny(tmp_path / "a", "--anneal-lr", "--learning-rate", "1e-3", total=2 * ROLLOUT)
    train.main(["--resume", str(run), "--total-timesteps", str(TOTAL), "--no-progress"])
    rates = learning_rates(run)
    last = max(rates)
    # after the resume the schedule runs over the new budget from the steps already made
    assert rates[last] == pytest.approx(1e-3 * (1 - (last - ROLLOUT) / TOTAL), rel=1e-9)

    old = run_tiny(tmp_path / "b", "--learning-rate", "1e-3", total=2 * ROLLOUT)
    saved = json.loads((old / "config.json").read_text())
    del saved["anneal_lr"]  # a run saved before the flag existed
    (old / "config.json").write_text(json.dumps(saved))
    train.main(["--resume", str(old), "--total-timesteps", str(TOTAL), "--no-progress"])
    assert set(learning_rates(old).values()) == {1e-3}
