"""Agent steps per second and games per second through ``env()`` for every env id.

Each measurement plays whole games with random legal actions (uniform by action block, as
the random agent does), calling ``last()`` every step, in one process. PettingZoo's
``tictactoe_v3`` and ``connect_four_v3`` are measured in the same run as a reference.

    python benchmarks/bench_envs.py [--seconds 5] [--repeats 3] [--env-ids ID ...]

Prints the median over ``--repeats`` runs of ``--seconds`` each.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

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


def measure(make_env: Callable, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Steps/s and games/s of random play for about ``seconds``."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    blocks = action_blocks(env) if hasattr(env.unwrapped, "actions") else ()
    steps = games = 0
    start = time.perf_counter()
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
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--env-ids", nargs="*", default=list(pirate_envs.ENV_IDS))
    args = parser.parse_args()
    targets: dict[str, Callable] = {
        env_id: (lambda env_id=env_id: pirate_envs.make(env_id)) for env_id in args.env_ids
    }
    targets.update(reference_envs())
    print(f"{'env':32s} {'steps/s':>10s} {'games/s':>10s}   (median of {args.repeats} x {args.seconds:g}s)")
    for name, make_env in targets.items():
        runs = [measure(make_env, args.seconds, seed=r) for r in range(args.repeats)]
        steps = statistics.median(r[0] for r in runs)
        games = statistics.median(r[1] for r in runs)
        print(f"{name:32s} {steps:10,.0f} {games:10,.1f}", flush=True)


if __name__ == "__main__":
    main()
