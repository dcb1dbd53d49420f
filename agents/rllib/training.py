"""Training on Ray RLlib (new API stack): one shared, masked learning policy and a league of snapshots.

`RLlibPlan` holds one run (``experiments.rllib_selfplay`` builds it from its command line).
`build_config` makes the PPO config: the learner (`agents.rllib.module.MaskedPPOModule`),
``num_snapshots`` frozen copies of it, and the mapping of `agents.rllib.env.LeagueEnv`'s
agents to them. League schedule: the snapshot slots start as copies of the untrained learner;
every ``snapshot_every`` iterations the learner's weights are copied into the next slot in turn
(the oldest is replaced, `copy_learner_to`), so the frozen opponents trail the learner by up
to ``num_snapshots * snapshot_every`` iterations. Snapshots are never trained.

`train` runs on a started Ray: each iteration adds a row to ``<out>/progress.csv`` (and, with
``log``, one progress line); at the end the learner's actor is exported to ``<out>/agent.npz``
in the project's data-only format (`export_actor`, `save_learner`). `run` starts Ray, trains
and shuts Ray down.
"""

from __future__ import annotations

import csv
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.rllib.env import LEARNER, LeagueEnv, module_of, snapshot_module
from pirate_envs.core.files import write_atomic

#: The env name registered with Ray's registry.
ENV_NAME = "pirate_envs_league"
#: The exported agent's file name inside the run folder.
AGENT_FILE = "agent.npz"


@dataclass(frozen=True)
class RLlibPlan:
    """One RLlib self-play run: the league, the PPO settings, the Ray resources and the outputs."""

    env_id: str
    #: The game's options (the table size among them when one is given).
    env_kwargs: Mapping[str, Any]
    #: ``{kind: weight}`` of the other seats: ``self``, ``snapshot`` or agent names.
    opponents: Mapping[str, float]
    iterations: int
    out: Path
    seed: int = 0
    num_snapshots: int = 3
    snapshot_every: int = 5
    reward_mode: str = "win"
    hidden: tuple[int, ...] = (64, 64)
    train_batch_size: int = 4000
    minibatch_size: int = 256
    num_epochs: int = 4
    lr: float = 3e-4
    entropy_coeff: float = 0.0
    num_env_runners: int = 0
    envs_per_env_runner: int = 1
    #: CPUs of a local Ray (ignored with ``address``); ``address``: a running cluster's.
    num_cpus: int = 2
    address: str | None = None
    #: Written to ``<out>/config.json`` (the command's arguments).
    config: Mapping[str, Any] = field(default_factory=dict)
    #: The command line recorded in the agent file's header.
    command: str | None = None

    def league_config(self) -> dict[str, Any]:
        """The ``env_config`` of `LeagueEnv`."""
        return {
            "env_id": self.env_id,
            "env_kwargs": dict(self.env_kwargs),
            "reward_mode": self.reward_mode,
            "opponents": dict(self.opponents),
            "num_snapshots": self.num_snapshots,
        }


def build_config(plan: RLlibPlan) -> Any:
    """The PPO config: the masked learner, frozen snapshot modules, the league mapping."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib.module import MaskedPPOModule

    model = {
        "fcnet_hiddens": list(plan.hidden),
        "fcnet_activation": "tanh",
        "head_fcnet_hiddens": [],
        "vf_share_layers": False,  # separate actor and critic, as experiments.train
    }
    modules = [LEARNER] + [snapshot_module(i) for i in range(plan.num_snapshots)]
    specs = {m: RLModuleSpec(module_class=MaskedPPOModule, model_config=model) for m in modules}
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions (illegal moves end the game): off
        .environment(ENV_NAME, env_config=plan.league_config(), disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=plan.num_env_runners, num_envs_per_env_runner=plan.envs_per_env_runner)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=plan.train_batch_size,
            minibatch_size=plan.minibatch_size,
            num_epochs=plan.num_epochs,
            lr=plan.lr,
            entropy_coeff=plan.entropy_coeff,
        )
        .multi_agent(policies=set(modules), policy_mapping_fn=module_of, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=plan.seed)
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

    from agents.policy.mlp import MlpPolicy

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


def save_learner(algo: Any, plan: RLlibPlan, figures: dict[str, Any]) -> Path:
    """Write the learner's actor to ``<out>/agent.npz`` in the data-only format."""
    from agents.policy.checkpoint import layout_pieces, make_header, save_agent

    raw = pirate_envs.make(plan.env_id, raw=True, **plan.env_kwargs)
    num_players = len(raw.possible_agents)
    policy = export_actor(algo.get_module(LEARNER))
    header = make_header(
        plan.env_id,
        {"num_players": num_players, **plan.env_kwargs},
        layout_pieces(raw.observation_layout),
        raw.num_actions,
        policy,
        player_counts=[num_players],
        reward_mode=plan.reward_mode,
        training={
            "command": plan.command,
            "timesteps": figures.get("env_steps"),
            "figures": figures,
        },
    )
    return save_agent(plan.out / AGENT_FILE, policy, header)


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


def train(plan: RLlibPlan, log: Callable[[str], None] | None = None) -> tuple[Any, dict[str, Any]]:
    """Train on the running Ray instance, export the learner; the algorithm (to stop) and the last progress row.

    ``log`` (when given) takes one line per iteration and one naming the exported agent file.
    """
    from ray.tune.registry import register_env

    out = plan.out
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "config.json", json.dumps(dict(plan.config), indent=2))
    register_env(ENV_NAME, LeagueEnv)
    algo = build_config(plan).build_algo()
    copy_learner_to(algo, list(range(plan.num_snapshots)))  # the league starts from the untrained learner
    start, snapshots, row = time.perf_counter(), 0, {}
    with (out / "progress.csv").open("w", newline="") as file:
        writer = None
        for iteration in range(1, plan.iterations + 1):
            result = algo.train()
            if iteration % plan.snapshot_every == 0:
                copy_learner_to(algo, [snapshots % plan.num_snapshots])
                snapshots += 1
            row = progress_row(iteration, result, time.perf_counter() - start, snapshots)
            if writer is None:
                writer = csv.DictWriter(file, fieldnames=list(row))
                writer.writeheader()
            writer.writerow(row)
            file.flush()
            if log is not None:
                log(
                    f"iter {iteration}/{plan.iterations}  env steps {row['env_steps']}  "
                    f"learner steps {row['learner_steps']}  learner return {row['learner_return']:.3f}  "
                    f"snapshots {snapshots}  {row['seconds']:.0f} s"
                )
    path = save_learner(algo, plan, row)
    if log is not None:
        log(f"learner exported to {path}: ppo:{path} plays it in experiments.evaluate and experiments.play")
    return algo, row


class _RLlibOwnDeprecation(logging.Filter):
    """Drops the one deprecation notice that RLlib's ``RLModule.__init__`` raises about itself.

    RLlib's module constructor builds its own ``RLModuleConfig`` (deprecated in RLlib) for every
    module, whatever the caller passes; no call of this library uses it, so the notice only misleads.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "RLModule(config=[RLModuleConfig object])" not in record.getMessage()


def run(plan: RLlibPlan, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Start Ray (locally with ``num_cpus``, or join ``address``), `train`, stop; the last progress row."""
    import ray

    logging.getLogger("ray._common.deprecation").addFilter(_RLlibOwnDeprecation())
    if plan.address is None:
        ray.init(num_cpus=plan.num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    else:
        ray.init(address=plan.address)
    try:
        algo, row = train(plan, log)
        algo.stop()
    finally:
        ray.shutdown()
    return row
