"""Seconds spent in the batched engine's step kernel over a fixed run of random legal play.

One process plays ``--steps`` steps of ``--num-envs`` games of ``--env-id`` (random legal actions
from a seeded generator, drawn outside the timed part) and times only the backend's ``step``, the
kernel call, in CPU seconds of its thread (steadier than wall time on a shared machine). It prints
one line: ``first_s=<seconds> kernel_s=<CPU seconds> steps=<agent steps> checksum=<digest>``; the
digest (of the last observations, masks, rewards and ends) is the same for the same seed on any two
versions that step the same games, so an A/B of two checkouts checks their behaviour as it times them:

    PYTHONPATH=<checkout> python benchmarks/bench_step_kernel.py --env-id piratenpoker_v0 --num-players 4

Run it a few times per checkout, interleaved, and compare the paired medians (the first step of a
process loads the kernels from numba's cache and is timed apart, as ``first_s``).
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np


def run(env_id: str, num_players: int, num_envs: int, steps: int, seed: int) -> tuple[float, float, int, str]:
    """First-step wall seconds, kernel CPU seconds of the other steps, agent steps applied, and the outputs' digest."""
    from pirate_envs import vector

    venv = vector.make(env_id, num_envs, seed=seed, num_players=num_players)
    venv.reset()
    backend = venv._backend
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    backend.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    first = time.perf_counter() - start
    kernel_seconds = 0.0
    agent_steps = 0
    for _ in range(steps):
        agent_steps += num_envs - int(np.count_nonzero(venv.terminated | venv.truncated))
        actions = vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated)
        start = time.thread_time()
        backend.step(actions)
        kernel_seconds += time.thread_time() - start
    digest = hashlib.sha256()
    for array in (venv.observation, venv.action_mask, venv.current_player, venv.rewards, venv.terminated,
                  venv.truncated):  # fmt: skip
        digest.update(np.ascontiguousarray(array).tobytes())
    return first, kernel_seconds, agent_steps, digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env-id", default="piratenpoker_v0")
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    first, kernel_seconds, agent_steps, digest = run(args.env_id, args.num_players, args.num_envs, args.steps,
                                                     args.seed)  # fmt: skip
    print(f"first_s={first:.4f} kernel_s={kernel_seconds:.4f} steps={agent_steps} checksum={digest}")


if __name__ == "__main__":
    main()
