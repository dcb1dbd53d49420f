"""Random legal play in the pirate envs beside the nearest games of other suites, in one process.

One after the other, ``--repeats`` interleaved rounds of ``--seconds`` each (so that a drift of
the machine's speed hits all alike), decisions per CPU-second of this process (medians):

* ``pirate aec``: each game's AEC env (``pirate_envs.make``, its default table), ``last()`` every
  step (observation and mask) and a uniform legal action (`bench_vector.measure_aec`);
* ``pirate batched``: the batched engine, ``--num-envs`` games, one uniform legal action per game
  per step from the mask, the observation array read (`bench_vector.measure_batched`);
* ``openspiel <game>``: OpenSpiel's C++ ``oh_hell`` (4 players), ``hearts``, ``pig``,
  ``first_sealed_auction`` and ``crazy_eights``, each twice: ``tensor`` writes the player's
  information-state tensor (its observation tensor where it has none) into numpy before each
  decision (``open_spiel.python.observation``), ``bare`` only asks ``legal_actions()``; chance
  nodes are sampled and not counted;
* ``rlcard <game>``: RLCard's ``leduc-holdem`` and ``uno``: ``env.step`` on a uniform choice of
  the state's ``legal_actions`` (its encoded ``obs`` comes with every state).

A suite that does not import is named and skipped (``pip install -c constraints.txt -e ".[peers]"``).
The ratios are to OpenSpiel's bare ``oh_hell``. On a machine other processes share, the figures
are per CPU-second of this process, and still move with the load: say so where they are quoted.

    python benchmarks/bench_peers.py [--seconds 1] [--repeats 3] [--num-envs 1024]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from bench_vector import measure_aec, measure_batched

import pirate_envs
import pirate_envs.vector

#: OpenSpiel's games and their parameters (``oh_hell`` at four players, as Skull King's usual table).
OPENSPIEL_GAMES: dict[str, dict[str, int]] = {
    "oh_hell": {"players": 4},
    "hearts": {},
    "pig": {},
    "first_sealed_auction": {},
    "crazy_eights": {},
}
RLCARD_GAMES = ("leduc-holdem", "uno")
#: The reference row of the ratios.
REFERENCE = "openspiel oh_hell 4p bare"

Measure = Callable[[int], float]


def _timed(play: Callable[[random.Random, float], int], seconds: float, seed: int) -> float:
    """Decisions per CPU-second of ``play(rng, deadline)`` (it returns the decisions it made)."""
    rng = random.Random(seed)
    cpu_start = time.process_time()
    steps = play(rng, time.perf_counter() + seconds)
    return steps / max(time.process_time() - cpu_start, 1e-9)


def openspiel_measures(seconds: float) -> dict[str, Measure]:
    """``openspiel <game> tensor`` and ``... bare`` per game of `OPENSPIEL_GAMES` (none if it does not import)."""
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        print("openspiel: not measured (open_spiel is not installed)")
        return {}
    measures: dict[str, Measure] = {}
    for name, parameters in OPENSPIEL_GAMES.items():
        game = pyspiel.load_game(name, parameters)
        if game.get_type().provides_information_state_tensor:
            observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
        else:
            observer = make_observation(game)

        def play(rng: random.Random, deadline: float, game=game, observer=observer) -> int:
            steps, checksum = 0, 0.0
            while time.perf_counter() < deadline:
                state = game.new_initial_state()
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes, probabilities = zip(*state.chance_outcomes())
                        state.apply_action(rng.choices(outcomes, probabilities)[0])
                        continue
                    if observer is not None:
                        observer.set_from(state, state.current_player())
                        checksum += observer.tensor[0]  # read it, as a learner would
                    state.apply_action(rng.choice(state.legal_actions()))
                    steps += 1
            return steps

        label = f"openspiel {name}" + (f" {parameters['players']}p" if "players" in parameters else "")
        measures[f"{label} tensor"] = lambda r, play=play: _timed(play, seconds, r)
        measures[f"{label} bare"] = lambda r, play=play: _timed(lambda rng, d: play(rng, d, observer=None), seconds, r)
    return measures


def rlcard_measures(seconds: float) -> dict[str, Measure]:
    """``rlcard <game>`` per game of `RLCARD_GAMES` (none if rlcard does not import)."""
    try:
        import rlcard
    except ImportError:
        print("rlcard: not measured (rlcard is not installed)")
        return {}
    measures: dict[str, Measure] = {}
    for name in RLCARD_GAMES:

        def play(rng: random.Random, deadline: float, name: str = name) -> int:
            env = rlcard.make(name, config={"seed": rng.randrange(2**31)})
            steps = 0
            while time.perf_counter() < deadline:
                state, _ = env.reset()
                while not env.is_over():
                    state, _ = env.step(rng.choice(list(state["legal_actions"])))
                    steps += 1
            return steps

        measures[f"rlcard {name}"] = lambda r, play=play: _timed(play, seconds, r)
    return measures


def pirate_measures(seconds: float, num_envs: int) -> dict[str, Measure]:
    """``pirate <env_id> aec`` and ``... batched`` per env id (the batched one where it is covered)."""
    measures: dict[str, Measure] = {}
    for env_id in pirate_envs.ENV_IDS:
        n = pirate_envs.game_spec(env_id).default_players
        label = f"pirate {env_id} {n}p"
        measures[f"{label} aec"] = lambda r, e=env_id, n=n: measure_aec(
            lambda: pirate_envs.make(e, num_players=n), seconds, r
        )[1]
        if env_id in pirate_envs.vector.COVERED_ENV_IDS:
            measure_batched(env_id, n, num_envs, 0.05, 0)  # compile or load the kernels before timing
            measures[f"{label} batched"] = lambda r, e=env_id, n=n: measure_batched(e, n, num_envs, seconds, r)[1]
    return measures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=1024)
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1 or args.num_envs < 1:
        parser.exit(2, f"{parser.prog}: error: --seconds must be positive, --repeats and --num-envs at least 1\n")
    targets = {
        **pirate_measures(args.seconds, args.num_envs),
        **openspiel_measures(args.seconds),
        **rlcard_measures(args.seconds),
    }
    runs: dict[str, list[float]] = {name: [] for name in targets}
    for r in range(args.repeats):
        for name, measure in targets.items():
            runs[name].append(measure(r))
    medians = {name: statistics.median(values) for name, values in runs.items()}
    reference = medians.get(REFERENCE)
    print(f"decisions per CPU-second, medians of {args.repeats} interleaved rounds of {args.seconds:g}s")
    print(f"| {'target':44s} | {'decisions/CPU-s':>15s} | {'x ' + REFERENCE:>24s} |")
    print(f"|{'-' * 46}|{'-' * 17}|{'-' * 26}|")
    for name, value in medians.items():
        ratio = f"{value / reference:.2f}" if reference else "—"
        print(f"| {name:44s} | {value:15,.0f} | {ratio:>24s} |")
    spread = {name: (min(values), max(values)) for name, values in runs.items()}
    print("range over rounds: " + "; ".join(f"{n}: {lo:,.0f}-{hi:,.0f}" for n, (lo, hi) in spread.items()))


if __name__ == "__main__":
    main()
