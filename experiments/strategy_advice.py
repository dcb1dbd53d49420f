"""Measure each game's advice by intervention and write its statistics for the strategy pages.

    python -m experiments.strategy_advice --env-ids skull_king_v0          # into runs/strategy/stats
    python -m experiments.strategy_advice --out docs/strategy               # the committed statistics

For every game (``--env-ids``) it plays the game's plan (``agents.<game>.advice.PLAN``: the base
agent as it plays, and WITH and WITHOUT each rule of ``agents.<game>.advice.ADVICE``, on the discovery
and the replication seed sets of `agents.analysis.advice.findings`), writes
``<out>/stats/<game>_advice.json`` atomically and prints the game's single-rule exploitability in one
line; ``python -m experiments.strategy_pages --from-stats`` then writes the pages. ``--out`` defaults to
``runs/strategy`` (untracked, like training runs): the committed statistics are made with ``--out
docs/strategy``. ``--seed`` is the discovery set's first seed (the replication set's is a billion more;
0, the default, reproduces the committed figures); ``--games`` plays that many games per arm and seed
set instead of the plan's; ``--rules`` measures only the named rules (a reproduction: the page's figures
came from all of them, and the Holm family is the rules measured). ``--agent`` measures another agent
in the plan's place, at the focal seat and every other (a candidate network, ``ppo:<file.npz>``: how much
each rule lifts it over its own play among copies of itself, before it is shipped). Bad arguments end the
command with one line and exit status 2.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.analysis.advice.findings import (
    REPLICATION_FIRST_SEED,
    AdvicePlan,
    advice_of,
    exploitability_line,
    measure,
    plan_of,
)
from experiments.cli import MAX_SEED, check_agents, check_folder, check_names, default_players, parse_args
from pirate_envs.core.files import write_atomic

ENV_IDS = ("skull_king_v0", "piraten_kapern_v0", "piratenpoker_v0", "lucky_pirate_v0")


@dataclass
class StrategyAdviceArgs:
    """Measure each game's advice by intervention (two seed sets) and write its statistics."""

    out: str = field(default="runs/strategy", metadata={"help": "folder whose stats/ gets <game>_advice.json"})
    games: int = field(default=0, metadata={"help": "games per arm and seed set (0: the plan's)", "min": 0})
    seed: int = field(default=0, metadata={"help": "first seed of the discovery set (0: the committed one)", "min": 0})
    env_ids: list[str] = field(default_factory=lambda: list(ENV_IDS), metadata={"help": "the games to measure"})
    rules: list[str] = field(default_factory=list, metadata={"help": "only these rules (default: all)"})
    agent: str = field(
        default="",
        metadata={"help": "the agent measured, at every seat, instead of the game's plan (e.g. ppo:<file.npz>)"},
    )


def check_args(args: StrategyAdviceArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot run; before any game."""
    for env_id in args.env_ids:
        if env_id not in ENV_IDS:
            raise ValueError(f"--env-ids {env_id!r} has no advice; valid ids: {', '.join(ENV_IDS)}")
    check_names(args.env_ids, "--env-ids")
    check_names(args.rules, "--rules")
    known = {rule.name for env_id in args.env_ids for rule in advice_of(env_id)}
    for name in args.rules:
        if name not in known:
            raise ValueError(f"--rules {name!r} is not a rule of {', '.join(args.env_ids)}")
    games = max([args.games] if args.games else [plan_of(env_id).games for env_id in args.env_ids] or [0])
    last = args.seed + REPLICATION_FIRST_SEED + games - 1
    if last > MAX_SEED:
        raise ValueError(f"--seed {args.seed}: the replication set would end at seed {last:,}, past {MAX_SEED:,}")
    check_folder(args.out, "--out")
    if args.agent:
        for env_id in args.env_ids:
            check_agents([args.agent], env_id, default_players(env_id), "--agent")


def plan_for(env_id: str, agent: str = "") -> AdvicePlan:
    """The game's plan, or with ``agent`` (not empty) that agent at the focal seat and every other."""
    plan = plan_of(env_id)
    return dataclasses.replace(plan, base=agent, opponent=agent, note="") if agent else plan


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run the command; each game's statistics by env id."""
    args = parse_args(StrategyAdviceArgs, argv, check=check_args)
    out = {}
    for env_id in args.env_ids:
        rules = [r for r in advice_of(env_id) if not args.rules or r.name in args.rules]
        if not rules:
            continue
        stats = measure(env_id, plan_for(env_id, args.agent), args.games, rules, args.seed)
        path = Path(args.out) / "stats" / f"{env_id.removesuffix('_v0')}_advice.json"
        write_atomic(path, json.dumps(stats, indent=1, allow_nan=False))
        print(
            f"{env_id}: {len(rules)} rules, {stats['games_per_arm']} games per arm and seed set, "
            f"{stats['cpu_seconds']} CPU s: wrote {path}",
            flush=True,
        )
        print(exploitability_line(stats), flush=True)
        out[env_id] = stats
    return out


if __name__ == "__main__":
    main()
