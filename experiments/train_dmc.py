"""Train a Deep Monte-Carlo (DMC) agent on the batched engine, for a budget of decisions or CPU seconds.

    python -m experiments.train_dmc --env-id lucky_pirate_v0 --num-players 4 --opponent heuristic \\
        --max-cpu-s 600 --out runs/dmc/lucky_pirate_4p.npz

DouZero's method: a Q(s, a) network over the observation and each action's feature row (the
game's action features where it defines them, else the one-hot of the action id), regressed onto
the Monte-Carlo returns of whole games played by epsilon-greedy actors (``--epsilon``) in
``--num-games`` batched games at once (`pirate_envs.vector`). ``--opponent self``: every seat is
the learner; an agent name with a batched form (``heuristic``, ``random``, ``ppo:<file>``,
``dmc:<file>``): the learner sits one random seat of each game. The run stops after
``--total-steps`` learner decisions or ``--max-cpu-s`` CPU seconds of this process, whichever
comes first, and writes one data-only agent file (``agents.policy.checkpoint``, atomically) that
``dmc:<out>`` (or ``ppo:<out>``) plays; ``--curve`` also writes the logged points as JSON.

A command of its own rather than a flag of ``experiments.train``: almost every option there
(rollout length, clipping, entropy, snapshots, pipelines, ``--resume``) belongs to PPO and SB3, and
none of them means anything to DMC. The library is `agents.dmc` (`agents.dmc.learner.train` runs an
`agents.dmc.learner.DmcPlan`). Seeded (deals, exploration, torch); ``--torch-threads`` 1 by default.
Bad values end the command before any work with one line and exit status 2. Needs the ``train`` extra.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"), ("numba", "train"))

import pirate_envs
import pirate_envs.vector
from agents.batched import has_batched_form
from agents.dmc.learner import DmcPlan, train
from agents.dmc.rollout import SELF
from agents.policy.checkpoint import SUFFIX
from experiments.cli import (
    MAX_SEED,
    check_agents,
    check_cpus,
    check_env_id,
    check_fields,
    check_memory,
    check_network_size,
    check_output_file,
    check_players,
    default_players,
    games_epilog,
    parse_env_kwargs,
    parse_plan,
)
from pirate_envs.core.files import write_atomic
from pirate_envs.core.rewards import REWARD_MODES


@dataclass
class TrainDmcArgs:
    """Train a Deep Monte-Carlo agent (data-only agent file) on the batched engine."""

    env_id: str = field(default="lucky_pirate_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    num_players: int | None = field(default=None, metadata={"help": "table size (default: the game's)"})
    env_kwargs: list[str] = field(default_factory=list, metadata={"help": "more env arguments, key=value"})
    reward_mode: str = field(
        default="win",
        metadata={
            "help": "what the returns sum: the win reward, score changes or score changes less the others' mean",
            "choices": list(REWARD_MODES),
        },
    )
    opponent: str = field(
        default=SELF, metadata={"help": "self (every seat learns) or an agent with a batched form (names below)"}
    )
    total_steps: int = field(default=1_000_000, metadata={"help": "learner decisions to learn from", "min": 1})
    max_cpu_s: float | None = field(
        default=None, metadata={"help": "stop after this many CPU seconds of the process", "above": 0}
    )
    num_games: int = field(default=256, metadata={"help": "games played at once per round", "min": 1})
    epsilon: float = field(default=0.05, metadata={"help": "exploration rate of the actors (0..1)", "min": 0, "max": 1})
    gamma: float = field(default=1.0, metadata={"help": "discount per game step of the returns", "above": 0, "max": 1})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam step size", "above": 0})
    batch_size: int = field(default=1024, metadata={"help": "minibatch size", "min": 1})
    epochs: int = field(default=1, metadata={"help": "passes over each round's decisions", "min": 1})
    net_arch: list[int] = field(default_factory=lambda: [256, 256], metadata={"help": "hidden layer sizes", "min": 1})
    activation: str = field(default="ReLU", metadata={"help": "of the hidden layers", "choices": ["ReLU", "Tanh"]})
    seed: int = field(
        default=1, metadata={"help": "seed of the deals, exploration and torch", "min": 0, "max": MAX_SEED}
    )
    torch_threads: int = field(default=1, metadata={"help": "torch intra-op threads", "min": 1})
    log_every: int = field(default=10, metadata={"help": "rounds of games between logged points", "min": 1})
    out: str = field(default="runs/dmc/agent.npz", metadata={"help": f"the agent file to write ({SUFFIX})"})
    curve: str | None = field(default=None, metadata={"help": "also write the logged points here (JSON)"})


def plan_of(args: TrainDmcArgs, command: str | None = None) -> DmcPlan:
    """The run of ``args``; ``ValueError`` (one line) for arguments that cannot make one. Runs before any work."""
    check_fields(args)
    check_env_id(args.env_id)
    if args.env_id not in pirate_envs.vector.COVERED_ENV_IDS:
        raise ValueError(f"--env-id {args.env_id}: the batched engine does not cover it")
    reserved = {"num_players": "--num-players", "reward_mode": "--reward-mode"}
    players = args.num_players if args.num_players is not None else default_players(args.env_id)
    check_players(args.env_id, players)
    options = {**parse_env_kwargs(args.env_kwargs, reserved), "num_players": players, "reward_mode": args.reward_mode}
    try:
        env = pirate_envs.make(args.env_id, raw=True, **options)
    except (ValueError, TypeError) as error:
        raise ValueError(f"--env-kwargs {' '.join(args.env_kwargs)}: {error}") from None
    check_network_size(args.net_arch, env.observation_layout.size, env.num_actions, critic=False)
    check_cpus(args.torch_threads, "--torch-threads")
    # each game at once keeps its state, observation (float32) and legal moves; a round keeps every decision
    per_game = 4 * env.observation_layout.size + env.num_actions + 1024
    check_memory(args.num_games * per_game, f"--num-games {args.num_games}: games at once")
    if args.opponent != SELF:
        if not has_batched_form(args.opponent, args.env_id):
            raise ValueError(
                f"--opponent {args.opponent!r}: has no batched form (use self, heuristic, random, ppo:, dmc:)"
            )
        check_agents([args.opponent], args.env_id, players, "--opponent", options)
    for flag, path in (("--out", args.out), ("--curve", args.curve)):
        if path is not None:
            check_output_file(path, flag)
    if not args.out.endswith(SUFFIX):
        raise ValueError(f"--out {args.out!r} must end in {SUFFIX} (the data-only agent format)")
    return DmcPlan(
        env_id=args.env_id,
        env_options=options,
        out=Path(args.out),
        opponent=args.opponent,
        total_steps=args.total_steps,
        max_cpu_s=args.max_cpu_s,
        num_games=args.num_games,
        epsilon=args.epsilon,
        gamma=args.gamma,
        learning_rate=args.learning_rate,
        batch_size=args.batch_size,
        epochs=args.epochs,
        net_arch=tuple(args.net_arch),
        activation=args.activation,
        seed=args.seed,
        torch_threads=args.torch_threads,
        command=command,
        log_every=args.log_every,
    )


def main(argv: list[str] | None = None) -> Path:
    words = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "experiments.train_dmc", *words])
    args, plan = parse_plan(TrainDmcArgs, lambda parsed: plan_of(parsed, command), argv, epilog=games_epilog())
    path, curve = train(plan, log=lambda line: print(line, flush=True))
    if args.curve is not None:
        write_atomic(args.curve, json.dumps({"command": command, "curve": curve}, indent=1))
    print(f"wrote {path} (dmc:{path} plays it)")
    return path


if __name__ == "__main__":
    main()
