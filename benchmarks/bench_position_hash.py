"""Speed of the Lucky Pirate heuristic's position hash (`agents.lucky_pirate.batched_heuristic._row_hash`).

The batched heuristic hashes every observation row it is shown (its memory of positions seen),
once per move of the searches' rollouts. This times that hash on the rows of played games
(4 players, random legal moves) against one `_mix` a word in a single chain (the hash before the
four lanes), in nanoseconds a row, each the median of ``--repeats`` timings of all rows ``--passes``
times on this process's CPU clock.

    python benchmarks/bench_position_hash.py [--games 64] [--passes 50] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

import pirate_envs.vector
from agents.lucky_pirate.batched_heuristic import _mix, _row_hash


@njit(cache=True)
def _chained_hash(words: np.ndarray, row: int) -> np.uint64:
    """The reference: one `_mix` a word, each waiting for the last."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for j in range(words.shape[1]):
        h = _mix(h ^ np.uint64(words[row, j]))
    return h


@njit(cache=True)
def _hash_rows(words: np.ndarray, passes: int, chained: bool) -> np.uint64:
    """Every row hashed ``passes`` times (by `_row_hash`, or ``chained`` by `_chained_hash`), folded into one word."""
    folded = np.uint64(0)
    for _ in range(passes):
        for j in range(words.shape[0]):
            folded ^= _chained_hash(words, j) if chained else _row_hash(words, j)
    return folded


def played_rows(games: int, moves: int = 60, seed: int = 0) -> np.ndarray:
    """The observation rows of ``games`` batched Lucky Pirate games of random legal moves, as ``uint32`` words."""
    venv = pirate_envs.vector.make("lucky_pirate_v0", games, seed=seed, num_players=4)
    venv.reset()
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(moves):
        rows.append(venv.observation.copy())
        legal = venv.action_mask.astype(bool)
        venv.step(np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1))
    return np.ascontiguousarray(np.concatenate(rows)).view(np.uint32)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="games whose rows are hashed (default: %(default)s)")
    parser.add_argument("--passes", type=int, default=50, help="passes over the rows a timing (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="timings of each hash (default: %(default)s)")
    args = parser.parse_args(argv)
    words = played_rows(args.games)
    print(f"{len(words)} rows of {words.shape[1]} words")
    for name, chained in (("four lanes (_row_hash)", False), ("one chain", True)):
        _hash_rows(words, 1, chained)  # compiled (or loaded) before timing
        times = []
        for _ in range(args.repeats):
            start = time.process_time()
            _hash_rows(words, args.passes, chained)
            times.append(time.process_time() - start)
        print(f"{name}: {statistics.median(times) / (args.passes * len(words)) * 1e9:.0f} ns a row")


if __name__ == "__main__":
    main()
