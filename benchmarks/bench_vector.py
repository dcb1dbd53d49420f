"""Agent steps per second of the batched engine beside the AEC env, in one run.

Random legal play with observations and masks, on one core:

Random legal play with observations and masks, on one core: the batched engine, the AEC env,
PettingZoo's ``tictactoe_v3`` and OpenSpiel's C++ ``oh_hell`` (each when it imports), measured in
turn (``--repeats`` rounds of ``--seconds``); medians of agent steps per wall-clock and per CPU
second, and the batched engine's speed-up over the AEC env. Two fresh processes first time the
batched engine's start, with an empty and a filled numba cache. What each target runs and how the
figures are taken: ``docs/guides/tour.md`` ("The batched engine's benchmark").

    python benchmarks/bench_vector.py [--env-id skull_king_v0] [--num-players 4] [--num-envs 1024]
                                      [--seconds 2] [--repeats 5] [--no-compile-times]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

import pirate_envs

_START_SNIPPET = """
import time
start = time.perf_counter()
import numpy as np
import pirate_envs.vector as vector
venv = vector.make({env_id!r}, {num_envs}, seed=0, num_players={num_players})
venv.reset()
venv.step(vector.random_legal_actions(venv.action_mask, np.random.default_rng(0), venv.terminated | venv.truncated))
print(time.perf_counter() - start)
"""


def start_times(env_id: str, num_players: int, num_envs: int) -> tuple[float, float]:
    """Seconds to the first step in a fresh process: with an empty numba cache, then with it filled."""
    code = _START_SNIPPET.format(env_id=env_id, num_envs=num_envs, num_players=num_players)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
                for _ in range(2)]  # fmt: skip
        times = [float(run.stdout.strip()) for run in runs]
    return times[0], times[1]


def measure_batched(env_id: str, num_players: int, num_envs: int, seconds: float, seed: int) -> tuple[float, float]:
    """Agent steps per wall second and per CPU second of random legal play on the batched engine."""
    from pirate_envs import vector

    venv = vector.make(env_id, num_envs, seed=seed, num_players=num_players)
    venv.reset()
    rng = np.random.default_rng(seed)
    checksum = 0.0
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            live = num_envs - int(np.count_nonzero(venv.terminated | venv.truncated))
            venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
            checksum += venv.observation[0, 0]  # read the outputs, as a learner would
            steps += live
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return steps / elapsed, steps / cpu


def measure_aec(make_env: Callable, seconds: float, seed: int) -> tuple[float, float]:
    """Agent steps per wall second and per CPU second of random legal play on one AEC env."""
    env = make_env()
    rng = random.Random(seed)
    steps = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
                steps += 1
            env.step(action)
        games += 1
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return steps / elapsed, steps / cpu


def tictactoe() -> Callable | None:
    """PettingZoo's ``tictactoe_v3.env`` if it imports (it needs pygame), else ``None``."""
    try:
        from pettingzoo.classic import tictactoe_v3
    except ImportError:
        return None
    return tictactoe_v3.env


#: OpenSpiel's game of the ``openspiel oh_hell`` row and its table size.
OH_HELL_PLAYERS = 4


def oh_hell() -> Callable[[float, int], tuple[float, float]] | None:
    """A measure of OpenSpiel's ``oh_hell`` (``(seconds, seed)`` to steps per second) if ``open_spiel`` imports."""
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": OH_HELL_PLAYERS})
    # oh_hell has no observation tensor: the observer writes the information-state tensor
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))

    def measure(seconds: float, seed: int) -> tuple[float, float]:
        rng = random.Random(seed)
        checksum = 0.0
        steps = 0
        start, cpu_start = time.perf_counter(), time.process_time()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(outcomes, probabilities)[0])
                    continue
                observer.set_from(state, state.current_player())
                checksum += observer.tensor[0]  # read the observation, as a learner would
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        return steps / elapsed, steps / cpu

    return measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env-id", default="skull_king_v0")
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-compile-times", action="store_true", help="skip the two start-up processes")
    args = parser.parse_args()
    env_id, n = args.env_id, args.num_players
    if not args.no_compile_times:
        cold, cached = start_times(env_id, n, args.num_envs)
        print(f"start to the first batched step: {cold:.1f}s with an empty numba cache (JIT compile), "
              f"{cached:.2f}s from the cache")  # fmt: skip
    targets: dict[str, Callable[[int], tuple[float, float]]] = {
        f"batched ({args.num_envs} games)": lambda r: measure_batched(env_id, n, args.num_envs, args.seconds, r),
        "aec env": lambda r: measure_aec(lambda: pirate_envs.make(env_id, num_players=n), args.seconds, r),
    }
    ttt = tictactoe()
    if ttt is not None:
        targets["pettingzoo tictactoe_v3"] = lambda r: measure_aec(ttt, args.seconds, r)
    else:
        print("pettingzoo tictactoe_v3: not measured (it needs pygame, which is not installed)")
    open_spiel = oh_hell()
    if open_spiel is not None:
        targets[f"openspiel oh_hell ({OH_HELL_PLAYERS} pl.)"] = lambda r: open_spiel(args.seconds, r)
    else:
        print("openspiel oh_hell: not measured (open_spiel is not installed)")
    measure_batched(env_id, n, args.num_envs, 0.2, 0)  # compile or load the kernels before timing
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in targets}
    for r in range(args.repeats):
        for name, run in targets.items():
            runs[name].append(run(r))
    batched, aec = list(runs)[:2]
    ratios = [b[0] / a[0] for b, a in zip(runs[batched], runs[aec])]
    cpu_ratios = [b[1] / a[1] for b, a in zip(runs[batched], runs[aec])]
    print(f"{env_id}, {n} players: medians of {args.repeats} interleaved rounds of {args.seconds:g}s")
    print(f"| {'target':26s} | {'agent steps/s':>13s} | {'steps/CPU-s':>11s} | {'x aec env':>9s} |")
    print(f"|{'-' * 28}|{'-' * 15}|{'-' * 13}|{'-' * 11}|")
    for name, values in runs.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        aec_wall = statistics.median(v[0] for v in runs[aec])
        ratio = statistics.median(ratios) if name == batched else wall / aec_wall
        print(f"| {name:26s} | {wall:13,.0f} | {cpu:11,.0f} | {ratio:9.1f} |")
    print(f"batched / aec env per round: wall {', '.join(f'{x:.0f}' for x in ratios)}; "
          f"CPU {', '.join(f'{x:.0f}' for x in cpu_ratios)}")  # fmt: skip


if __name__ == "__main__":
    main()
