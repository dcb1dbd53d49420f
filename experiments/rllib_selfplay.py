"""Multi-agent self-play on Ray RLlib (new API stack): one shared, masked learning policy and a league.

    python -m experiments.rllib_selfplay --env-id skull_king_v0 --num-players 4 --iterations 20 --out runs/rllib-sk

Every seat of a game is an RLlib agent of `agents.rllib.env.LeagueEnv` (RLlib's
PettingZoo wrapper with masked observations). The learner (RLModule ``learner``, PPO that
masks illegal actions: `agents.rllib.module`) takes one random seat per game; every other seat is the
learner again (``self``), a frozen snapshot (``snapshot``) or an agent of ``agents.registry``
moving inside the env (``heuristic``, ``random``, ``ppo:<file>``), drawn by ``--opponents``.

A league: ``--num-snapshots`` frozen copies of the learner, refreshed every ``--snapshot-every``
iterations, never trained. Every value is checked before Ray starts (one line, exit status 2); each
iteration appends a line to ``<out>/progress.csv``; the learner ends as ``<out>/agent.npz``
(``ppo:<out>/agent.npz`` plays it). The league, the outputs and running on a cluster:
``docs/guides/rllib.md`` ("The command in detail").
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(__name__, ("torch", "rllib"), ("ray", "rllib"))

import pirate_envs
from agents.rllib.env import LeagueEnv
from agents.rllib.training import RLlibPlan, run
from agents.selfplay.opponents import parse_weights
from experiments.cli import (
    MAX_SEED,
    check_cpus,
    check_env_id,
    check_fields,
    check_folder,
    check_memory,
    check_network_size,
    check_players,
    check_weights,
    default_players,
    network_parameters,
    parse_plan,
)
from pirate_envs.core.rewards import REWARD_MODES


@dataclass
class Args:
    """Multi-agent self-play of one pirate env on Ray RLlib (see the module docstring)."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {list(pirate_envs.ENV_IDS)}"})
    num_players: int | None = field(default=None, metadata={"help": "table size (None: the game's default)", "min": 1})
    iterations: int = field(default=10, metadata={"help": "RLlib training iterations", "min": 1})
    out: str = field(default="runs/rllib", metadata={"help": "output folder (progress.csv, config.json, agent.npz)"})
    seed: int = field(
        default=0, metadata={"help": "seed of the envs, the seating and torch", "min": 0, "max": MAX_SEED}
    )
    opponents: list[str] = field(
        default_factory=lambda: ["snapshot:0.4", "heuristic:0.4", "self:0.2"],
        metadata={"help": "kind:weight of the other seats; kinds: self, snapshot or any agent name"},
    )
    num_snapshots: int = field(default=3, metadata={"help": "frozen snapshot slots in the league", "min": 1})
    snapshot_every: int = field(default=5, metadata={"help": "iterations between snapshots", "min": 1})
    reward_mode: str = field(
        default="win", metadata={"help": "win, score or margin (the env's reward mode)", "choices": list(REWARD_MODES)}
    )
    hidden: list[int] = field(default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes", "min": 1})
    train_batch_size: int = field(default=4000, metadata={"help": "env steps per iteration", "min": 1})
    minibatch_size: int = field(default=256, metadata={"help": "SGD minibatch size", "min": 1})
    num_epochs: int = field(default=4, metadata={"help": "epochs over each batch", "min": 1})
    lr: float = field(default=3e-4, metadata={"help": "Adam step size", "above": 0})
    entropy_coeff: float = field(default=0.0, metadata={"help": "entropy bonus", "min": 0})
    num_env_runners: int = field(default=0, metadata={"help": "remote env runners (0: sample in the driver)", "min": 0})
    envs_per_env_runner: int = field(default=1, metadata={"help": "envs stepped by each env runner", "min": 1})
    num_cpus: int = field(
        default=2, metadata={"help": "CPUs Ray may use on this machine (ignored with --address)", "min": 1}
    )
    address: str | None = field(default=None, metadata={"help": "Ray cluster address (auto: the running cluster)"})


def plan_of(args: Args) -> RLlibPlan:
    """The run of ``args``; ``ValueError`` (one line) for arguments that cannot make one. Runs before Ray starts."""
    check_fields(args)
    check_env_id(args.env_id)
    players = args.num_players if args.num_players is not None else default_players(args.env_id)
    check_players(args.env_id, players)
    check_weights(args.opponents, "--opponents")
    if args.minibatch_size > args.train_batch_size:
        raise ValueError(
            f"--minibatch-size {args.minibatch_size} must be at most --train-batch-size {args.train_batch_size}"
        )
    check_folder(args.out, "--out")
    check_machine(args, pirate_envs.make(args.env_id, raw=True, num_players=players))
    plan = RLlibPlan(
        env_id=args.env_id,
        env_kwargs={} if args.num_players is None else {"num_players": args.num_players},
        opponents=parse_weights(args.opponents),
        iterations=args.iterations,
        out=Path(args.out),
        seed=args.seed,
        num_snapshots=args.num_snapshots,
        snapshot_every=args.snapshot_every,
        reward_mode=args.reward_mode,
        hidden=tuple(args.hidden),
        train_batch_size=args.train_batch_size,
        minibatch_size=args.minibatch_size,
        num_epochs=args.num_epochs,
        lr=args.lr,
        entropy_coeff=args.entropy_coeff,
        num_env_runners=args.num_env_runners,
        envs_per_env_runner=args.envs_per_env_runner,
        num_cpus=args.num_cpus,
        address=args.address,
        config=asdict(args),
        command="python -m experiments.rllib_selfplay " + " ".join(sys.argv[1:]),
    )
    try:
        LeagueEnv(plan.league_config())  # checks the agent names
    except (ValueError, TypeError) as error:
        raise ValueError(f"--opponents {' '.join(args.opponents)}: {error}") from None
    return plan


#: The Ray addresses that name no host: start one here, or join the running cluster.
LOCAL_ADDRESSES = ("auto", "local")


def check_machine(args: Args, env: Any) -> None:
    """``ValueError`` (one line) for a network an agent file cannot hold, a league or envs larger than this
    machine's memory, and (Ray started here, no ``--address``) more CPUs or env runners than it has; an
    ``--address`` that is no Ray address."""
    inputs, actions = env.observation_layout.size, env.num_actions
    check_network_size(args.hidden, inputs, actions, "--hidden")
    networks = (args.num_snapshots + 1) * network_parameters(args.hidden, inputs, actions) * 4  # float32 weights
    check_memory(networks, f"--num-snapshots {args.num_snapshots}: the learner and its snapshots")
    envs = max(args.num_env_runners, 1) * args.envs_per_env_runner
    runners = f"--num-env-runners {args.num_env_runners} x --envs-per-env-runner {args.envs_per_env_runner}"
    check_memory(envs * (4 * inputs + actions + 1024), f"{runners}: {envs} envs")
    if args.address is None:
        check_cpus(args.num_cpus, "--num-cpus")
        if args.num_env_runners > args.num_cpus:  # each runner takes a CPU: Ray would wait for them for ever
            raise ValueError(
                f"--num-env-runners {args.num_env_runners}: more than --num-cpus {args.num_cpus} (one CPU each)"
            )
    elif args.address not in LOCAL_ADDRESSES and ":" not in args.address:
        raise ValueError(f"--address {args.address!r}: give auto, local, HOST:PORT or ray://HOST:PORT")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    _, plan = parse_plan(Args, plan_of, argv)
    return run(plan, log=lambda line: print(line, flush=True))


if __name__ == "__main__":
    main()
