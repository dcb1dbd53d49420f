"""Training throughput: our self-play MaskablePPO beside the PettingZoo SB3 tutorial pattern.

    python benchmarks/bench_training.py --timesteps 65536 --workers 2

Prints learner steps per second of ``MaskablePPO.learn`` (rollouts and gradient updates
together, after one warm-up rollout), and the share of that time spent in the PPO update, for
ours on the batched engine (``skull_king_v0``, 4 players, ``--batched-num-envs`` games in this
process, the defaults of ``experiments.train``), the same pipelined (in a thread, or the update
in a child process), the same with sb3-contrib's own ``MaskablePPO.train``, ours with one game per
env, PettingZoo's ``sb3_connect_four_action_mask.py`` tutorial (needs ``pygame``) and, with
``--rllib``, RLlib's PPO on the same game. All run in this process, one after the other, so the
machine load is comparable.

``--compare-loop N``, ``--compare-fused N`` and ``--compare-pipeline N`` measure only the batched
path, paired, ``N`` times: the trainer against our own loop (``agents.ppo.algorithm.PPOLoop``),
the fused first layers off and on, serial against pipelined; each prints the medians, the median
of the paired ratios and the cores the process used.

What each row runs, and how to read the paired figures: ``docs/guides/training.md``
("Throughput beside the tutorial").
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time
import warnings
from typing import Any, NamedTuple

import gymnasium
import torch
from pettingzoo.utils import BaseWrapper
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

from agents.policy.agent import policy_from_sb3
from agents.ppo.algorithm import LeanMaskablePPO, PPOLoop, PPOSettings, sb3_forward
from agents.selfplay.opponents import SELF, parse_weights, split_weight
from agents.selfplay.vec_env import make_vec_env
from experiments.train import TrainArgs, policy_spec

#: Games of the batched path (the module docstring says why).
BATCHED_NUM_ENVS = 256


class SB3ActionMaskWrapper(BaseWrapper, gymnasium.Env):
    """The wrapper of PettingZoo's SB3 action-mask tutorial, unchanged in substance."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (
            self.observe(next_agent),
            self._cumulative_rewards[current_agent],
            self.terminations[current_agent],
            self.truncations[current_agent],
            self.infos[current_agent],
        )

    def observe(self, agent: str) -> Any:
        return super().observe(agent)["observation"]

    def action_mask(self) -> Any:
        return super().observe(self.agent_selection)["action_mask"]


class Timing(NamedTuple):
    """Learner steps per second, the share of the time spent in the update, and the cores used
    (the process's CPU seconds, all threads, per second: a pipelined run on two free cores nears 2)."""

    rate: float
    update_share: float
    cores: float


def timed_learn(model: MaskablePPO, timesteps: int, warmup: int) -> Timing:
    """Steps per second of ``learn(timesteps)`` after a ``warmup``-step run, and the share of
    that time spent in the PPO update (``model.train``; pipelined: waiting for it, ``model.settle``)."""
    model.learn(warmup)
    name = "settle" if isinstance(model, LeanMaskablePPO) and model.pipelined() else "train"
    update = getattr(model, name)
    spent = 0.0

    def timed_update() -> None:
        nonlocal spent
        begin = time.perf_counter()
        update()
        spent += time.perf_counter() - begin

    setattr(model, name, timed_update)
    start, cpu = time.perf_counter(), cpu_seconds()
    model.learn(timesteps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    return Timing(timesteps / elapsed, spent / elapsed, (cpu_seconds() - cpu) / elapsed)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended (the update's child process stops at the
    end of each ``learn``)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def timed_loop(loop: PPOLoop, timesteps: int) -> Timing:
    """Steps per second of our loop's ``collect`` and ``update`` over ``timesteps`` steps after one
    warm-up rollout, and the share of that time spent in the update (GAE included)."""
    loop.collect()
    loop.update()
    spent, start, cpu, target = 0.0, time.perf_counter(), time.process_time(), loop.num_timesteps + timesteps
    steps = loop.num_timesteps
    while loop.num_timesteps < target:
        loop.collect()
        begin = time.perf_counter()
        loop.update()
        spent += time.perf_counter() - begin
    elapsed = time.perf_counter() - start
    return Timing((loop.num_timesteps - steps) / elapsed, spent / elapsed, (time.process_time() - cpu) / elapsed)


def bench_ours(
    timesteps: int,
    num_envs: int,
    workers: int,
    threads: int,
    env_id: str,
    num_players: int,
    engine: str = "single",
    update: str = "lean",
    fused: bool = True,
    pipeline: bool = False,
    pipeline_in: str = "thread",
) -> Timing:
    """``update``: ``lean`` (the trainer's ``LeanMaskablePPO``), ``sb3`` (``MaskablePPO``) or ``loop``
    (our loop, `agents.ppo.algorithm.PPOLoop`, on ``LeanMaskablePPO``'s network and settings); ``fused``:
    ``LeanMaskablePPO.fuse_forward`` (off: the policy's own modules in the update and the rollout);
    ``pipeline``: ``LeanMaskablePPO.pipeline`` (the update beside the next rollout, `agents.ppo.pipeline`), in a
    thread or a child process (``pipeline_in``, `agents.ppo.process_pipeline`)."""
    defaults = TrainArgs()
    torch.set_num_threads(threads)
    vec = make_vec_env(
        env_id,
        num_envs,
        workers,
        seed=0,
        opponents=parse_weights(defaults.opponents),
        env_kwargs={"num_players": num_players},
        engine=engine,
    )
    defaults.env_id, defaults.num_players = env_id, num_players
    policy, policy_kwargs = policy_spec(defaults)
    model = (MaskablePPO if update == "sb3" else LeanMaskablePPO)(
        policy,
        vec,
        n_steps=max(1, defaults.n_steps * defaults.num_envs // num_envs),
        batch_size=defaults.batch_size,
        n_epochs=defaults.n_epochs,
        policy_kwargs=policy_kwargs,
        device="cpu",
        seed=0,
    )
    if isinstance(model, LeanMaskablePPO):
        model.fuse_forward, model.pipeline, model.pipeline_in = fused, pipeline, pipeline_in
    vec.env_method("add_snapshot", policy_from_sb3(model.policy))
    if update == "loop":
        settings = PPOSettings(model.n_epochs, model.batch_size, clip_range=model.clip_range(1.0))
        policy = model.policy
        loop = PPOLoop(
            sb3_forward(policy), policy.parameters(), policy.optimizer, vec, model.n_steps, model.gamma,
            model.gae_lambda, settings,
        )  # fmt: skip
        rate = timed_loop(loop, timesteps)
    else:
        rate = timed_learn(model, timesteps, model.n_steps * num_envs)
    vec.close()
    return rate


def bench_tutorial(timesteps: int, threads: int) -> Timing:
    from pettingzoo.classic import connect_four_v3

    torch.set_num_threads(threads)
    env = SB3ActionMaskWrapper(connect_four_v3.env())
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO("MlpPolicy", env, device="cpu", seed=0)
    return timed_learn(model, timesteps, model.n_steps)


def rllib_opponent(spec: str, snapshot: str) -> str:
    """A ``name[:weight]`` of train's opponent pool in RLlib's words: train's ``self`` is RLlib's ``snapshot``."""
    name, weight = split_weight(spec)
    return f"{snapshot}:{weight:g}" if name == SELF else spec


def bench_rllib(
    timesteps: int, env_id: str, num_players: int, env_runners: int, envs_per_runner: int, cpus: int
) -> float:
    import ray
    from ray.tune.registry import register_env

    from agents.rllib.env import LEARNER, SNAPSHOT, LeagueEnv
    from agents.rllib.training import ENV_NAME, build_config
    from experiments import rllib_selfplay
    from experiments.cli import parse_plan

    defaults = TrainArgs()
    pool = [rllib_opponent(spec, SNAPSHOT) for spec in defaults.opponents]
    argv = [
        "--env-id", env_id, "--num-players", str(num_players), "--seed", "0", "--num-snapshots", "1",
        "--train-batch-size", str(defaults.n_steps * defaults.num_envs), "--minibatch-size", str(defaults.batch_size),
        "--num-epochs", str(defaults.n_epochs), "--lr", str(defaults.learning_rate),
        "--hidden", *map(str, defaults.net_arch), "--opponents", *pool,
        "--num-env-runners", str(env_runners), "--envs-per-env-runner", str(envs_per_runner),
    ]  # fmt: skip
    _, plan = parse_plan(rllib_selfplay.Args, rllib_selfplay.plan_of, argv)
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        register_env(ENV_NAME, LeagueEnv)
        algo = build_config(plan).build_algo()
        algo.train()  # warm-up
        steps, start = 0, time.perf_counter()
        while steps < timesteps:
            result = algo.train()
            steps += int(result["env_runners"]["num_module_steps_sampled"][LEARNER])
        rate = steps / (time.perf_counter() - start)
        algo.stop()
    finally:
        ray.shutdown()
    return rate


#: The paired variants of ``--compare-loop``, ``--compare-fused``, ``--compare-pipeline`` (label: `bench_ours` kwargs).
COMPARISONS: dict[str, dict[str, dict[str, Any]]] = {
    "loop": {"LeanMaskablePPO.learn": {"update": "lean"}, "our loop (PPOLoop)": {"update": "loop"}},
    "fused": {
        "LeanMaskablePPO.learn, unfused": {"update": "lean", "fused": False},
        "LeanMaskablePPO.learn, fused": {"update": "lean", "fused": True},
    },
    "pipeline": {
        "LeanMaskablePPO.learn, serial": {"update": "lean"},
        "LeanMaskablePPO.learn, pipelined": {"update": "lean", "pipeline": True},
        "LeanMaskablePPO.learn, pipelined in a process": {"update": "lean", "pipeline": True, "pipeline_in": "process"},
    },
}


def compare_paired(args: argparse.Namespace, game: tuple[str, int], runs: int, comparison: str) -> None:
    """``runs`` paired runs of the variants of ``COMPARISONS[comparison]``; medians, and each later variant's
    paired ratios to the first."""
    variants = COMPARISONS[comparison]
    timings: dict[str, list[Timing]] = {label: [] for label in variants}
    for _ in range(runs):
        for label, kwargs in variants.items():
            timing = bench_ours(
                args.batched_timesteps, args.batched_num_envs, 0, args.threads, *game, engine="batched", **kwargs
            )
            timings[label].append(timing)
    rates = {label: [t.rate for t in timings[label]] for label in variants}
    setup = f"{game[0]} {game[1]} players, {args.batched_num_envs} games in 1 process, {args.batched_timesteps} steps"
    for label in variants:
        print(
            f"{label}: {setup}: median {statistics.median(rates[label]):8.0f} learner steps/s "
            f"(runs: {', '.join(f'{r:.0f}' for r in rates[label])}; "
            f"update {statistics.median(t.update_share for t in timings[label]):.0%}; "
            f"cores used {statistics.median(t.cores for t in timings[label]):.2f})"
        )
    first, *others = variants
    for other in others:
        ratios = [b / a for a, b in zip(rates[first], rates[other])]
        paired = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"{other} / {first}: median {statistics.median(ratios):.2f}x (paired: {paired})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=65536, help="timed steps of ours")
    parser.add_argument("--tutorial-timesteps", type=int, default=8192, help="timed steps of the tutorial")
    parser.add_argument("--num-envs", type=int, default=TrainArgs().num_envs, help="envs of the one-game path")
    parser.add_argument("--batched-num-envs", type=int, default=BATCHED_NUM_ENVS, help="games of the batched path")
    parser.add_argument("--batched-timesteps", type=int, default=262144, help="timed steps of the batched path")
    parser.add_argument("--workers", type=int, default=2, help="env processes (0: in this process)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--env-id", default="skull_king_v0", help="our env")
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument(
        "--compare-loop", type=int, default=0, metavar="N", help="only: N paired runs of LeanMaskablePPO and our loop"
    )
    parser.add_argument(
        "--compare-fused",
        type=int,
        default=0,
        metavar="N",
        help="only: N paired runs of LeanMaskablePPO without and with its fused forward",
    )
    parser.add_argument(
        "--compare-pipeline",
        type=int,
        default=0,
        metavar="N",
        help="only: N paired runs of LeanMaskablePPO serial and pipelined (the update beside the next rollout)",
    )
    parser.add_argument("--rllib", action="store_true", help="also measure RLlib (the rllib extra)")
    parser.add_argument("--rllib-timesteps", type=int, default=16384, help="timed learner steps of RLlib")
    parser.add_argument("--rllib-env-runners", type=int, default=0, help="RLlib remote env runners (0: the driver)")
    parser.add_argument("--rllib-envs-per-runner", type=int, default=8, help="envs per RLlib env runner")
    parser.add_argument("--rllib-cpus", type=int, default=2, help="CPUs of the local Ray")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    game = (args.env_id, args.num_players)
    comparisons = {"loop": args.compare_loop, "fused": args.compare_fused, "pipeline": args.compare_pipeline}
    if not any(comparisons.values()) and importlib.util.find_spec("pygame") is None:
        parser.error("the SB3 tutorial row (connect_four_v3) needs pygame: pip install pygame")
    if any(comparisons.values()):
        for comparison, runs in comparisons.items():
            if runs:
                compare_paired(args, game, runs, comparison)
        return
    batched, batched_update, _ = bench_ours(
        args.batched_timesteps, args.batched_num_envs, 0, args.threads, *game, engine="batched"
    )
    pipelined, pipelined_wait, pipelined_cores = bench_ours(
        args.batched_timesteps, args.batched_num_envs, 0, args.threads, *game, engine="batched", pipeline=True
    )
    in_process, in_process_wait, in_process_cores = bench_ours(
        args.batched_timesteps, args.batched_num_envs, 0, args.threads, *game, engine="batched", pipeline=True,
        pipeline_in="process",
    )  # fmt: skip
    sb3_update, sb3_update_share, _ = bench_ours(
        args.batched_timesteps, args.batched_num_envs, 0, args.threads, *game, engine="batched", update="sb3"
    )
    ours, ours_update, _ = bench_ours(args.timesteps, args.num_envs, args.workers, args.threads, *game)
    tutorial, tutorial_update, _ = bench_tutorial(args.tutorial_timesteps, args.threads)
    setup = f"{args.env_id} {args.num_players} players"
    print(
        f"ours, batched engine: {setup}, {args.batched_num_envs} games in 1 process: {batched:8.0f} learner steps/s "
        f"(PPO update {batched_update:.0%} of the time)"
    )
    print(
        f"ours, batched engine, pipelined: {setup}: {pipelined:8.0f} learner steps/s "
        f"(waiting for the update {pipelined_wait:.0%}; cores used {pipelined_cores:.2f})"
    )
    print(
        f"ours, batched engine, pipelined in a process: {setup}: {in_process:8.0f} learner steps/s "
        f"(waiting for the update {in_process_wait:.0%}; cores used {in_process_cores:.2f})"
    )
    print(
        f"ours, batched engine with sb3-contrib's update: {setup}: {sb3_update:8.0f} learner steps/s "
        f"(PPO update {sb3_update_share:.0%})"
    )
    print(
        f"ours, one game per env: {setup}, {args.num_envs} envs / {args.workers} workers: {ours:8.0f} learner steps/s "
        f"(PPO update {ours_update:.0%})"
    )
    print(
        f"tutorial: connect_four_v3, one env, default MaskablePPO: {tutorial:8.0f} learner steps/s "
        f"(PPO update {tutorial_update:.0%})"
    )
    print(
        f"ratios: batched / one game per env {batched / ours:.2f}x; batched / tutorial {batched / tutorial:.2f}x; "
        f"lean update / sb3-contrib's {batched / sb3_update:.2f}x; pipelined / serial {pipelined / batched:.2f}x; "
        f"pipelined in a process / serial {in_process / batched:.2f}x; "
        f"pipelined in a process / tutorial {in_process / tutorial:.2f}x; "
        f"one game per env / tutorial {ours / tutorial:.2f}x"
    )
    if args.rllib:
        rllib = bench_rllib(
            args.rllib_timesteps,
            args.env_id,
            args.num_players,
            args.rllib_env_runners,
            args.rllib_envs_per_runner,
            args.rllib_cpus,
        )
        runners = f"{args.rllib_env_runners} env runners x {args.rllib_envs_per_runner} envs"
        print(f"rllib: {args.env_id} {args.num_players} players, {runners}: {rllib:8.0f} learner steps/s")
        print(f"ours / rllib: {ours / rllib:.2f}x")


if __name__ == "__main__":
    main()
