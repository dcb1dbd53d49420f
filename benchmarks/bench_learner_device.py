"""What a GPU changes for learning: the DMC learner's update, and PPO's training steps, on CPU and CUDA.

    python benchmarks/bench_learner_device.py --out learner_device.json

1. DMC: `agents.dmc.learner.Learner.update` on a synthetic round of decisions of each game's
   shipped observation and action features (the default Q network, 256x256; minibatches of 1,024),
   timed on the CPU with 1 and with all torch threads and on CUDA when there is one: decisions
   learned per second (medians of ``--repeats``).
2. PPO: ``python -m experiments.train`` for ``--ppo-steps`` learner steps on the batched engine of
   each of ``--ppo-games``, with ``--device cpu`` and ``--device cuda``, each with ``--loss fused``
   and ``--loss torch``: steps per second of the whole run (actors, learner and all), each measured
   once (the command's own wall time, after one warm-up run that compiles the kernels), or the
   last line of its error. On CUDA the update is sb3-contrib's own whatever ``--loss`` says (the
   lean update's kernels run on the CPU only), so the two CUDA rows are two runs of the same path.

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
from pathlib import Path

import numpy as np
import torch

import pirate_envs
from agents.dmc.features import QNetwork, action_features
from agents.dmc.learner import Learner
from agents.dmc.rollout import Batch

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


def ppo_rate(env_id: str, device: str, steps: int, loss: str = "fused") -> float | str:
    """Learner steps per second of one PPO run of ``steps`` steps on ``device`` with ``loss`` (wall
    clock), or the last line of its error."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable, "-m", "experiments.train", "--env-id", env_id, "--engine", "batched",
            "--num-envs", "256", "--total-timesteps", str(steps), "--eval-every", "0",
            "--opponents", "heuristic:1.0", "--device", device, "--loss", loss, "--torch-threads", "1", "--no-pipeline",
            "--out-dir", folder, "--run-name", "ppo", "--no-progress",
        ]  # fmt: skip
        start = time.perf_counter()
        ran = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if ran.returncode:
            return "failed: " + (ran.stderr.strip().splitlines() or ["?"])[-1]
        return round(steps / (time.perf_counter() - start))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="", help="write the figures as JSON here")
    parser.add_argument("--decisions", type=int, default=65_536, help="decisions per DMC round")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ppo-steps", type=int, default=0, help="PPO learner steps per run (0: no PPO runs)")
    parser.add_argument("--games", nargs="+", default=list(GAMES), help="games of the DMC timings")
    parser.add_argument("--ppo-games", nargs="+", default=["skull_king_v0"], help="games of the PPO runs")
    args = parser.parse_args()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    figures: dict = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "dmc_decisions_per_s": {},
        "ppo_steps_per_s": {},
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
            ppo_rate(env_id, "cpu", 4096)  # compiles the kernels once
            runs = [(device, loss) for device in devices for loss in ("fused", "torch")]
            rows = {f"{device}_{loss}": ppo_rate(env_id, device, args.ppo_steps, loss) for device, loss in runs}
            figures["ppo_steps_per_s"][env_id] = rows
            print(env_id, "PPO steps/s", rows, flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
