"""The results pages' learning section: the learning methods over training seeds, from committed summaries.

A summary is the ``summary.json`` of ``benchmarks/learners_equal_budget.py``: every run learns from
scratch at the game's default table against heuristics for one CPU budget (``budget_s``), one run per
method (``ppo``, ``dmc``), game and training seed, then plays ``eval_games`` duplicate games (seed
``eval_seed``) against the heuristics. The committed summaries live in ``docs/results/learning``;
`load_summaries` reads them and `learning_section` renders one game's rows: per budget and method,
each seed's win rate with its 95% interval, the mean over seeds with the lowest and highest, and the
CPU seconds each run used.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pirate_envs

#: The learning methods in the order a page lists them, with their names in words.
METHODS = {"ppo": "PPO", "dmc": "Deep Monte-Carlo"}
#: The keys every summary and every run in it must have.
SUMMARY_KEYS = ("budget_s", "eval_games", "eval_seed", "runs")
RUN_KEYS = ("method", "env_id", "seed", "cpu_s")


def load_summaries(folder: str | Path) -> list[dict[str, Any]]:
    """The summaries under ``folder`` (``*.json``, file-name order; ``[]`` when the folder does not exist);
    ``ValueError`` naming a file that is no summary."""
    found = []
    for path in sorted(Path(folder).glob("*.json")) if Path(folder).is_dir() else []:
        summary = json.loads(path.read_text())
        runs = summary.get("runs") if isinstance(summary, dict) else None
        if not isinstance(runs, list) or any(key not in summary for key in SUMMARY_KEYS):
            raise ValueError(f"{path}: not a learning summary (needs {', '.join(SUMMARY_KEYS)})")
        if any(not isinstance(run, dict) or any(key not in run for key in RUN_KEYS) for run in runs):
            raise ValueError(f"{path}: a run lacks one of {', '.join(RUN_KEYS)}")
        found.append(summary)
    return found


def games_of(summaries: Sequence[dict[str, Any]]) -> list[str]:
    """The env ids with at least one run in ``summaries``, in first-seen order."""
    return list(dict.fromkeys(run["env_id"] for summary in summaries for run in summary["runs"]))


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _seed_cell(run: dict[str, Any]) -> str:
    if "win_rate" not in run:
        return f"failed (exit {run.get('exit', run.get('eval_exit', '?'))})"
    return f"{run['win_rate']:.3f} [{max(run['win_low'], 0.0):.3f}, {min(run['win_high'], 1.0):.3f}]"


def learning_section(env_id: str, summaries: Sequence[dict[str, Any]]) -> list[str]:
    """The markdown lines of ``env_id``'s learning section (``[]`` when no summary has a run of it)."""
    cells: dict[tuple[float, str], list[dict[str, Any]]] = {}
    settings = set()
    for summary in summaries:
        for run in summary["runs"]:
            if run["env_id"] == env_id and run["method"] in METHODS:
                cells.setdefault((float(summary["budget_s"]), run["method"]), []).append(run)
                settings.add((summary["eval_games"], summary["eval_seed"]))
    if not cells:
        return []
    players = pirate_envs.game_spec(env_id).default_players
    seeds = sorted({run["seed"] for runs in cells.values() for run in runs})
    evaluation = "; ".join(f"{games} duplicate games, seed {seed}" for games, seed in sorted(settings))
    lines = [
        "## Learning methods over training seeds",
        "",
        f"Each run learned from scratch at {players} players against heuristics in the other seats, for the "
        f"CPU budget given, then played against {_plural(players - 1, 'heuristic')} ({evaluation}; chance "
        f"{1 / players:.2f}). Each cell: the win rate with its 95% interval over deals; the last column, the "
        "CPU seconds each run really used (training and its evaluations, read from the operating system). "
        "These are short runs comparing the methods at one budget, not the shipped agents' recipes (each "
        "shipped network comes from one training seed of a longer recipe). Made by "
        "`benchmarks/learners_equal_budget.py`; the summaries are in `docs/results/learning/`.",
        "",
        "| CPU budget per run | method | "
        + " | ".join(f"seed {seed}" for seed in seeds)
        + " | mean over seeds (lowest, highest) | CPU-s used per run |",
        "|---|---|" + "---|" * len(seeds) + "---|---|",
    ]
    for budget, method in sorted(cells, key=lambda key: (key[0], list(METHODS).index(key[1]))):
        runs = {run["seed"]: run for run in cells[budget, method]}
        rates = [run["win_rate"] for run in runs.values() if "win_rate" in run]
        spread = f"{statistics.fmean(rates):.3f} ({min(rates):.3f}, {max(rates):.3f})" if rates else "—"
        used = ", ".join(f"{runs[seed]['cpu_s']:.0f}" for seed in seeds if seed in runs)
        row = [f"{budget:.0f} s", METHODS[method], *(_seed_cell(runs[s]) if s in runs else "—" for s in seeds)]
        lines.append("| " + " | ".join([*row, spread, used]) + " |")
    return [*lines, ""]


__all__ = ["METHODS", "games_of", "learning_section", "load_summaries"]
