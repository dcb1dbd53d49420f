"""The floor of writing a batched env's observations: CPU nanoseconds per row of a bare memory write.

For ``--env-id`` at ``--num-players``, a buffer of the batched engine's observation shape
(``--num-envs`` rows of ``float32``) is written the way the step kernels write it, with no game
behind it: each row cleared, then one entry in fifteen set. The median over ``--repeats`` runs
of ``--passes`` passes is the least a step of that observation format costs on this machine,
whatever the engine does; compare it with the time per decision a speed target leaves.

    python benchmarks/bench_observation_floor.py --env-id skull_king_v0 --num-players 4

Prints ``obs_floats=<n> ns_per_row=<median> runs=<each>``. Needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit


@njit(cache=True)
def write_rows(observation: np.ndarray, passes: int) -> None:
    """Clear each row and set one entry in fifteen, ``passes`` times over the buffer."""
    rows, width = observation.shape
    for _ in range(passes):
        for i in range(rows):
            row = observation[i]
            row[:] = 0.0
            for k in range(0, width, 15):
                row[k] = 1.0


def floor_ns(obs_floats: int, num_envs: int, passes: int, repeats: int) -> list[float]:
    """CPU nanoseconds per row of each run (after one untimed pass that compiles and warms)."""
    observation = np.zeros((num_envs, obs_floats), dtype=np.float32)
    write_rows(observation, 1)
    runs = []
    for _ in range(repeats):
        start = time.thread_time()
        write_rows(observation, passes)
        runs.append((time.thread_time() - start) / (passes * num_envs) * 1e9)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env-id", default="skull_king_v0")
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--passes", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from pirate_envs import vector

    venv = vector.make(args.env_id, 1, seed=0, num_players=args.num_players)
    width = int(venv.observation.shape[1])
    runs = floor_ns(width, args.num_envs, args.passes, args.repeats)
    print(f"obs_floats={width} ns_per_row={statistics.median(runs):.1f} runs={[round(r, 1) for r in runs]}")


if __name__ == "__main__":
    main()
