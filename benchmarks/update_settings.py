"""The PPO update's epochs and minibatch (and the games a rollout) chosen by strength per CPU-second: a game's
recipe from scratch with each setting at one CPU budget, over seeds, played on the recipe's validation deals.

    python benchmarks/update_settings.py --env-id skull_king_v0 --settings 4x1024 2x1024 4x4096 \\
        --seeds 1 2 --budget-s 480 --out runs/update_settings
    python benchmarks/update_settings.py --settings 2x1024x128 2x1024x256 --seeds 1 2

A setting is ``EPOCHSxMINIBATCH``, or ``EPOCHSxMINIBATCHxGAMES`` to set ``--num-envs`` too (the steps per
game a rollout stay the recipe's: more games, a larger rollout).

Each run is ``python -m experiments.train --env-id <game> --n-epochs E --batch-size B --max-cpu-s <budget>``
(every other setting the recipe's); its last checkpoint then plays the recipe's evaluation table against
``n - 1`` heuristics on the VALIDATION deals (the recipe's ``validation_seed``: a choice is never made on
the evaluation deals). Writes ``<out>/update_settings_<game>.json``: per run the learner steps, the learning
CPU-seconds, the steps per CPU-second and the win rate with its interval.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from learners_equal_budget import play_against, timed

from agents.training.recipes import recipe_for
from agents.training.run import SUMMARY_FILE
from pirate_envs.core.files import write_atomic


def one_run(env_id: str, setting: str, seed: int, budget: float, out: Path) -> dict:
    """Train one setting and seed at the budget, then play the validation deals."""
    epochs, batch, *games = (int(part) for part in setting.split("x"))
    name = f"{setting}_s{seed}"
    command = [
        sys.executable, "-m", "experiments.train", "--env-id", env_id, "--n-epochs", str(epochs),
        "--batch-size", str(batch), "--seed", str(seed), "--max-cpu-s", str(budget), "--total-timesteps", str(10**10),
        "--out-dir", str(out), "--run-name", name, "--no-progress", *(["--num-envs", str(games[0])] if games else []),
    ]  # fmt: skip
    row: dict = {"setting": setting, "n_epochs": epochs, "batch_size": batch, "seed": seed}
    if games:
        row["num_envs"] = games[0]
    row.update(timed(command, out / f"{name}.log"))
    summary_file = out / name / SUMMARY_FILE
    if row["exit"] != 0 or not summary_file.is_file():
        return row
    summary = json.loads(summary_file.read_text())
    row.update(steps=summary["timesteps"], learn_cpu_s=summary["learn_cpu_s"])
    row["steps_per_cpu_s"] = round(summary["timesteps"] / max(summary["learn_cpu_s"], 1e-9))
    evaluation = recipe_for(env_id).evaluation  # type: ignore[union-attr]
    agent = f"ppo:{out / name / 'checkpoints' / 'latest.npz'}"
    row.update(
        play_against(agent, "heuristic", env_id, evaluation["num_players"], evaluation["games"],
                     evaluation["validation_seed"], out / f"eval_{name}")
    )  # fmt: skip
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="skull_king_v0")
    parser.add_argument(
        "--settings", nargs="+", default=["4x1024", "2x1024", "4x4096"], help="EPOCHSxMINIBATCH[xGAMES]"
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--budget-s", type=float, default=480.0, help="learning CPU-seconds per run")
    parser.add_argument("--out", default="runs/update_settings")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = out / f"update_settings_{args.env_id}.json"
    rows = json.loads(report.read_text())["runs"] if report.is_file() else []
    done = {(row["setting"], row["seed"]) for row in rows}
    for seed in args.seeds:
        for setting in args.settings:
            if (setting, seed) in done:
                continue
            rows.append(one_run(args.env_id, setting, seed, args.budget_s, out))
            print(json.dumps(rows[-1]), flush=True)
            write_atomic(report, json.dumps({"env_id": args.env_id, "budget_s": args.budget_s, "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
