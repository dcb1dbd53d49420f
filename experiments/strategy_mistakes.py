"""Where play goes wrong: the regret of the heuristic's and the rule card's decisions, per situation, for the pages.

    python -m experiments.strategy_mistakes --env-ids skull_king_v0      # into runs/strategy/stats
    python -m experiments.strategy_mistakes --out docs/strategy           # the committed statistics

For every game (``--env-ids``) it plays the game's plan (`agents.analysis.mistakes.run.PLANS`: games
per agent and the search budget) of ``heuristic`` and the rule card ``rules:<env_id>``, each at one
seat (rotating) against ``heuristic``, values every decision with two or more legal moves (Kapern:
the exact one-turn oracle; the others: the ``halving`` search at the budget, re-measured on fresh
worlds; `agents.analysis.mistakes.regret`), and writes ``<out>/stats/<game>_mistakes.json``
atomically (``--out`` defaults to ``runs/strategy``, untracked: the committed statistics are made with
``--out docs/strategy``); ``python -m experiments.strategy_pages --from-stats`` then writes the pages' section
"Where play goes wrong". ``--games`` and ``--budget`` replace the plan's (0: the plan's; Kapern has
no budget: its regret is exact). Bad arguments end the command with one line and exit status 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.analysis.mistakes.regret import exact_measure
from agents.analysis.mistakes.run import PLANS, measure, studied_agents
from agents.search.ismcts import MAX_SIMULATIONS
from experiments.cli import check_folder, parse_args
from experiments.evaluate import MAX_GAMES
from pirate_envs.core.files import write_atomic


@dataclass
class StrategyMistakesArgs:
    """Measure where the heuristic and the rule card lose points, per situation, and write the statistics."""

    out: str = field(default="runs/strategy", metadata={"help": "folder whose stats/ gets <game>_mistakes.json"})
    games: int = field(default=0, metadata={"help": "games per agent (0: the plan's; else at least 2)", "min": 0})
    budget: int = field(default=0, metadata={"help": "search rollouts per move (0: the plan's; not Kapern)", "min": 0})
    seed: int = field(default=0, metadata={"help": "seed of the first game", "min": 0})
    env_ids: list[str] = field(default_factory=lambda: list(PLANS), metadata={"help": "the games to measure"})


def check_args(args: StrategyMistakesArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot run; before any game."""
    for env_id in args.env_ids:
        if env_id not in PLANS:
            raise ValueError(f"--env-ids {env_id!r} has no mistakes measure; valid ids: {', '.join(PLANS)}")
    if args.games == 1 or args.games > MAX_GAMES:
        raise ValueError(f"--games {args.games}: intervals over games need 2 to {MAX_GAMES:,} games (0: the plan's)")
    if args.budget > MAX_SIMULATIONS:
        raise ValueError(f"--budget {args.budget}: at most {MAX_SIMULATIONS:,} rollouts per move")
    if args.budget and all(exact_measure(env_id) is not None for env_id in args.env_ids):
        raise ValueError(f"--budget: the regret of {', '.join(args.env_ids)} is exact; it takes no search budget")
    check_folder(args.out, "--out")


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run the command; each game's statistics by env id."""
    args = parse_args(StrategyMistakesArgs, argv, check=check_args)
    out = {}
    for env_id in dict.fromkeys(args.env_ids):
        plan = PLANS[env_id]
        budget = (args.budget or plan.budget) if plan.budget else 0
        stats = measure(env_id, studied_agents(env_id), args.games or plan.games, args.seed, budget)
        path = Path(args.out) / "stats" / f"{env_id.removesuffix('_v0')}_mistakes.json"
        write_atomic(path, json.dumps(stats, indent=1, allow_nan=False))
        print(f"{env_id}: {stats['games']} games per agent, {stats['cpu_seconds']} CPU s: wrote {path}", flush=True)
        out[env_id] = stats
    return out


if __name__ == "__main__":
    main()
