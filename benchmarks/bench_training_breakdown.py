"""Where the trainer's CPU goes: CPU time of each phase of its own loop, and learner steps per CPU-second.

    python benchmarks/bench_training_breakdown.py --net-arch 64 64 --rollouts 8 --runs 3
    python benchmarks/bench_training_breakdown.py --net-arch 128 128 --env-kwargs table_layout=max

Builds the model of ``experiments.train`` with its defaults (``LeanMaskablePPO``, ``--num-envs`` games on
the batched engine, the default opponent pool with ``--snapshots`` snapshots of the learner, as a run
holds after ``max_snapshots * snapshot_every`` steps), learns one warm-up rollout (numba compiles), then
times ``--rollouts`` rollouts and their updates with CPU time (``time.process_time``: every thread of this
process), each phase by a wrapper around the trainer's own calls, the time of nested phases taken out of
the phase around them:

* ``ppo update``: ``LeanMaskablePPO.train`` (GAE is in the rollout's end, ``acting``);
* ``engine``: the batched engine's ``VectorEnv.step`` (the learners' and the opponents' moves);
* ``opponents``: every batched agent's ``act_batch`` (snapshots, heuristic, random);
* ``glue``: the rest of the self-play env's ``step_wait``/``reset`` (grouping seats, rewards, ended games);
* ``acting``: the rest of ``learn``: the learner's forward and draw, the rollout buffer, SB3's bookkeeping.

Prints, per run, learner steps per CPU-second of the timed learning and each phase's share, then the
medians over ``--runs`` runs (the machine is shared: quote medians).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import torch

from agents.batched import BatchedPolicyAgent
from agents.policy.agent import policy_from_sb3
from agents.ppo.algorithm import LeanMaskablePPO
from agents.selfplay.batched_vec_env import BatchedSelfPlayVecEnv
from agents.selfplay.opponents import parse_weights
from agents.selfplay.vec_env import make_vec_env
from experiments.train import TrainArgs, policy_spec
from pirate_envs.vector import VectorEnv

#: The phases, in the order printed; ``acting`` is what the others leave of ``learn``.
PHASES = ("ppo update", "acting", "opponents", "glue", "engine")


class PhaseClock:
    """CPU seconds of phases, exclusive: a phase called inside another is taken out of the outer one."""

    def __init__(self, clock: Callable[[], float] = time.process_time) -> None:
        self.clock = clock
        self.spent: dict[str, float] = dict.fromkeys(PHASES, 0.0)
        self._inner: list[float] = []  # per open phase: the CPU seconds of the phases inside it so far

    def timed(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` with its CPU time added to ``phase`` (less that of the timed calls inside it)."""

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = self.clock()
            self._inner.append(0.0)
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = self.clock() - start
                inner = self._inner.pop()
                self.spent[phase] += elapsed - inner
                if self._inner:
                    self._inner[-1] += elapsed

        return wrapper

    def patch(self, owner: Any, name: str, phase: str) -> None:
        """Time ``owner.name`` (a class's method or an instance's) as ``phase``."""
        setattr(owner, name, self.timed(phase, getattr(owner, name)))

    def reset(self) -> None:
        self.spent = dict.fromkeys(PHASES, 0.0)


def build_model(args: argparse.Namespace) -> tuple[LeanMaskablePPO, BatchedSelfPlayVecEnv]:
    """The trainer's model (its defaults; ``--net-arch``, ``--n-epochs``, ``--n-steps``) on ``--num-envs`` games."""
    defaults = TrainArgs()
    defaults.env_id, defaults.num_players, defaults.net_arch = args.env_id, [args.num_players], args.net_arch
    torch.set_num_threads(defaults.torch_threads)
    env_kwargs = {"num_players": args.num_players, **args.env_kwargs}
    vec = make_vec_env(
        args.env_id, args.num_envs, 0, seed=args.seed, opponents=parse_weights(defaults.opponents),
        env_kwargs=env_kwargs, engine="batched",
    )  # fmt: skip
    policy, policy_kwargs = policy_spec(defaults)
    n_steps = args.n_steps or defaults.n_steps * defaults.num_envs // args.num_envs
    model = LeanMaskablePPO(
        policy, vec, n_steps=n_steps, batch_size=defaults.batch_size,
        n_epochs=args.n_epochs, learning_rate=defaults.learning_rate, gamma=defaults.gamma,
        gae_lambda=defaults.gae_lambda, clip_range=defaults.clip_range, ent_coef=defaults.ent_coef,
        policy_kwargs=policy_kwargs, device="cpu", seed=args.seed,
    )  # fmt: skip
    for _ in range(args.snapshots):
        vec.env_method("add_snapshot", policy_from_sb3(model.policy))
    return model, vec


def agent_classes(vec: BatchedSelfPlayVecEnv) -> Iterable[type]:
    """The classes of the batched agents that play the env's tables (snapshots' included)."""
    players = [getattr(table, "players", table.agents) for table in vec.tables]  # before the stack: the agents
    return {type(agent) for seats in players for agent in seats if agent is not None} | {BatchedPolicyAgent}


def timed_run(args: argparse.Namespace) -> tuple[float, dict[str, float]]:
    """Learner steps per CPU-second over ``--rollouts`` rollouts after one warm-up, and each phase's CPU seconds."""
    model, vec = build_model(args)
    rollout = model.n_steps * vec.num_envs
    model.learn(rollout)  # warm-up: numba compiles, the buffers are made
    clock = PhaseClock()
    originals = [(LeanMaskablePPO, "train"), (VectorEnv, "step"), (BatchedSelfPlayVecEnv, "step_wait")]
    originals += [(BatchedSelfPlayVecEnv, "reset"), *((cls, "act_batch") for cls in agent_classes(vec))]
    saved = [(owner, name, owner.__dict__.get(name)) for owner, name in originals]
    phases = {"train": "ppo update", "step": "engine", "step_wait": "glue", "reset": "glue", "act_batch": "opponents"}
    for owner, name in originals:
        clock.patch(owner, name, phases[name])
    try:
        start = time.process_time()
        model.learn(args.rollouts * rollout, reset_num_timesteps=False)
        total = time.process_time() - start
    finally:
        for owner, name, function in saved:
            if function is None:  # inherited: the patch goes, the base class's method shows again
                delattr(owner, name)
            else:
                setattr(owner, name, function)
        vec.close()
    spent = dict(clock.spent)
    spent["acting"] = total - sum(seconds for phase, seconds in spent.items() if phase != "acting")
    return args.rollouts * rollout / total, spent


def key_value(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    return key, int(value) if value.isdigit() else value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-id", default="skull_king_v0")
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument("--env-kwargs", nargs="*", type=key_value, default=[], help="env options, key=value")
    parser.add_argument("--net-arch", type=int, nargs="+", default=TrainArgs().net_arch, help="hidden layer sizes")
    parser.add_argument("--num-envs", type=int, default=TrainArgs().num_envs, help="games on the batched engine")
    parser.add_argument("--snapshots", type=int, default=TrainArgs().max_snapshots, help="snapshots in the pool")
    parser.add_argument(
        "--n-steps", type=int, default=None, help="steps per game a rollout (default: the trainer's rollout size kept)"
    )
    parser.add_argument("--n-epochs", type=int, default=TrainArgs().n_epochs, help="the update's epochs a rollout")
    parser.add_argument("--rollouts", type=int, default=8, help="timed rollouts after the warm-up")
    parser.add_argument("--runs", type=int, default=3, help="runs (medians are printed)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.env_kwargs = dict(args.env_kwargs)
    warnings.filterwarnings("ignore")
    setup = (
        f"{args.env_id} {args.num_players}p {args.env_kwargs or ''} net {'x'.join(map(str, args.net_arch))}, "
        f"{args.num_envs} games, {args.snapshots} snapshots, {args.rollouts} rollouts"
    )
    rates, shares = [], {phase: [] for phase in PHASES}
    for run in range(args.runs):
        rate, spent = timed_run(args)
        total = sum(spent.values())
        rates.append(rate)
        for phase in PHASES:
            shares[phase].append(spent[phase] / total)
        row = ", ".join(f"{phase} {spent[phase] / total:.1%}" for phase in PHASES)
        print(f"run {run + 1}: {rate:8.0f} learner steps per CPU-second ({total:.2f} CPU-s); {row}", flush=True)
    print(f"{setup}: median of {args.runs}: {statistics.median(rates):.0f} learner steps per CPU-second")
    print("| phase | share of CPU (median) | CPU-ms per 1,000 learner steps |")
    print("|---|---|---|")
    per_thousand = 1000 / statistics.median(rates) * 1000
    for phase in PHASES:
        share = statistics.median(shares[phase])
        print(f"| {phase} | {share:.1%} | {share * per_thousand:.1f} |")


if __name__ == "__main__":
    main()
