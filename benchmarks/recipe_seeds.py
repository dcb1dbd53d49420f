"""A shipped recipe over training seeds: its learning curve, per seed, against CPU seconds.

    python benchmarks/recipe_seeds.py --env-id piraten_kapern_v0 --seeds 1 2 3 --out runs/recipe_seeds
    python benchmarks/recipe_seeds.py --env-id lucky_pirate_v1 --seeds 1 2 3 --parallel 3 --out runs/recipe_seeds_lp1

Reads the training command recorded in the shipped agent file's header (``ppo:<env_id>``) and runs it
once per seed. Two kinds of recipe are run:

* ``experiments.imitate``: once per seed and per number of rounds ``1 .. R`` (``R``: the recipe's
  ``--rounds``; each round a point of the curve: the runs are seeded, so a shorter run is the longer
  one's first rounds);
* ``experiments.train`` (PPO) with a budget in learner steps (``--total-timesteps``, at most
  `MAX_PPO_STEPS`; no wall-clock or CPU stop, which would end each run elsewhere): once per seed, each
  of its checkpoints a point of the curve. The shipped PPO recipes from scratch, up to 400M steps, are
  CPU-days here and refused.

Each agent, and the shipped file itself, then plays ``--eval-games`` duplicate games (seed
``--eval-seed``) against ``n - 1`` heuristics at the game's default table. ``rerun_is_shipped_file``
says whether the seed-1 run of an imitation recipe wrote the shipped file byte for byte;
``rerun_is_shipped_network`` whether the seed-1 run of a PPO recipe ended with the shipped network, weight
for weight (its file's header names the run's folder, so the bytes differ anyway). ``summary.json`` is
a learning summary (`agents.benchmark.learning`): committed as ``docs/results/learning/<name>.json``, it
is shown on the game's results page.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from learners_equal_budget import evaluate, timed

from agents.benchmark.candidate import file_sha256
from agents.benchmark.learning import PPO_RECIPE
from agents.policy.checkpoint import load_agent

IMITATE = ["python", "-m", "experiments.imitate"]
TRAIN = PPO_RECIPE.split()
#: The most learner steps of a PPO recipe run again here, per seed.
MAX_PPO_STEPS = 20_000_000
#: The options this script sets per run, left out of the recipe it reports.
PER_RUN = ("--seed", "--out-dir", "--run-name")


def recipe_of(env_id: str) -> list[str]:
    """The shipped agent's training command, as words (``SystemExit`` when this script cannot run it per seed)."""
    _, header = load_agent(Path("agents/pretrained") / f"{env_id}.npz")
    words = shlex.split(header["training"]["command"])
    if words[:3] == IMITATE:
        return words
    if words[:3] != TRAIN:
        raise SystemExit(f"{env_id}: the shipped recipe is neither experiments.imitate nor experiments.train")
    if "--max-wall-s" in words or "--max-cpu-s" in words:
        raise SystemExit(f"{env_id}: the shipped recipe stops on time, so each run would end elsewhere")
    steps = int(words[words.index("--total-timesteps") + 1]) if "--total-timesteps" in words else None
    if steps is None or steps > MAX_PPO_STEPS:
        raise SystemExit(f"{env_id}: the shipped recipe trains {steps or 'an unstated number of'} steps; "
                         f"this script runs PPO recipes of at most {MAX_PPO_STEPS:,} per seed")  # fmt: skip
    return without_options(words, PER_RUN)


def without_options(words: list[str], options: tuple[str, ...]) -> list[str]:
    """``words`` without ``options`` and their values (one value each)."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in options:
            skip = True
        else:
            kept.append(word)
    return kept


def with_option(words: list[str], option: str, value: str) -> list[str]:
    """``words`` with ``option``'s value set to ``value`` (added when absent)."""
    if option in words:
        at = words.index(option)
        return [*words[: at + 1], value, *words[at + 2 :]]
    return [*words, option, value]


def one_run(env_id: str, recipe: list[str], seed: int, rounds: int, args: argparse.Namespace) -> dict:
    out = Path(args.out)
    agent = out / f"seed{seed}_round{rounds}.npz"
    words = with_option(
        with_option(with_option(recipe, "--seed", str(seed)), "--rounds", str(rounds)), "--out", str(agent)
    )
    row = {"method": "imitation", "env_id": env_id, "seed": seed, "stage": f"round {rounds}",
           **timed([sys.executable, *words[1:]], out / f"seed{seed}_round{rounds}.log")}  # fmt: skip
    if row["exit"] == 0 and agent.is_file():
        row.update(evaluate("ppo", agent, env_id, args.eval_games, args.eval_seed, out, name=agent.stem))
    print(json.dumps(row), flush=True)
    return row


def checkpoint_steps(path: Path) -> int:
    """The learner steps of a training checkpoint ``step_<n>.npz``."""
    return int(path.stem.removeprefix("step_"))


def stage_of(steps: int) -> str:
    return f"{steps / 1e6:.1f}M steps"


def one_ppo_run(env_id: str, recipe: list[str], seed: int, args: argparse.Namespace) -> list[dict]:
    """One seed of a PPO recipe: a row per checkpoint (the whole run's CPU seconds on the last)."""
    out = Path(args.out)
    words = with_option(with_option(with_option(recipe, "--seed", str(seed)), "--out-dir", str(out)),
                        "--run-name", f"seed{seed}")  # fmt: skip
    ran = timed([sys.executable, *words[1:]], out / f"seed{seed}.log")
    checkpoints = sorted((out / f"seed{seed}" / "checkpoints").glob("step_*.npz"), key=checkpoint_steps)
    rows = []
    for checkpoint in checkpoints:
        steps = checkpoint_steps(checkpoint)
        row = {"method": "ppo", "env_id": env_id, "seed": seed, "stage": stage_of(steps), "order": steps}
        if checkpoint == checkpoints[-1]:
            row.update(ran)
        row.update(evaluate("ppo", checkpoint, env_id, args.eval_games, args.eval_seed, out, f"seed{seed}_{steps}"))
        rows.append(row)
    if not checkpoints:
        rows.append({"method": "ppo", "env_id": env_id, "seed": seed, "stage": "no checkpoint", **ran})
    print(json.dumps(rows), flush=True)
    return rows


def same_network(a: Path, b: Path) -> bool:
    """Whether two agent files hold the same network, weight for weight."""
    (first, _), (second, _) = load_agent(a), load_agent(b)
    arrays = [(first.weights, second.weights), (first.biases, second.biases)]
    arrays += [
        (first.value_weights or [], second.value_weights or []),
        (first.value_biases or [], second.value_biases or []),
    ]
    return all(len(x) == len(y) and all(np.array_equal(u, v) for u, v in zip(x, y)) for x, y in arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="piraten_kapern_v0")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-seed", type=int, default=11)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    recipe = recipe_of(args.env_id)
    shipped = Path("agents/pretrained") / f"{args.env_id}.npz"
    summary: dict = {"recipe": " ".join(recipe), "eval_games": args.eval_games, "eval_seed": args.eval_seed}
    if recipe[:3] == TRAIN:
        with ThreadPoolExecutor(args.parallel) as pool:
            rows = [row for rows in pool.map(lambda s: one_ppo_run(args.env_id, recipe, s, args), args.seeds)
                    for row in rows]  # fmt: skip
        _, header = load_agent(shipped)
        steps = header["training"]["timesteps"]
        last = {"stage": stage_of(steps), "order": steps}
        rerun = Path(args.out) / "seed1" / "checkpoints" / "latest.npz"
        if rerun.is_file():
            summary["rerun_is_shipped_network"] = same_network(rerun, shipped)
    else:
        total = int(recipe[recipe.index("--rounds") + 1]) if "--rounds" in recipe else 1
        jobs = [(seed, rounds) for seed in args.seeds for rounds in range(1, total + 1)]
        with ThreadPoolExecutor(args.parallel) as pool:
            rows = list(pool.map(lambda job: one_run(args.env_id, recipe, *job, args), jobs))
        last = {"stage": f"round {total}"}
        rerun = Path(args.out) / f"seed1_round{total}.npz"  # the shipped file's seed and stage, run again
        if rerun.is_file():
            summary["rerun_is_shipped_file"] = file_sha256(rerun) == file_sha256(shipped)
    played = evaluate("ppo", shipped, args.env_id, args.eval_games, args.eval_seed, Path(args.out), "shipped")
    rows.append({"method": "shipped", "env_id": args.env_id, "seed": 1, **last, **played})
    summary["runs"] = rows
    (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
