"""``benchmarks/recipe_curves.py --report``: new runs replace the committed seeds; the committed DMC and
shipped-network rows stay unless new ones are given."""

from __future__ import annotations

import dataclasses
import hashlib
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


def test_the_shipped_seed_is_recorded_with_its_files_hash_and_kept_by_a_later_report(tmp_path):
    pytest.importorskip("matplotlib")
    results, out = tmp_path / "results", tmp_path / "out"
    (results / "learning").mkdir(parents=True)
    checkpoint = out / "seed2" / "checkpoints" / "latest.npz"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(b"the network")
    row = {"env_id": ENV_ID, "seed": 2, "steps": 9, "learn_cpu_s": 60.0, **RATE}
    (out / "summary_2.json").write_text(json.dumps({"rows": [row]}))
    recipe_curves.report(recipe_for(ENV_ID), out, results, shipped_seed=2)
    target = results / "learning" / f"recipe_curve_{ENV_ID}.json"
    record = {"seed": 2, "agent": "handed-over", "sha256": hashlib.sha256(b"the network").hexdigest()}
    assert json.loads(target.read_text())["shipped_seed"] == record  # no final.npz: the last checkpoint it handed over
    recipe_curves.report(recipe_for(ENV_ID), out, results)  # re-reported without the flag: the record stays
    assert json.loads(target.read_text())["shipped_seed"] == record
    with pytest.raises(SystemExit, match="--shipped-seed 3: no handed-over agent"):
        recipe_curves.report(recipe_for(ENV_ID), out, results, shipped_seed=3)


@pytest.mark.parametrize(
    ("agent", "shipped_file"),
    [("handed-over", "phase_2/checkpoints/final.npz"), ("last-checkpoint", "phase_2/checkpoints/latest.npz")],
)
def test_the_shipped_seeds_agent_of_a_recipe_of_two_phases_is_read_from_its_second_phase(tmp_path, agent, shipped_file):
    """A recipe of two phases hands over its agent from the second phase's folder: ``--shipped-seed`` hashes that
    file (the handed-over mean, or the last checkpoint), never the first phase's last checkpoint."""
    pytest.importorskip("matplotlib")
    recipe = dataclasses.replace(recipe_for(ENV_ID), then={"max_cpu_s": 60})
    results, run = tmp_path / "results", tmp_path / "out" / "seed1"
    (results / "learning").mkdir(parents=True)
    files = ("checkpoints/latest.npz", "phase_2/checkpoints/latest.npz", "phase_2/checkpoints/final.npz")
    for name in files:
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_bytes(name.encode())
    row = {"env_id": ENV_ID, "seed": 1, "steps": 9, "learn_cpu_s": 60.0, **RATE}
    (run.parent / "summary_1.json").write_text(json.dumps({"rows": [row]}))
    recipe_curves.report(recipe, run.parent, results, shipped_seed=1, shipped_agent=agent)
    record = json.loads((results / "learning" / f"recipe_curve_{ENV_ID}.json").read_text())["shipped_seed"]
    assert record == {"seed": 1, "agent": agent, "sha256": hashlib.sha256(shipped_file.encode()).hexdigest()}


def evaluate_results(folder: Path, lineup: list[str], games: int, seed: int, rate: float) -> None:
    """What ``experiments.evaluate --duplicate`` writes in ``folder`` (the fields the curves read)."""
    folder.mkdir(parents=True)
    figures = {"win_rate": rate, "win_low": rate - 0.05, "win_high": rate + 0.05, "mean_score": 1.0, "games": 100}
    document = {"args": {"games": games, "seed": seed, "duplicate": True}, "lineup": lineup,
                "results": [{"agent": lineup[0], **figures}]}  # fmt: skip
    (folder / "results.json").write_text(json.dumps(document))


def test_an_evaluation_already_played_is_read_and_any_other_is_played(tmp_path, monkeypatch):
    recipe = recipe_for(ENV_ID)
    games, seed = recipe.evaluation["games"], recipe.evaluation["validation_seed"]
    lineup = ["ppo:a.npz", *["heuristic"] * (recipe.evaluation["num_players"] - 1)]
    evaluate_results(tmp_path / "same", lineup, games, seed, 0.7)
    evaluate_results(tmp_path / "other_seed", lineup, games, seed + 1, 0.7)
    played = []
    monkeypatch.setattr(recipe_curves, "play_against", lambda *args: played.append(args[-1]) or {"win_rate": 0.1})
    assert recipe_curves.play(recipe, "ppo:a.npz", "heuristic", seed, tmp_path / "same")["win_rate"] == 0.7
    assert played == []
    assert recipe_curves.play(recipe, "ppo:a.npz", "heuristic", seed, tmp_path / "other_seed")["win_rate"] == 0.1
    assert recipe_curves.play(recipe, "ppo:b.npz", "heuristic", seed, tmp_path / "same")["win_rate"] == 0.1
    assert played == [tmp_path / "other_seed", tmp_path / "same"]


def test_an_evaluation_against_a_network_file_replaced_since_is_played_again(tmp_path, monkeypatch):
    """The hashes of the line-up's network files are kept beside an evaluation: after a new network is shipped
    under the same name (here: the opponent's file rewritten), the evaluation is played again, not read."""
    recipe = recipe_for(ENV_ID)
    opponent = tmp_path / "opponent.npz"
    opponent.write_bytes(b"the network shipped then")
    played = []

    def play_against(agent, opponent_name, env_id, players, games, seed, folder):
        played.append(folder)
        rate = 0.3 + 0.1 * len(played)
        folder.mkdir(parents=True, exist_ok=True)
        document = {"args": {"games": games, "seed": seed, "duplicate": True},
                    "lineup": [agent, *[opponent_name] * (players - 1)],
                    "results": [{"agent": agent, "win_rate": rate, "win_low": 0, "win_high": 1, "mean_score": 0,
                                 "games": games}]}  # fmt: skip
        (folder / "results.json").write_text(json.dumps(document))
        return {"win_rate": rate}

    monkeypatch.setattr(recipe_curves, "play_against", play_against)
    seed, folder = recipe.evaluation["seed"], tmp_path / "h2h"
    assert recipe_curves.play(recipe, "heuristic", f"ppo:{opponent}", seed, folder)["win_rate"] == 0.4
    assert recipe_curves.play(recipe, "heuristic", f"ppo:{opponent}", seed, folder)["win_rate"] == 0.4  # read
    assert len(played) == 1
    opponent.write_bytes(b"the network shipped now")
    assert recipe_curves.play(recipe, "heuristic", f"ppo:{opponent}", seed, folder)["win_rate"] == 0.5
    assert len(played) == 2


def test_the_last_checkpoint_also_plays_the_shipped_network_on_the_validation_deals(tmp_path, monkeypatch):
    recipe = recipe_for(ENV_ID)
    run = tmp_path / "seed1"
    (run / "checkpoints").mkdir(parents=True)
    (run / "summary.json").write_text("{}")  # the run is there: nothing is trained
    (run / "checkpoints" / "learn_cpu_s.json").write_text(json.dumps({"1000": 10.0, "2000": 20.0}))
    calls = []

    def play(_recipe, agent, opponent, seed, _folder):
        calls.append((agent, opponent, seed))
        return {}

    monkeypatch.setattr(recipe_curves, "play", play)
    rows = recipe_curves.one_seed(recipe, 1, tmp_path)
    evaluation, validation = recipe.evaluation["seed"], recipe.evaluation["validation_seed"]
    last = f"ppo:{run / 'checkpoints' / 'step_2000.npz'}"
    assert (last, f"ppo:{ENV_ID}", validation) in calls and (last, "heuristic", validation) in calls
    assert (last, f"ppo:{ENV_ID}", evaluation) in calls
    assert {(row["against"], row["deals"]) for row in rows if row["steps"] == 2000} == {
        ("heuristic", "evaluation"), (f"ppo:{ENV_ID}", "evaluation"), ("heuristic", "validation"),
        (f"ppo:{ENV_ID}", "validation"),
    }  # fmt: skip


def test_the_agent_a_run_hands_over_plays_what_its_last_checkpoint_plays(tmp_path, monkeypatch):
    """A run with ``--finish`` (``checkpoints/final.npz``): four more rows of method ``finish``, at the last
    checkpoint's steps and its CPU plus the finish's."""
    recipe = recipe_for(ENV_ID)
    run = tmp_path / "seed1"
    (run / "checkpoints").mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"finish_cpu_s": 5.0}))
    (run / "finish.json").write_text(json.dumps({"finish": {"method": "choose"}, "chosen": 1000}))
    (run / "checkpoints" / "learn_cpu_s.json").write_text(json.dumps({"1000": 10.0, "2000": 20.0}))
    (run / "checkpoints" / "final.npz").write_bytes(b"")
    calls = []
    monkeypatch.setattr(recipe_curves, "play", lambda _r, agent, opponent, seed, _f: calls.append(agent) or {})
    rows = recipe_curves.one_seed(recipe, 1, tmp_path)
    finals = [row for row in rows if row.get("method") == "finish"]
    assert calls.count(f"ppo:{run / 'checkpoints' / 'final.npz'}") == 4 == len(finals)
    assert {(row["against"], row["deals"]) for row in finals} == {
        ("heuristic", "evaluation"), (f"ppo:{ENV_ID}", "evaluation"), ("heuristic", "validation"),
        (f"ppo:{ENV_ID}", "validation"),
    }  # fmt: skip
    assert {(row["steps"], row["learn_cpu_s"], row["finish"], row["chosen"]) for row in finals} == {
        (2000, 25.0, "choose", 1000)
    }
    (run / "checkpoints" / "final.npz").unlink()
    assert not any(row.get("method") == "finish" for row in recipe_curves.one_seed(recipe, 1, tmp_path))


def test_a_recipe_of_two_phases_draws_one_curve_on_from_the_first_phase(tmp_path, monkeypatch):
    """The second phase's checkpoints (``seed<N>/phase_2``) follow the first phase's: their steps and CPU seconds
    count on from the first phase's last checkpoint; only the second phase's last checkpoint and its handed-over
    agent play every row."""
    recipe = dataclasses.replace(recipe_for("skull_king_v0"), then={"opponents": ["self"], "max_cpu_s": 60})
    run, second = tmp_path / "seed1", tmp_path / "seed1" / "phase_2"
    (second / "checkpoints").mkdir(parents=True)
    (run / "checkpoints").mkdir()
    (run / "summary.json").write_text("{}")
    (run / "checkpoints" / "learn_cpu_s.json").write_text(json.dumps({"0": 5.0, "1000": 10.0, "2000": 20.0}))
    (run / "checkpoints" / "warm_start.npz").write_bytes(b"")
    (second / "checkpoints" / "learn_cpu_s.json").write_text(json.dumps({"500": 4.0, "900": 8.0}))
    (second / "summary.json").write_text(json.dumps({"finish_cpu_s": 1.0}))
    (second / "finish.json").write_text(json.dumps({"finish": {"method": "average"}}))
    (second / "checkpoints" / "final.npz").write_bytes(b"")
    calls = []
    monkeypatch.setattr(recipe_curves, "play", lambda _r, agent, opponent, seed, _f: calls.append(agent) or {})
    rows = recipe_curves.one_seed(recipe, 1, tmp_path)
    points = [(row.get("method"), row.get("phase"), row["steps"], row["learn_cpu_s"]) for row in rows]
    # each phase's budget (100M steps) is far off: its warm start and last checkpoint are the curve's points
    assert list(dict.fromkeys(points)) == [
        (None, 1, 0, 5.0), (None, 1, 2000, 20.0), (None, 2, 2900, 28.0), ("finish", 2, 2900, 29.0),
    ]  # fmt: skip
    assert calls.count(f"ppo:{second / 'checkpoints' / 'step_900.npz'}") == 4
    assert calls.count(f"ppo:{run / 'checkpoints' / 'step_2000.npz'}") == 1
    assert calls.count(f"ppo:{second / 'checkpoints' / 'final.npz'}") == 4
