"""Exploitability probe: train a fresh learner against one frozen agent and report what it wins.

    python -m experiments.best_response --env-id skull_king_v0 --agent heuristic --total-timesteps 200000

A fresh MaskablePPO learner plays a random seat; every other seat is the frozen ``--agent``
(``experiments.train`` with ``--opponents <agent>:1.0``, evaluated against the same agent every
``--eval-every`` steps). The probe is the learner's win rate against that agent above chance
(``1 / players``), with its 95% interval, after a fixed budget of learner steps, and the curve
of evaluations on the way. A probe near zero says the budget found no weakness, not that the
agent has none; compare agents at the same budget. Extra ``experiments.train`` flags go after
``--`` (for example ``-- --num-envs 64 --ent-coef 0.01``); the flags the probe sets itself
(the game, the table, the agent, the budget, the evaluation, the seed, the run folder) are
refused there, and the whole training command is checked before any work. Writes
``best_response.json`` and ``best_response.md`` (atomically) beside the training run's files;
they name the game and table size of the run's ``config.json`` (`agents.evaluation.probe` reads the figures).
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"), ("matplotlib", "train"), ("numba", "train"))

import pirate_envs
from agents.evaluation.probe import ProbePlan, markdown_report, probe_report
from experiments import train
from experiments.cli import (
    MAX_SEED,
    check_agents,
    check_env_id,
    check_fields,
    check_players,
    default_players,
    flag_of,
    games_epilog,
    given_flags,
    parse_args,
    parse_plan,
)
from pirate_envs.core.files import write_atomic


@dataclass
class ProbeArgs:
    """Train a fresh learner against a frozen agent; report its win rate above chance."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agent: str = field(default="heuristic", metadata={"help": "the frozen agent probed (every other seat)"})
    num_players: int | None = field(
        default=None, metadata={"help": "players per game (None: the game's default)", "min": 1}
    )
    total_timesteps: int = field(default=200_000, metadata={"help": "learner steps (the budget)", "min": 1})
    eval_every: int = field(
        default=50_000, metadata={"help": "steps between evaluations (0: only at the end)", "min": 0}
    )
    eval_games: int = field(default=200, metadata={"help": "games per evaluation", "min": 1})
    seed: int = field(default=1, metadata={"help": "seed of the training run", "min": 0, "max": MAX_SEED})
    out_dir: str = field(default="runs", metadata={"help": "parent folder of the run folder"})
    run_name: str | None = field(default=None, metadata={"help": "run folder (default: probe_<env>_<agent>_s<seed>)"})
    train_args: list[str] = field(
        default_factory=list, metadata={"help": "more experiments.train flags (give them after --)"}
    )


#: ``experiments.train`` fields the probe sets: ``{field: the probe's flag that sets it}``.
PROBE_FIELDS = {
    "env_id": "--env-id",
    "num_players": "--num-players",
    "opponents": "--agent",
    "eval_opponents": "--agent",
    "total_timesteps": "--total-timesteps",
    "eval_every": "--eval-every",
    "eval_games": "--eval-games",
    "seed": "--seed",
    "out_dir": "--out-dir",
    "run_name": "--run-name",
    "overwrite": "none: a probe always starts afresh",
    "resume": "none: a probe always trains a fresh learner",
}


def check_args(args: ProbeArgs) -> None:
    """``ValueError`` (one line) for a game, table, agent or training flag that cannot make a probe.

    The training command is checked too (`experiments.train.check_args`), before any work.
    """
    check_fields(args)
    train.check_run_name(args.run_name)
    check_env_id(args.env_id)
    players = args.num_players or default_players(args.env_id)
    check_players(args.env_id, players)
    check_agents([args.agent], args.env_id, players, "--agent")
    owned = sorted(given_flags(train.TrainArgs, args.train_args) & set(PROBE_FIELDS))
    if owned:
        raise ValueError(f"-- {flag_of(owned[0])}: the probe sets it; use {PROBE_FIELDS[owned[0]]}")
    train.check_args(parse_args(train.TrainArgs, train_argv(args)))


def run_name(args: ProbeArgs) -> str:
    """The default run folder name: the game, the agent (a path's file name) and the seed."""
    agent = args.agent.replace(":", "-").replace("/", "_").replace("#", "-")
    return args.run_name or f"probe_{args.env_id}_{agent}_s{args.seed}"


def train_argv(args: ProbeArgs) -> list[str]:
    """The ``experiments.train`` command line of the probe."""
    argv = [
        "--env-id", args.env_id,
        "--opponents", f"{args.agent}:1.0",
        "--eval-opponents", args.agent,
        "--total-timesteps", str(args.total_timesteps),
        "--eval-every", str(args.eval_every),
        "--eval-games", str(args.eval_games),
        "--seed", str(args.seed),
        "--out-dir", args.out_dir,
        "--run-name", run_name(args),
        "--overwrite",
    ]  # fmt: skip
    if args.num_players:
        argv += ["--num-players", str(args.num_players)]
    return argv + list(args.train_args)


def probe_plan(args: ProbeArgs) -> ProbePlan:
    """The probe of ``args`` (unchecked: `check_args` checks them)."""
    return ProbePlan(args.env_id, args.agent, args.num_players, args.eval_games, tuple(train_argv(args)))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = list(argv) if argv is not None else sys.argv[1:]
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]

    def plan_with_train_args(args: ProbeArgs) -> ProbePlan:
        if args.train_args:  # the flag's words would be dropped for those after --
            raise ValueError(
                f"--train-args {' '.join(args.train_args)}: give experiments.train's flags after -- "
                "(python -m experiments.best_response ... -- --n-steps 256)"
            )
        args.train_args = extra
        check_args(args)
        return probe_plan(args)

    args, plan = parse_plan(ProbeArgs, plan_with_train_args, argv, epilog=games_epilog())
    run_dir = Path(train.main(list(plan.train_argv)))
    report = probe_report(plan, run_dir)
    text = markdown_report(report)
    write_atomic(run_dir / "best_response.json", json.dumps({**report, "args": asdict(args)}, indent=2))
    write_atomic(run_dir / "best_response.md", text + "\n")
    print(text)
    return report


if __name__ == "__main__":
    main()
