"""``benchmarks/recipe_curves.py --report``: new runs replace the committed seeds; the committed DMC and
shipped-network rows stay unless new ones are given."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agents.training.recipes import recipe_for

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import recipe_curves  # noqa: E402

ENV_ID = "piratenpoker_v0"
RATE = {"deals": "evaluation", "against": "heuristic", "win_rate": 0.5, "win_low": 0.4, "win_high": 0.6, "games": 400}


def test_a_report_without_dmc_folders_keeps_the_committed_dmc_and_shipped_rows(tmp_path):
    pytest.importorskip("matplotlib")
    committed = [
        {"method": "ppo", "env_id": ENV_ID, "seed": 1, "steps": 7, "learn_cpu_s": 60.0, **RATE},
        {"method": "shipped", "env_id": ENV_ID, "seed": None, "steps": None, "learn_cpu_s": None, **RATE},
        {"method": "dmc", "env_id": ENV_ID, "seed": 1, "steps": None, "learn_cpu_s": 390.0, **RATE},
    ]
    results = tmp_path / "results"
    (results / "learning").mkdir(parents=True)
    (results / "learning" / f"recipe_curve_{ENV_ID}.json").write_text(json.dumps({"runs": committed}))
    out = tmp_path / "out"
    out.mkdir()
    new = {"env_id": ENV_ID, "seed": 1, "steps": 9, "learn_cpu_s": 2400.0, **RATE}
    (out / "summary_1.json").write_text(json.dumps({"rows": [new]}))
    recipe_curves.report(recipe_for(ENV_ID), out, results)
    runs = json.loads((results / "learning" / f"recipe_curve_{ENV_ID}.json").read_text())["runs"]
    assert [(run["method"], run["steps"]) for run in runs] == [("ppo", 9), ("shipped", None), ("dmc", None)]
    assert (results / f"{ENV_ID}_recipe_curve.png").is_file()
