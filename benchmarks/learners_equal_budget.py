"""Deep Monte-Carlo against PPO at one CPU budget, in every game, over seeds: train, evaluate, summarise.

    python benchmarks/learners_equal_budget.py --budget-s 120 --seeds 1 2 3 --parallel 12 --out runs/equal

Each run learns from scratch at the game's default table (Kapern 2 players, the others 4) against
heuristics in every other seat, with the same network size (256x256) and reward (the score's changes
in Piraten Kapern and Piratenpoker, where win rewards learn too slowly at such budgets; the win
reward in Skull King and Lucky Pirate):

* DMC: ``python -m experiments.train_dmc ... --max-cpu-s B`` (it stops on its own CPU time);
* PPO: ``python -m experiments.train ... --engine batched --no-pipeline --max-cpu-s B`` (one
  process, one torch thread; it stops on its own CPU time too). The CPU seconds each run really
  used (compilation, start-up and the final evaluation included) are read from the operating
  system and reported. The committed summaries of 90 and 180 s were made before ``train`` had
  ``--max-cpu-s``, with ``--max-wall-s B``: PPO then had up to 37% more CPU than DMC in Kapern.

Each agent then plays ``--eval-games`` duplicate games (seed ``--eval-seed``, fixed here before any
run) against ``n - 1`` heuristics. ``summary.json`` holds every run (CPU seconds, win rate with its
95% interval over deals) and, per game and method, the mean over seeds with the lowest and highest.
Committed as ``docs/results/learning/<name>.json``, it is shown on each game's results page
(``python -m experiments.results_pages``; `agents.benchmark.learning`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

GAMES = ("piraten_kapern_v0", "skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0")
SCORE_REWARD = ("piraten_kapern_v0", "piratenpoker_v0")
PLAYERS = {"piraten_kapern_v0": 2, "skull_king_v0": 4, "piratenpoker_v0": 4, "lucky_pirate_v0": 4, "lucky_pirate_v1": 4}
NET = ["--net-arch", "256", "256"]


def train_command(method: str, env_id: str, seed: int, budget: float, out: Path) -> tuple[list[str], Path]:
    """The training command of one run and the agent file it writes."""
    reward = "score" if env_id in SCORE_REWARD else "win"
    py = [sys.executable, "-m"]
    if method == "dmc":
        agent = out / f"dmc_{env_id}_{seed}.npz"
        return [
            *py, "experiments.train_dmc", "--env-id", env_id, "--reward-mode", reward, "--opponent", "heuristic",
            "--max-cpu-s", str(budget), "--total-steps", str(10**10), "--seed", str(seed), *NET,
            "--out", str(agent), "--curve", str(out / f"dmc_{env_id}_{seed}_curve.json"),
        ], agent  # fmt: skip
    run = f"ppo_{env_id}_{seed}"
    return [
        *py, "experiments.train", "--env-id", env_id, "--reward-mode", reward, "--opponents", "heuristic:1.0",
        "--engine", "batched", "--num-envs", "256", "--total-timesteps", str(10**10), "--max-cpu-s", str(budget),
        "--eval-every", "0", "--seed", str(seed), "--no-pipeline", "--torch-threads", "1", *NET,
        "--out-dir", str(out), "--run-name", run, "--no-progress",
    ], out / run / "checkpoints" / "latest.npz"  # fmt: skip


def timed(command: list[str], log: Path) -> dict:
    """Run ``command`` (output to ``log``); its exit code, wall and CPU seconds (user + system, from wait4)."""
    start = time.perf_counter()
    with open(log, "w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"}
        )
        _, status, usage = os.wait4(process.pid, 0)
    return {
        "exit": os.waitstatus_to_exitcode(status),
        "wall_s": round(time.perf_counter() - start, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
    }


def play_against(agent: str, opponent: str, env_id: str, players: int, games: int, seed: int, folder: Path) -> dict:
    """``agent`` against ``players - 1`` copies of ``opponent`` in duplicate games from ``seed``: its win rate and
    interval (from evaluate's results.json, written with its log in ``folder``)."""
    command = [
        sys.executable, "-m", "experiments.evaluate", "--env-id", env_id, "--agents", agent,
        *[opponent] * (players - 1), "--games", str(games), "--duplicate", "--seed", str(seed), "--out", str(folder),
        "--no-progress",
    ]  # fmt: skip
    ran = timed(command, folder.with_suffix(".log"))
    if ran["exit"] != 0:
        return {"eval_exit": ran["exit"]}
    return agent_figures(json.loads((folder / "results.json").read_text()), agent)


def agent_figures(results: dict, agent: str) -> dict:
    """``agent``'s win rate, interval, mean score and games in an evaluate ``results.json`` document."""
    mine = next(r for r in results["results"] if r["agent"] == agent)
    return {key: mine[key] for key in ("win_rate", "win_low", "win_high", "mean_score", "games")}


def evaluate(prefix: str, agent: Path, env_id: str, games: int, seed: int, out: Path, name: str = "") -> dict:
    """The agent against ``n - 1`` heuristics (`play_against`); evaluate's output goes to ``out/eval_<name>``
    (default: named after the agent file)."""
    folder = out / f"eval_{name or (agent.stem if prefix == 'dmc' else agent.parent.parent.name)}"
    return play_against(f"{prefix}:{agent}", "heuristic", env_id, PLAYERS[env_id], games, seed, folder)


def one_run(method: str, env_id: str, seed: int, args: argparse.Namespace) -> dict:
    out = Path(args.out)
    command, agent = train_command(method, env_id, seed, args.budget_s, out)
    row = {"method": method, "env_id": env_id, "seed": seed, **timed(command, out / f"{method}_{env_id}_{seed}.log")}
    if row["exit"] == 0 and agent.is_file():
        row.update(evaluate(method, agent, env_id, args.eval_games, args.eval_seed, out))
    print(json.dumps(row), flush=True)
    return row


def summarise(rows: list[dict]) -> dict:
    """Per game and method: the seeds' win rates, their mean, lowest and highest, and the CPU seconds used."""
    out: dict = {}
    for row in rows:
        if "win_rate" not in row:
            continue
        cell = out.setdefault(row["env_id"], {}).setdefault(row["method"], {"win_rates": [], "cpu_s": []})
        cell["win_rates"].append(row["win_rate"])
        cell["cpu_s"].append(row["cpu_s"])
    for game in out.values():
        for cell in game.values():
            rates = cell["win_rates"]
            cell.update(mean=statistics.fmean(rates), low=min(rates), high=max(rates), seeds=len(rates))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-s", type=float, default=120.0, help="CPU seconds per training run")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--methods", nargs="+", default=["dmc", "ppo"])
    parser.add_argument("--parallel", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--eval-seed", type=int, default=52053)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    jobs = [(m, g, s) for m in args.methods for g in args.games for s in args.seeds]
    with ThreadPoolExecutor(args.parallel) as pool:
        rows = list(pool.map(lambda job: one_run(*job, args), jobs))
    summary = {"budget_s": args.budget_s, "eval_games": args.eval_games, "eval_seed": args.eval_seed,
               "cpus": os.cpu_count(), "runs": rows, "by_game": summarise(rows)}  # fmt: skip
    (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
