"""``train --finish``: the agent a run hands over, its last checkpoint, the mean of its late checkpoints or the
late checkpoint that wins most on validation deals (`agents.training.finish`)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.policy.checkpoint import load_agent, save_agent
from agents.training import finish as finishing
from agents.training.run import RUN_FILES, prepare_folder, remove_temporaries
from experiments import evaluate, train
from tests.experiments.test_recipes import parsed
from tests.experiments.test_training_safety import GAME, QUIET, TINY

ROLLOUT = 64  # --num-envs 2 x --n-steps 32
TOTAL = 4 * ROLLOUT


def run_tiny(out_dir: Path, *extra: str) -> Path:
    train.main([*GAME, *TINY, *QUIET, "--out-dir", str(out_dir), "--run-name", "run", "--eval-every", "0",
                "--total-timesteps", str(TOTAL), "--checkpoint-every", str(ROLLOUT), *extra])  # fmt: skip
    return out_dir / "run"


def arrays(path: Path) -> list[np.ndarray]:
    policy, _ = load_agent(path)
    return [*policy.weights, *policy.biases, *(policy.value_weights or []), *(policy.value_biases or [])]


def test_average_hands_over_the_mean_of_the_late_checkpoints(tmp_path):
    run = run_tiny(tmp_path, "--finish", "average", "--finish-from", "0.5")
    report = json.loads((run / "finish.json").read_text())
    assert report["candidates"] == [2 * ROLLOUT, 3 * ROLLOUT, 4 * ROLLOUT]  # at or after half of the 256 steps
    final = arrays(run / "checkpoints" / finishing.FINAL_FILE)
    late = [arrays(run / "checkpoints" / f"step_{s}.npz") for s in report["candidates"]]
    assert len(final) == 6 + 6  # a 64x64 actor and its critic
    for k, layer in enumerate(final):
        assert np.allclose(layer, np.mean([one[k] for one in late], axis=0), atol=1e-7)
        assert not np.allclose(layer, late[-1][k])  # not the last checkpoint under another name
    header = load_agent(run / "checkpoints" / finishing.FINAL_FILE)[1]
    assert "mean of the checkpoints at 128, 192, 256 steps" in header["training"]["figures"]["finish"]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["finish_cpu_s"] >= 0 and summary["timesteps"] == TOTAL


def test_choose_hands_over_the_late_checkpoint_that_wins_most_on_the_validation_deals(tmp_path):
    run = run_tiny(tmp_path, "--finish", "choose", "--choose-against", "random", "--choose-games", "8",
                   "--choose-seed", "4242")  # fmt: skip
    report = json.loads((run / "finish.json").read_text())
    figures = {row["steps"]: row["win_rate"] for row in report["figures"]}
    assert sorted(figures) == report["candidates"] == [2 * ROLLOUT, 3 * ROLLOUT, 4 * ROLLOUT]
    best = max(figures.values())
    assert report["chosen"] == max(s for s, w in figures.items() if w == best)  # the later on a tie
    chosen = run / "checkpoints" / f"step_{report['chosen']}.npz"
    for mine, theirs in zip(arrays(run / "checkpoints" / finishing.FINAL_FILE), arrays(chosen)):
        assert np.array_equal(mine, theirs)
    # each candidate's figure is what experiments.evaluate says of it on the same duplicate deals
    first = run / "checkpoints" / f"step_{2 * ROLLOUT}.npz"
    results = evaluate.main(["--env-id", "skull_king_v0", "--env-kwargs", "num_hands=1", "--agents", f"ppo:{first}",
                             "random", "--games", "8", "--duplicate", "--seed", "4242", "--no-progress"])  # fmt: skip
    mine = next(r for r in results if r.agent == f"ppo:{first}")
    assert figures[2 * ROLLOUT] == pytest.approx(mine.win_rate)


def test_last_writes_no_final_agent(tmp_path):
    run = run_tiny(tmp_path)
    assert not (run / "finish.json").exists() and not (run / "checkpoints" / finishing.FINAL_FILE).exists()
    assert "finish_cpu_s" not in json.loads((run / "summary.json").read_text())


def test_choose_keeps_the_later_of_equal_candidates_and_the_best_of_unequal_ones():
    paths = [Path("a"), Path("b"), Path("c")]
    rates = {"a": 0.5, "b": 0.7, "c": 0.7}
    best, figures = finishing.choose_agent(paths, lambda p: (rates[p.name], 0.0, 1.0))
    assert best == 2 and [f[0] for f in figures] == [0.5, 0.7, 0.7]
    rates["a"] = 0.9
    assert finishing.choose_agent(paths, lambda p: (rates[p.name], 0.0, 1.0))[0] == 0


def test_candidates_are_the_checkpoints_from_the_share_of_the_run_on(tmp_path):
    for name in ("step_100.npz", "step_499.npz", "step_500.npz", "step_900.npz", "step_1000.npz", "latest.npz",
                 "warm_start.npz", "step_1000.zip", "step_1200.npz"):  # fmt: skip
        (tmp_path / name).write_bytes(b"")
    assert [s for s, _ in finishing.candidates(tmp_path, 1000, 0.5)] == [500, 900, 1000]
    assert [s for s, _ in finishing.candidates(tmp_path, 1000, 1.0)] == [1000]
    with pytest.raises(ValueError, match="no checkpoint"):
        finishing.candidates(tmp_path, 50, 0.5)


def test_the_mean_of_agents_of_different_networks_is_refused(tmp_path):
    policy, header = load_agent(Path(__file__).parents[2] / "agents" / "pretrained" / "piratenpoker_v0.npz")
    other_policy, other_header = load_agent(Path(__file__).parents[2] / "agents" / "pretrained" / "skull_king_v0.npz")
    a = save_agent(tmp_path / "a.npz", policy, header)
    b = save_agent(tmp_path / "b.npz", other_policy, other_header)
    with pytest.raises(ValueError, match="differ"):
        finishing.average_agents([a, b])
    mean, _ = finishing.average_agents([a, a])
    assert all(np.array_equal(m, w) for m, w in zip(mean.weights, policy.weights))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--finish", "average", "--finish-from", "0"], "--finish-from 0.0"),
        (["--finish", "average", "--finish-from", "1.5"], "--finish-from 1.5"),
        (["--finish-from", "2"], "--finish-from 2.0"),  # refused with the default finish too: it would fail at the end
        (["--finish", "choose", "--choose-players", "3"], "--choose-players 3: one of the run's table sizes"),
        (["--finish", "choose", "--choose-games", "7"], "--choose-games 7"),
        (["--finish", "choose", "--choose-against", "no_such_agent"], "--choose-against"),
    ],
)
def test_finish_settings_a_run_cannot_carry_out_are_refused_before_any_work(flags, message, tmp_path):
    args, given = parsed([*GAME, *QUIET, "--out-dir", str(tmp_path), "--run-name", "r", *flags])
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        train.check_args(args, given)
    assert not (tmp_path / "r").exists()


def test_choose_plays_the_table_weighted_most_and_table_sizes_given_drop_the_recipes():
    plan = SimpleNamespace(
        args=SimpleNamespace(
            finish="choose", finish_from=0.5, choose_against="random", choose_players=0, choose_games=40, choose_seed=9
        ),
        table_sizes=(2, 3, 4, 5, 6),
        table_weights={2: 1.0, 3: 1.0, 4: 2.0, 5: 1.0, 6: 1.0},
    )
    assert finishing.finish_of(plan).players == 4
    plan.table_weights = {n: 1.0 for n in plan.table_sizes}
    assert finishing.finish_of(plan).players == 2
    assert "choose_players" in train.REPLACES_RECIPE_FIELDS["num_players"]


def test_a_fresh_run_over_an_old_one_removes_its_finish_report(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{}")
    (run / "finish.json").write_text("{}")
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / ".final.npz.abc12345.tmp").write_bytes(b"")
    prepare_folder(SimpleNamespace(run_dir=run, resuming=False))
    assert not (run / "finish.json").exists()
    assert "final" in RUN_FILES["checkpoints"] and "finish" in RUN_FILES["."]
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / ".final.npz.abc12345.tmp").write_bytes(b"")
    assert [p.name for p in remove_temporaries(run)] == [".final.npz.abc12345.tmp"]
