"""Agent steps per second and games per second through ``env()`` for every env id.

Each measurement plays whole games with random legal actions (uniform by action block, as
the random agent does), calling ``last()`` every step, in one process. PettingZoo's
``tictactoe_v3`` and ``connect_four_v3`` are measured in the same run as a reference.

    python benchmarks/bench_envs.py [--seconds 2] [--repeats 7] [--env-ids ID ...]

The targets are measured in turn, ``--repeats`` rounds of ``--seconds`` each, so that a
drift in the machine's speed hits all of them alike; it prints the medians over the rounds
of steps per wall-clock second, games per second, and steps per CPU-second of this process
(less sensitive to other processes on a shared machine), and each env's ratio to tictactoe.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import pirate_envs
from agents.base import action_blocks, sample_legal


def reference_envs() -> dict[str, Callable]:
    """PettingZoo's classic envs used as a yardstick (needs pettingzoo[classic] extras)."""
    refs: dict[str, Callable] = {}
    try:
        from pettingzoo.classic import tictactoe_v3

        refs["pettingzoo tictactoe_v3"] = tictactoe_v3.env
    except ImportError:
        pass
    try:
        from pettingzoo.classic import connect_four_v3

        refs["pettingzoo connect_four_v3"] = connect_four_v3.env
    except ImportError:
        pass
    return refs


def measure(make_env: Callable, seconds: float, seed: int = 0) -> tuple[float, float, float]:
    """Steps per wall second, games per wall second, steps per CPU second of random play."""
    env = make_env()
    rng = random.Random(seed)
    env.reset(seed=seed)
    blocks = action_blocks(env) if hasattr(env.unwrapped, "actions") else ()
    steps = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                action = sample_legal(obs["action_mask"], rng, blocks)
                steps += 1
            env.step(action)
        games += 1
        if time.perf_counter() >= deadline:
            break
        env.reset(seed=seed + games)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return steps / elapsed, games / elapsed, steps / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--env-ids", nargs="*", default=list(pirate_envs.ENV_IDS))
    args = parser.parse_args()
    targets: dict[str, Callable] = {env_id: (lambda env_id=env_id: pirate_envs.make(env_id)) for env_id in args.env_ids}
    targets.update(reference_envs())
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in targets}
    for r in range(args.repeats):
        for name, make_env in targets.items():
            runs[name].append(measure(make_env, args.seconds, seed=r))
    medians = {name: [statistics.median(run[i] for run in runs[name]) for i in range(3)] for name in targets}
    reference = medians.get("pettingzoo tictactoe_v3")
    print(f"medians of {args.repeats} interleaved rounds of {args.seconds:g}s")
    print(f"{'env':28s} {'steps/s':>9s} {'games/s':>9s} {'steps/CPU-s':>12s} {'x tictactoe':>12s}")
    for name, (steps, games, cpu_steps) in medians.items():
        ratio = f"{steps / reference[0]:.2f}" if reference else "-"
        print(f"{name:28s} {steps:9,.0f} {games:9,.1f} {cpu_steps:12,.0f} {ratio:>12s}")


if __name__ == "__main__":
    main()
