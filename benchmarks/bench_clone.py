"""Speed of ``Engine.clone`` (the search copies the game once per iteration) against other copies.

At ``--positions`` positions of each game (random play from fixed seeds, the default tables)
the engine is copied with ``clone()``, with ``copy.deepcopy`` and, given ``--old-search`` (a
file holding the search module of before ``clone``, which copied engines by reflection,
``clone_state``: ``git show <commit>:agents/search/ismcts.py > /tmp/old_search.py``), with that
function. Each copy is timed over ``--repeats`` calls, alternating the methods, and the median
time per call is kept; the ratio of two methods is taken per position (paired) and its median
reported.

    python benchmarks/bench_clone.py [--old-search /tmp/old_search.py] [--positions 12] [--repeats 300]

Prints, per game: the median microseconds per ``clone()``, and the median paired ratios
deepcopy / clone and clone_state / clone.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from pirate_envs.core.actions import sample_legal


def load_clone_state(path: Path) -> Callable[[Any], Any]:
    """``clone_state`` of the search module saved at ``path`` (the project's own code, exported from git)."""
    spec = importlib.util.spec_from_file_location("old_search", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--old-search {str(path)!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    if not hasattr(module, "clone_state"):
        raise SystemExit(f"--old-search {str(path)!r} has no clone_state: export the IS-MCTS module of before clone")
    return module.clone_state


def positions(env_id: str, count: int) -> list[Any]:
    """``count`` engines of ``env_id`` at positions 0..60 random moves into a game (fixed seeds)."""
    spec = pirate_envs.game_spec(env_id)
    found = []
    for seed in range(count):
        env = pirate_envs.make(env_id, raw=True, num_players=spec.default_players)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(5 * seed):
            if env.game.done:
                break
            env.step(sample_legal(env.game.legal_mask(), rng))
        found.append(env.game)
    return found


def median_call_seconds(methods: dict[str, Callable[[Any], Any]], game: Any, repeats: int) -> dict[str, float]:
    """The median seconds of one call of each method on ``game``, the methods' calls alternating."""
    times: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(repeats):
        for name, method in methods.items():
            start = time.perf_counter()
            method(game)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-search", type=Path, default=None, help="the search module of before clone")
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    methods: dict[str, Callable[[Any], Any]] = {"clone": lambda game: game.clone(), "deepcopy": copy.deepcopy}
    if args.old_search is not None:
        methods["clone_state"] = load_clone_state(args.old_search)
    others = [name for name in methods if name != "clone"]
    print(f"{'game':20s} {'clone us':>9s} " + " ".join(f"{name + '/clone':>17s}" for name in others))
    for spec in pirate_envs.GAME_SPECS:
        timings = [median_call_seconds(methods, game, args.repeats) for game in positions(spec.env_id, args.positions)]
        clone_us = statistics.median(t["clone"] for t in timings) * 1e6
        ratios = [statistics.median(t[name] / t["clone"] for t in timings) for name in others]
        print(f"{spec.env_id:20s} {clone_us:9.1f} " + " ".join(f"{r:17.2f}" for r in ratios))


if __name__ == "__main__":
    main()
