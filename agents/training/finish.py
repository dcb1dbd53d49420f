"""The agent a training run hands over (``--finish``): its last checkpoint, the mean of its late checkpoints,
or the late checkpoint that wins most on validation deals.

A learner that trains against snapshots of itself does not settle: between two checkpoints 2M steps apart,
Piratenpoker's recipe moves by up to 0.12 of win share against the heuristics on the same deals. The run's
last checkpoint is one draw from that wobble. ``average`` takes the mean of every parameter over the
checkpoints from ``finish_from`` of the run on (one trajectory's networks, so their units line up); ``choose``
plays each of them against ``players - 1`` copies of an opponent on duplicate deals fixed in advance
(validation deals, never the deals a result is reported on) and keeps the one that wins most, the later on
a tie. Either writes ``checkpoints/final.npz`` (a data-only agent file) and ``finish.json`` with what it did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy.checkpoint import load_agent, save_agent
from agents.policy.mlp import MlpPolicy
from agents.training.plan import RunPlan
from pirate_envs.core.files import write_atomic

#: The ways a run hands over its agent (``--finish``).
FINISHES = ("last", "average", "choose")
#: The agent file of a finished run (with ``--finish average`` or ``choose``), beside its checkpoints.
FINAL_FILE = "final.npz"
#: What the finish did, in the run folder.
FINISH_REPORT = "finish.json"
STEP_FILE = re.compile(r"step_(\d+)\.npz")

#: ``play(agent_file) -> (win rate, low, high)``: the candidate's figures on the validation deals.
Play = Callable[[Path], tuple[float, float, float]]


@dataclass(frozen=True)
class Finish:
    """How a run hands over its agent (the fields of ``experiments.train``'s ``--finish`` flags)."""

    method: str = "last"
    start: float = 0.5  # candidates: the checkpoints at >= start x the last step
    opponent: str = "heuristic"
    players: int = 0
    games: int = 400
    seed: int = 169_001

    def __post_init__(self) -> None:
        if self.method not in FINISHES:
            raise ValueError(f"finish must be one of {FINISHES}, got {self.method!r}")
        if not 0 < self.start <= 1:
            raise ValueError(f"the finish's start must lie in (0, 1], got {self.start}")


def finish_of(plan: RunPlan) -> Finish:
    """The run's `Finish` from its arguments; ``choose``'s table size (``choose_players`` 0) is the run's size
    weighted most (the first on a tie): its only one, or the evaluation size of a recipe of mixed tables."""
    args = plan.args
    weights = plan.table_weights
    players = args.choose_players or max(plan.table_sizes, key=lambda n: (weights.get(n, 1.0), -n))
    return Finish(args.finish, args.finish_from, args.choose_against, players, args.choose_games, args.choose_seed)


def candidates(checkpoints: Path, last_step: int, start: float) -> list[tuple[int, Path]]:
    """The ``step_<n>.npz`` files of a run with ``start * last_step <= n <= last_step``, oldest first."""
    found = []
    for path in checkpoints.iterdir():
        match = STEP_FILE.fullmatch(path.name)
        if match and start * last_step <= int(match.group(1)) <= last_step:
            found.append((int(match.group(1)), path))
    if not found:
        raise ValueError(f"{checkpoints}: no checkpoint between {start} x {last_step} and {last_step} steps")
    return sorted(found)


def _mean(arrays: list[list[np.ndarray]]) -> list[np.ndarray]:
    return [np.mean(np.stack(layer), axis=0, dtype=np.float64).astype(np.float32) for layer in zip(*arrays)]


def average_agents(paths: list[Path]) -> tuple[MlpPolicy, dict[str, Any]]:
    """The mean of every parameter of the agent files ``paths`` (one network's shape, one game), with the
    header of the last; ``ValueError`` when they differ in game, observation or network."""
    loaded = [load_agent(path) for path in paths]
    policies = [policy for policy, _ in loaded]
    last, header = loaded[-1]
    same = ("env_id", "observation_layout", "layer_sizes", "activation", "value_layer_sizes", "action_head")
    for path, (_, other) in zip(paths, loaded):
        differing = [key for key in same if other.get(key) != header.get(key)]
        if differing:
            raise ValueError(f"{path}: its {', '.join(differing)} differ from {paths[-1]}'s: no mean of them")
    valued = last.value_weights is not None
    mean = MlpPolicy(
        _mean([p.weights for p in policies]),
        _mean([p.biases for p in policies]),
        last.activation,
        None,
        _mean([p.value_weights or [] for p in policies]) if valued else None,
        _mean([p.value_biases or [] for p in policies]) if valued else None,
    )
    return mean, header


def choose_agent(paths: list[Path], play: Play) -> tuple[int, list[tuple[float, float, float]]]:
    """The index of the candidate ``play`` rates highest (the later on a tie) and every candidate's figures."""
    figures = [play(path) for path in paths]
    best = max(range(len(paths)), key=lambda i: (figures[i][0], i))
    return best, figures


def validation_play(plan: RunPlan, finish: Finish) -> Play:
    """A candidate's win rate and interval against ``finish.players - 1`` copies of ``finish.opponent`` in
    ``finish.games`` duplicate games from ``finish.seed`` (the figures of ``experiments.evaluate --duplicate``)."""
    from agents.evaluation import run_tournament

    def play(path: Path) -> tuple[float, float, float]:
        learner = f"ppo:{path}"
        lineup = [learner] + [finish.opponent] * (finish.players - 1)
        results, _ = run_tournament(
            plan.args.env_id, lineup, finish.games, seed=finish.seed, duplicate=True, **plan.env_options
        )
        mine = next(r for r in results if r.agent == learner)
        return mine.win_rate, mine.win_low, mine.win_high

    return play


def finish_run(plan: RunPlan, finish: Finish, last_step: int, play: Play | None = None) -> tuple[Path, str] | None:
    """Hand over the run's agent by ``finish``: ``None`` for ``last`` (the agent is ``latest.npz``), else
    write ``checkpoints/final.npz`` and ``finish.json`` (atomically) and return the agent file and how it was made.

    ``play`` rates a candidate for ``choose`` (default: `validation_play`).
    """
    if finish.method == "last":
        return None
    folder = plan.run_dir / "checkpoints"
    found = candidates(folder, last_step, finish.start)
    steps, paths = [s for s, _ in found], [p for _, p in found]
    report: dict[str, Any] = {"finish": asdict(finish), "candidates": steps}
    if finish.method == "average":
        policy, header = average_agents(paths)
        note = f"mean of the checkpoints at {', '.join(map(str, steps))} steps"
    else:
        best, figures = choose_agent(paths, play or validation_play(plan, finish))
        policy, header = load_agent(paths[best])
        report["figures"] = [
            {"steps": s, "win_rate": w, "win_low": lo, "win_high": hi} for s, (w, lo, hi) in zip(steps, figures)
        ]
        report["chosen"] = steps[best]
        win, low, high = figures[best]
        note = (
            f"the checkpoint at {steps[best]} steps, chosen among {len(steps)} by its win rate {win:.3f} "
            f"[{low:.3f}, {high:.3f}] against {finish.opponent} x{finish.players - 1} on {finish.games} duplicate "
            f"games from seed {finish.seed}"
        )
    kept = header["training"]["figures"] if finish.method == "choose" else {}  # the mean was never evaluated
    header["training"] = {**header["training"], "figures": {**kept, "finish": note}}
    agent = save_agent(folder / FINAL_FILE, policy, header)
    write_atomic(plan.run_dir / FINISH_REPORT, json.dumps({**report, "agent": str(agent), "note": note}, indent=2))
    return agent, note
