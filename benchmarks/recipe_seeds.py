"""A shipped imitation recipe over training seeds: its learning curve by round, per seed, against CPU seconds.

    python benchmarks/recipe_seeds.py --env-id piraten_kapern_v0 --seeds 1 2 3 --out runs/recipe_seeds

Reads the training command recorded in the shipped agent file's header (``ppo:<env_id>``; only an
``experiments.imitate`` recipe: the PPO recipes' hundreds of millions of steps are CPU-days), and runs
it once per seed and per number of rounds ``1 .. R`` (``R``: the recipe's ``--rounds``; each round a
point of the curve: the runs are seeded, so a shorter run is the longer one's first rounds). Each
agent, and the shipped file itself, then plays ``--eval-games`` duplicate games (seed ``--eval-seed``)
against ``n - 1`` heuristics at the game's default table; ``rerun_is_shipped_file`` says whether the
seed-1 run of the whole recipe wrote the shipped file byte for byte. ``summary.json`` is a learning summary
(`agents.benchmark.learning`): committed as ``docs/results/learning/<name>.json``, it is shown on the
game's results page.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from learners_equal_budget import evaluate, timed

from agents.benchmark.candidate import file_sha256
from agents.policy.checkpoint import load_agent


def recipe_of(env_id: str) -> list[str]:
    """The shipped agent's training command, as words (``SystemExit`` when it is no imitation recipe)."""
    _, header = load_agent(Path("agents/pretrained") / f"{env_id}.npz")
    words = shlex.split(header["training"]["command"])
    if words[:3] != ["python", "-m", "experiments.imitate"]:
        raise SystemExit(f"{env_id}: the shipped recipe is not experiments.imitate: {' '.join(words[:3])}")
    return words


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
    total = int(recipe[recipe.index("--rounds") + 1]) if "--rounds" in recipe else 1
    jobs = [(seed, rounds) for seed in args.seeds for rounds in range(1, total + 1)]
    with ThreadPoolExecutor(args.parallel) as pool:
        rows = list(pool.map(lambda job: one_run(args.env_id, recipe, *job, args), jobs))
    shipped = Path("agents/pretrained") / f"{args.env_id}.npz"
    played = evaluate("ppo", shipped, args.env_id, args.eval_games, args.eval_seed, Path(args.out), "shipped")
    rows.append({"method": "shipped", "env_id": args.env_id, "seed": 1, "stage": f"round {total}", **played})
    rerun = Path(args.out) / f"seed1_round{total}.npz"  # the shipped file's seed and stage, run again
    summary = {"recipe": " ".join(recipe), "eval_games": args.eval_games, "eval_seed": args.eval_seed, "runs": rows}
    if rerun.is_file():
        summary["rerun_is_shipped_file"] = file_sha256(rerun) == file_sha256(shipped)
    (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
