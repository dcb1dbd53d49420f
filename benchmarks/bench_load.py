"""Cost of loading engines into the batched engine's rows (``VectorEnv.load``) and of ``copy_rows``.

Per game (its default table size), ``--rows`` engines at positions of seeded random games are
loaded into as many rows, with a seed each, ``--repeats`` times; the median time of a load,
divided by the rows, is the cost per row (Python and numpy: each row's loader, the kept clone
of the engine, then one call of the outputs kernel for all rows). One row loaded alone shows
the fixed cost of a call. ``copy_rows`` fans row 0 out into the other rows.

    python benchmarks/bench_load.py [--rows 256] [--repeats 15] [--env-id skull_king_v0 ...]

Prints, per game: the median microseconds per row of a load of ``--rows`` rows, of a load of
one row, and per row of ``copy_rows`` into ``--rows - 1`` rows.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import pirate_envs
import pirate_envs.vector
from pirate_envs.core.actions import sample_legal

GAMES = ("skull_king_v0", "piraten_kapern_v0", "lucky_pirate_v0", "piratenpoker_v0")


def positions(env_id: str, count: int, num_players: int) -> list[Any]:
    """``count`` engines of ``env_id``, each 0..59 random moves into a game of its own seed (never one that ended)."""
    found = []
    for seed in range(count):
        env = pirate_envs.make(env_id, raw=True, num_players=num_players)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(seed % 60):
            if env.game.done:
                break
            before = env.game.clone()
            env.step(sample_legal(env.game.legal_mask(), rng))
            if env.game.done:
                env.unwrapped.game = before
                break
        found.append(env.game)
    return found


def median_seconds(call: Callable[[], None], repeats: int) -> float:
    """The median wall time of ``repeats`` calls (one untimed call first: compiles and warms)."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=256, help="rows loaded per call (at least 2)")
    parser.add_argument("--repeats", type=int, default=15, help="timed calls per measure")
    parser.add_argument("--env-id", nargs="+", default=list(GAMES), choices=GAMES, help="games to measure")
    args = parser.parse_args()
    if args.rows < 2 or args.repeats < 1:
        raise SystemExit(f"--rows {args.rows} must be at least 2 and --repeats {args.repeats} at least 1")
    for env_id in args.env_id:
        print(measure(env_id, args.rows, args.repeats))


def measure(env_id: str, num_rows: int, repeats: int) -> str:
    """The line of one game: load per row, one row's load, copy_rows per row."""
    num_players = pirate_envs.game_spec(env_id).default_players
    engines = positions(env_id, num_rows, num_players)
    venv = pirate_envs.vector.make(env_id, num_rows, seed=0, num_players=num_players)
    venv.reset()
    rows = np.arange(num_rows)
    seeds = np.arange(1, num_rows + 1, dtype=np.uint64)
    batch = median_seconds(lambda: venv.load(rows, engines, seeds), repeats) / num_rows
    single = median_seconds(lambda: venv.load(0, engines[0], 1), repeats)
    copies = median_seconds(lambda: venv.copy_rows(0, rows[1:]), repeats) / (num_rows - 1)
    return (
        f"{env_id} ({num_players} players): load {batch * 1e6:.1f} us/row ({num_rows} rows per call), "
        f"one row {single * 1e6:.1f} us, copy_rows {copies * 1e6:.2f} us/row"
    )


if __name__ == "__main__":
    main()
