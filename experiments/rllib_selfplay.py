"""Multi-agent self-play on Ray RLlib (new API stack): one shared, masked learning policy and a league.

    python -m experiments.rllib_selfplay --env-id skull_king_v0 --num-players 4 --iterations 20 --out runs/rllib-sk

Every seat of a game is an RLlib agent of `experiments.rllib_env.LeagueEnv` (RLlib's
PettingZoo wrapper with masked observations). The learner (RLModule ``learner``, PPO that
masks illegal actions: `experiments.rllib_module`) takes one random seat per game; every other seat is the
learner again (``self``), a frozen snapshot (``snapshot``) or an agent of ``agents.registry``
moving inside the env (``heuristic``, ``random``, ``ppo:<file>``), drawn by ``--opponents``.

League schedule: ``--num-snapshots`` slots start as copies of the untrained learner; every
``--snapshot-every`` iterations the learner's weights are copied into the next slot in turn
(the oldest is replaced), so the frozen opponents trail the learner by up to
``num_snapshots * snapshot_every`` iterations. Snapshots are never trained.

Every value is checked before Ray starts (the shared checks of `experiments.cli`); a bad
one ends the command with one line naming it and exit status 2.

Each iteration prints one progress line and appends it to ``<out>/progress.csv``. At the end
the learner's actor is exported to ``<out>/agent.npz`` in the project's data-only format, so
``ppo:<out>/agent.npz`` plays it in ``experiments.evaluate`` and ``experiments.play``.

Cluster: start Ray on the head node (``ray start --head``) and on each worker node
(``ray start --address=<head>:6379``), then run this command on the head with
``--address auto`` and as many ``--num-env-runners`` as there are CPUs to spare
(``--num-cpus`` is then ignored: the cluster's resources count).
"""

from __future__ import annotations

import csv
import json
import logging
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(__name__, ("torch", "rllib"), ("ray", "rllib"))

import numpy as np

import pirate_envs
from agents.checkpoint import write_atomic
from agents.selfplay.opponents import parse_weights
from experiments.cli import MAX_SEED, check_env_id, check_fields, check_folder, check_weights, parse_args
from experiments.rllib_env import LEARNER, LeagueEnv, module_of, snapshot_module

#: The env name registered with Ray's registry.
ENV_NAME = "pirate_envs_league"
#: The exported agent's file name inside ``--out``.
AGENT_FILE = "agent.npz"


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
    reward_mode: str = field(default="win", metadata={"help": "win or score", "choices": ["win", "score"]})
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


def check_args(args: Args) -> tuple[dict[str, float], dict[str, Any]]:
    """``ValueError`` (one line) for arguments that cannot make a run; runs before Ray starts.
    Returns `league_inputs`."""
    check_fields(args)
    check_env_id(args.env_id)
    check_weights(args.opponents, "--opponents")
    if args.minibatch_size > args.train_batch_size:
        raise ValueError(
            f"--minibatch-size {args.minibatch_size} must be at most --train-batch-size {args.train_batch_size}"
        )
    check_folder(args.out, "--out")
    try:
        LeagueEnv(league_config(args, *league_inputs(args)))  # checks the table size and the agent names
    except (ValueError, TypeError) as error:
        raise ValueError(str(error)) from None
    return league_inputs(args)


def league_inputs(args: Args) -> tuple[dict[str, float], dict[str, Any]]:
    """The opponent weights and the env options of ``args``."""
    return parse_weights(args.opponents), {} if args.num_players is None else {"num_players": args.num_players}


def league_config(args: Args, weights: dict[str, float], env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The ``env_config`` of `LeagueEnv`."""
    return {
        "env_id": args.env_id,
        "env_kwargs": env_kwargs,
        "reward_mode": args.reward_mode,
        "opponents": weights,
        "num_snapshots": args.num_snapshots,
    }


def build_config(args: Args, env_config: dict[str, Any]) -> Any:
    """The PPO config: the masked learner, frozen snapshot modules, the league mapping."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from experiments.rllib_module import MaskedPPOModule

    model = {
        "fcnet_hiddens": list(args.hidden),
        "fcnet_activation": "tanh",
        "head_fcnet_hiddens": [],
        "vf_share_layers": False,  # separate actor and critic, as experiments.train
    }
    modules = [LEARNER] + [snapshot_module(i) for i in range(args.num_snapshots)]
    specs = {m: RLModuleSpec(module_class=MaskedPPOModule, model_config=model) for m in modules}
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions (illegal moves end the game): off
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_env_runner)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            entropy_coeff=args.entropy_coeff,
        )
        .multi_agent(policies=set(modules), policy_mapping_fn=module_of, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=args.seed)
    )


def copy_learner_to(algo: Any, slots: list[int]) -> None:
    """Freeze the learner's current weights into the given snapshot slots, in the learner and every env runner."""
    component = f"learner/rl_module/{LEARNER}"
    full = algo.learner_group.get_state(components=component)["learner"]["rl_module"][LEARNER]
    acting = algo.learner_group.get_state(components=component, inference_only=True)["learner"]["rl_module"][LEARNER]
    algo.learner_group.set_state({"learner": {"rl_module": {snapshot_module(slot): full for slot in slots}}})
    # Algorithm.set_state would skip env runners whose weights' sequence number is current; set them directly
    modules = {"rl_module": {snapshot_module(slot): acting for slot in slots}}
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.set_state(modules), local_env_runner=True)


def export_actor(module: Any) -> Any:
    """The actor of a PPO RLModule (its encoder's actor MLP and the policy head) as a numpy MlpPolicy."""
    import torch

    from agents.mlp import MlpPolicy

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", encoder)
    weights, biases, activation = [], [], "Identity"
    for part in (actor, module.pi):
        for layer in part.modules():
            if isinstance(layer, torch.nn.Linear):
                weights.append(layer.weight.detach().cpu().numpy().T.astype(np.float32).copy())
                biases.append(layer.bias.detach().cpu().numpy().astype(np.float32).copy())
            elif type(layer).__name__ in ("Tanh", "ReLU"):
                activation = type(layer).__name__
    return MlpPolicy(weights, biases, activation)


def save_learner(algo: Any, args: Args, env_kwargs: dict[str, Any], figures: dict[str, Any]) -> Path:
    """Write the learner's actor to ``<out>/agent.npz`` in the data-only format."""
    from agents.checkpoint import layout_pieces, make_header, save_agent

    raw = pirate_envs.make(args.env_id, raw=True, **env_kwargs)
    num_players = len(raw.possible_agents)
    policy = export_actor(algo.get_module(LEARNER))
    header = make_header(
        args.env_id,
        {"num_players": num_players, **env_kwargs},
        layout_pieces(raw.observation_layout),
        raw.num_actions,
        policy,
        player_counts=[num_players],
        reward_mode=args.reward_mode,
        training={
            "command": "python -m experiments.rllib_selfplay " + " ".join(sys.argv[1:]),
            "timesteps": figures.get("env_steps"),
            "figures": figures,
        },
    )
    return save_agent(Path(args.out) / AGENT_FILE, policy, header)


def progress_row(iteration: int, result: dict[str, Any], seconds: float, snapshots: int) -> dict[str, Any]:
    """One progress line from an RLlib result: moves (of all RLlib agents, of the learner), its return, losses."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(LEARNER, {})
    returns = runners.get("module_episode_returns_mean", {})
    return {
        "iteration": iteration,
        "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),  # moves of RLlib agents
        "learner_steps": int(runners.get("num_module_steps_sampled_lifetime", {}).get(LEARNER, 0)),  # its moves
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "learner_return": float(returns.get(LEARNER, float("nan"))),
        "episode_len": float(runners.get("episode_len_mean", float("nan"))),
        "policy_loss": float(learner.get("policy_loss", float("nan"))),
        "entropy": float(learner.get("entropy", float("nan"))),
        "snapshots_taken": snapshots,
        "seconds": round(seconds, 2),
    }


def train(args: Args, weights: dict[str, float], env_kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Train on the running Ray instance, export the learner; the algorithm (to stop) and the last progress row."""
    from ray.tune.registry import register_env

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "config.json", json.dumps(asdict(args), indent=2))
    register_env(ENV_NAME, LeagueEnv)
    algo = build_config(args, league_config(args, weights, env_kwargs)).build_algo()
    copy_learner_to(algo, list(range(args.num_snapshots)))  # the league starts from the untrained learner
    start, snapshots, row = time.perf_counter(), 0, {}
    with (out / "progress.csv").open("w", newline="") as file:
        writer = None
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            if iteration % args.snapshot_every == 0:
                copy_learner_to(algo, [snapshots % args.num_snapshots])
                snapshots += 1
            row = progress_row(iteration, result, time.perf_counter() - start, snapshots)
            if writer is None:
                writer = csv.DictWriter(file, fieldnames=list(row))
                writer.writeheader()
            writer.writerow(row)
            file.flush()
            print(
                f"iter {iteration}/{args.iterations}  env steps {row['env_steps']}  "
                f"learner steps {row['learner_steps']}  learner return {row['learner_return']:.3f}  "
                f"snapshots {snapshots}  {row['seconds']:.0f} s",
                flush=True,
            )
    path = save_learner(algo, args, env_kwargs, row)
    print(f"learner exported to {path}: ppo:{path} plays it in experiments.evaluate and experiments.play")
    return algo, row


class _RLlibOwnDeprecation(logging.Filter):
    """Drops the one deprecation notice that RLlib's ``RLModule.__init__`` raises about itself.

    RLlib's module constructor builds its own ``RLModuleConfig`` (deprecated in RLlib) for every
    module, whatever the caller passes; no call of this command uses it, so the notice only misleads.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "RLModule(config=[RLModuleConfig object])" not in record.getMessage()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(Args, argv, check=check_args)
    weights, env_kwargs = league_inputs(args)
    import ray

    logging.getLogger("ray._common.deprecation").addFilter(_RLlibOwnDeprecation())

    if args.address is None:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    else:
        ray.init(address=args.address)
    try:
        algo, row = train(args, weights, env_kwargs)
        algo.stop()
    finally:
        ray.shutdown()
    return row


if __name__ == "__main__":
    main()
