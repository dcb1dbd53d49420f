"""What a GPU changes for learning: the DMC learner's update, and PPO's training steps, on CPU and CUDA.

    python benchmarks/bench_learner_device.py --out learner_device.json
    python benchmarks/bench_learner_device.py --games --ppo-steps 262144 --ppo-nets 64x64 512x512 --jobs 4

1. DMC: `agents.dmc.learner.Learner.update` on a synthetic round of decisions of each game's
   shipped observation and action features (the default Q network, 256x256; minibatches of 1,024),
   timed on the CPU with 1 and with all torch threads and on CUDA when there is one: decisions
   learned per second (medians of ``--repeats``).
2. PPO: ``python -m experiments.train`` for ``--ppo-steps`` learner steps on the batched engine of
   each of ``--ppo-games`` at each of ``--ppo-nets``: the same update on both devices (``--update
   sb3``, sb3-contrib's own, with ``--device cpu`` and ``--device cuda``) and the CPU's lean update
   beside. Each run's learning phase only, from its ``summary.json``: learner steps per second of
   the loop's wall time and per CPU-second (start-up, compilation and the final evaluation left
   out). The CPU runs (one torch thread each) go ``--jobs`` at a time while the CUDA runs go one
   after another beside them.

Nothing needs a GPU: without CUDA the CUDA rows are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch

import pirate_envs
from agents.dmc.features import QNetwork, action_features
from agents.dmc.learner import Learner
from agents.dmc.rollout import Batch
from agents.training.run import SUMMARY_FILE

GAMES = ("skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0", "piraten_kapern_v0")


def dmc_rate(env_id: str, device: str, threads: int, decisions: int, repeats: int) -> float:
    """Median decisions per second of `Learner.update` over ``decisions`` random decisions."""
    torch.set_num_threads(threads)
    raw = pirate_envs.make(env_id, raw=True)
    rng = np.random.default_rng(0)
    size, actions = raw.observation_layout.size, len(raw.actions)
    batch = Batch(
        rng.random((decisions, size), dtype=np.float32),
        rng.integers(0, actions, decisions),
        rng.standard_normal(decisions).astype(np.float32),
        games=1,
        mean_reward=0.0,
    )
    learner = Learner(QNetwork(size, action_features(raw), (256, 256)), device=device)
    learner.update(batch, rng)  # warm-up (CUDA context, kernels)
    times = []
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        learner.update(batch, rng)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return decisions / float(np.median(times))


def ppo_learning(env_id: str, device: str, update: str, net: str, steps: int) -> dict[str, Any]:
    """The learning phase of one PPO run: steps per wall second and per CPU-second of its loop (its
    ``summary.json``), or the last line of its error."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable, "-m", "experiments.train", "--env-id", env_id, "--recipe", "none", "--num-players", "4",
            "--reward-mode", "score", "--opponents", "heuristic:1.0", "--engine", "batched", "--num-envs", "256",
            "--net-arch", *net.split("x"), "--total-timesteps", str(steps), "--eval-every", "0", "--eval-games", "1",
            "--checkpoint-every", str(10 * steps), "--device", device, "--update", update, "--torch-threads", "1",
            "--no-pipeline", "--out-dir", folder, "--run-name", "ppo", "--no-progress",
        ]  # fmt: skip
        ran = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if ran.returncode:
            return {"failed": (ran.stderr.strip().splitlines() or ["?"])[-1]}
        summary = json.loads((Path(folder) / "ppo" / SUMMARY_FILE).read_text())
    wall, cpu = summary["learn_wall_s"], summary["learn_cpu_s"]
    return {
        "steps": summary["timesteps"],
        "learn_wall_s": wall,
        "learn_cpu_s": cpu,
        "steps_per_wall_s": round(summary["timesteps"] / max(wall, 1e-9)),
        "steps_per_cpu_s": round(summary["timesteps"] / max(cpu, 1e-9)),
    }


def ppo_table(env_id: str, nets: list[str], steps: int, cuda: bool, jobs: int) -> dict[str, dict[str, Any]]:
    """`ppo_learning` of every net: lean and sb3 on the CPU (``jobs`` at a time), sb3 on CUDA (one at a time)."""
    ppo_learning(env_id, "cpu", "lean", nets[0], 4096)  # compiles the kernels once
    cpu_runs = [(net, update) for net in nets for update in ("lean", "sb3")]
    rows: dict[str, dict[str, Any]] = {net: {} for net in nets}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {run: pool.submit(ppo_learning, env_id, "cpu", run[1], run[0], steps) for run in cpu_runs}
        for net in nets if cuda else []:
            rows[net]["cuda_sb3"] = ppo_learning(env_id, "cuda", "sb3", net, steps)
        for (net, update), future in futures.items():
            rows[net][f"cpu_{update}"] = future.result()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="", help="write the figures as JSON here")
    parser.add_argument("--decisions", type=int, default=65_536, help="decisions per DMC round")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ppo-steps", type=int, default=0, help="PPO learner steps per run (0: no PPO runs)")
    parser.add_argument("--games", nargs="*", default=list(GAMES), help="games of the DMC timings (none: PPO only)")
    parser.add_argument("--ppo-games", nargs="+", default=["skull_king_v0"], help="games of the PPO runs")
    parser.add_argument("--ppo-nets", nargs="+", default=["64x64", "128x128"], help="hidden layers of the PPO runs")
    parser.add_argument("--jobs", type=int, default=1, help="CPU runs at a time (one torch thread each)")
    args = parser.parse_args()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    figures: dict = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "dmc_decisions_per_s": {},
        "ppo_steps": args.ppo_steps,
        "ppo_learning": {},
    }
    for env_id in args.games:
        rows = {"cpu_1_thread": dmc_rate(env_id, "cpu", 1, args.decisions, args.repeats)}
        rows[f"cpu_{os.cpu_count()}_threads"] = dmc_rate(
            env_id, "cpu", os.cpu_count() or 1, args.decisions, args.repeats
        )
        if "cuda" in devices:
            rows["cuda"] = dmc_rate(env_id, "cuda", 1, args.decisions, args.repeats)
        figures["dmc_decisions_per_s"][env_id] = {k: round(v) for k, v in rows.items()}
        print(env_id, "DMC learner decisions/s", figures["dmc_decisions_per_s"][env_id], flush=True)
    if args.ppo_steps:
        for env_id in args.ppo_games:
            rows = ppo_table(env_id, args.ppo_nets, args.ppo_steps, "cuda" in devices, args.jobs)
            figures["ppo_learning"][env_id] = rows
            print(env_id, "PPO learning phase", json.dumps(rows), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
