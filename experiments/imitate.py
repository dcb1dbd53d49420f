"""Distil a teacher agent's moves into the project's MLP policy by supervised learning (DAgger).

    python -m experiments.imitate --env-id piraten_kapern_v0 --teacher oracle --num-players 2 3 4 5 --out kapern.npz

Round 1 records the teacher in every seat; every later round (DAgger) lets the student move with
probability ``--student-share``, still labelled with the teacher's choice; a torch MLP learns by
masked cross-entropy. The result is one data-only agent file (``ppo:<out>`` plays it); the agreement
on a held-out 5% is printed every round. The library is `agents.training.imitation`. Bad values end
the command before any work with one line and exit status 2. Needs the ``train`` extra. The rounds,
the training, the observation and the file: ``docs/guides/training.md`` ("Imitation").
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"), ("matplotlib", "train"), ("numba", "train"))

import pirate_envs
from agents.policy.checkpoint import SUFFIX
from agents.training.imitation import ImitationPlan, imitate
from experiments.cli import (
    MAX_SEED,
    check_agents,
    check_cpus,
    check_env_id,
    check_fields,
    check_network_size,
    check_output_file,
    games_epilog,
    parse_env_kwargs,
    parse_plan,
    table_envs,
)


@dataclass
class ImitateArgs:
    """Distil a teacher agent into an MLP policy (data-only agent file) by supervised learning."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    teacher: str = field(default="oracle", metadata={"help": "the agent whose moves are learned (names below)"})
    num_players: list[int] = field(
        default_factory=list, metadata={"help": "table sizes of the games (none: every count the game allows)"}
    )
    env_kwargs: list[str] = field(default_factory=list, metadata={"help": "more env arguments, key=value"})
    games: int = field(default=2000, metadata={"help": "games played per round", "min": 1})
    rounds: int = field(
        default=1, metadata={"help": "rounds: the first with the teacher alone, each later one DAgger", "min": 1}
    )
    student_share: float = field(
        default=0.5,
        metadata={"help": "probability that the student makes a move in a DAgger round (0..1)", "min": 0, "max": 1},
    )
    epochs: int = field(default=10, metadata={"help": "passes over the data per round", "min": 1})
    batch_size: int = field(default=512, metadata={"help": "minibatch size", "min": 1})
    learning_rate: float = field(
        default=1e-3, metadata={"help": "Adam step size (cosine decay within a round)", "above": 0}
    )
    net_arch: list[int] = field(default_factory=lambda: [256, 256], metadata={"help": "hidden layer sizes", "min": 1})
    activation: str = field(default="ReLU", metadata={"help": "of the hidden layers", "choices": ["ReLU", "Tanh"]})
    action_features: bool = field(
        default=True,
        metadata={"help": "score actions from the game's action features too, where it defines them"},
    )
    seed: int = field(
        default=1,
        metadata={"help": "seed of the games, the student's moves, the split and torch", "min": 0, "max": MAX_SEED},
    )
    torch_threads: int = field(default=1, metadata={"help": "torch intra-op threads", "min": 1})
    out: str = field(default="runs/imitate/agent.npz", metadata={"help": f"the agent file to write ({SUFFIX})"})


def plan_of(args: ImitateArgs, command: str | None = None) -> ImitationPlan:
    """The run of ``args``; ``ValueError`` (one line) for arguments that cannot make one. Runs before any work.

    The table sizes are ``--num-players`` or every count the game allows; the env options are
    ``--env-kwargs`` over ``table_layout="max"``.
    """
    check_fields(args)
    game = check_env_id(args.env_id)
    options = {"table_layout": "max", **parse_env_kwargs(args.env_kwargs, {"num_players": "--num-players"})}
    sizes = list(args.num_players) or list(game.player_counts)
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"--num-players {' '.join(map(str, sizes))}: a table size is repeated")
    tables = table_envs(game, sizes, lambda players: {**options, "num_players": players}, args.env_kwargs)
    for players, env in tables.items():
        check_agents([args.teacher], args.env_id, players, "--teacher", env=env)
    env = next(iter(tables.values()))  # table_layout="max": one observation size for every table
    check_network_size(args.net_arch, env.observation_layout.size, env.num_actions, critic=False)
    check_cpus(args.torch_threads, "--torch-threads")
    if not args.out.endswith(SUFFIX):
        raise ValueError(f"--out {args.out!r} must end in {SUFFIX} (the data-only agent format)")
    check_output_file(args.out, "--out")
    return ImitationPlan(
        env_id=args.env_id,
        teacher=args.teacher,
        table_sizes=tuple(sizes),
        env_options=options,
        out=Path(args.out),
        games=args.games,
        rounds=args.rounds,
        student_share=args.student_share,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        net_arch=tuple(args.net_arch),
        activation=args.activation,
        action_features=args.action_features,
        seed=args.seed,
        torch_threads=args.torch_threads,
        command=command,
    )


def main(argv: list[str] | None = None) -> Path:
    words = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "experiments.imitate", *words])
    _, plan = parse_plan(ImitateArgs, lambda args: plan_of(args, command), argv, epilog=games_epilog())
    path = imitate(plan, log=lambda line: print(line, flush=True))
    print(f"wrote {path} (ppo:{path} plays it)")
    return path


if __name__ == "__main__":
    main()
