"""Self-play training of a MaskablePPO agent for any env id, against an opponent pool.

    python -m experiments.train --env-id piraten_kapern_v0 --total-timesteps 200000

The learner plays a random seat of :class:`~experiments.selfplay_env.SelfPlayEnv`; opponents
are drawn from ``--opponents`` (``self`` = frozen snapshots of the learner, added every
``--snapshot-every`` steps, plus any agent name of ``agents.registry``). Every
``--eval-every`` steps the current policy plays seat-rotated tournaments against each of
``--eval-opponents`` (``experiments.evaluate``). One folder per run (``--out-dir/--run-name``):

    config.json           the arguments
    checkpoints/          step_<n>.zip and latest.zip (MaskablePPO; ``ppo:<path>`` loads them)
    progress.csv, events.out.tfevents.*   SB3 metrics as CSV and TensorBoard (rollout win share too)
    eval/                 step_<n>.md / .json tables, history.json
    learning_curve.png    win rate against each evaluation opponent over steps

``--resume <run folder>`` continues its latest checkpoint up to ``--total-timesteps`` with the
saved config (the snapshot pool restarts from the resumed policy; ``--max-wall-s`` and
``--progress`` come from the new command line). An existing run folder is
never reused without ``--resume`` or ``--overwrite`` (which deletes its checkpoints, tables and
TensorBoard events).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.policy_agent import SAMPLE_SUFFIX, policy_from_sb3
from experiments.cli import parse_args
from experiments.evaluate import markdown_table, run_tournament
from experiments.opponents import SELF, available, parse_weights
from experiments.plots import learning_curve
from experiments.vec_env import make_vec_env


@dataclass
class TrainArgs:
    """Train a MaskablePPO agent by self-play against an opponent pool."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    num_players: int = field(default=2, metadata={"help": "players per game"})
    env_kwargs: list[str] = field(default_factory=list, metadata={"help": "more env arguments, key=value"})
    reward_mode: str = field(default="win", metadata={"help": "win (terminal +-1) or score (score changes)"})
    truncation_reward: float | None = field(
        default=None,
        metadata={
            "help": "unset: a game cut by the turn guard is a time limit (its value is bootstrapped); a number: "
            "it ends for the learner with this reward added (-1 in win mode: a loss, so stalling never pays)"
        },
    )
    total_timesteps: int = field(default=200_000, metadata={"help": "learner steps in all"})
    num_envs: int = field(
        default=128, metadata={"help": "environments in all (many per worker amortise each policy call)"}
    )
    num_workers: int = field(default=2, metadata={"help": "env worker processes (0: all envs in this process)"})
    n_steps: int = field(default=32, metadata={"help": "steps per env per rollout (4096 per rollout by default)"})
    batch_size: int = field(default=1024, metadata={"help": "minibatch size"})
    n_epochs: int = field(default=4, metadata={"help": "epochs per rollout"})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam step size"})
    gamma: float = field(default=0.995, metadata={"help": "discount"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clip range"})
    ent_coef: float = field(
        default=0.0,
        metadata={
            "help": "entropy bonus: 0.01 kept Skull King's bids from collapsing to one per hand (docs/RESULTS.md); "
            "over Kapern's huge re-roll block it pushes the policy towards that block"
        },
    )
    net_arch: list[int] = field(default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes"})
    action_features: bool = field(
        default=True,
        metadata={
            "help": "score actions from the game's action features too, where it defines them "
            "(agents.action_head; Piraten Kapern); --no-action-features: one output per action only"
        },
    )
    opponents: list[str] = field(
        default_factory=lambda: ["self:0.5", "heuristic:0.3", "random:0.2"],
        metadata={"help": "opponent pool, name:weight (self = snapshots of the learner)"},
    )
    snapshot_every: int = field(default=20_000, metadata={"help": "steps between snapshots added to the pool"})
    max_snapshots: int = field(default=10, metadata={"help": "snapshots kept (the most recent)"})
    eval_every: int = field(default=50_000, metadata={"help": "steps between evaluations (0: only at the end)"})
    eval_games: int = field(default=100, metadata={"help": "games per evaluation opponent"})
    eval_opponents: list[str] = field(default_factory=lambda: ["heuristic", "random"], metadata={"help": "agent names"})
    eval_sample: bool = field(
        default=False, metadata={"help": "evaluate the sampled policy (ppo:<checkpoint>#sample), not its argmax"}
    )
    checkpoint_every: int = field(default=50_000, metadata={"help": "steps between checkpoints"})
    max_wall_s: float = field(
        default=0.0, metadata={"help": "stop learning after this many seconds, then save and evaluate (0: no limit)"}
    )
    seed: int = field(default=1, metadata={"help": "seed of everything"})
    torch_threads: int = field(default=1, metadata={"help": "torch intra-op threads"})
    device: str = field(default="cpu", metadata={"help": "torch device of the learner (cpu, cuda, auto)"})
    out_dir: str = field(default="runs", metadata={"help": "parent folder of the run folder"})
    run_name: str | None = field(default=None, metadata={"help": "run folder name (default: env id, seed, time)"})
    resume: str | None = field(default=None, metadata={"help": "run folder to resume"})
    overwrite: bool = field(default=False, metadata={"help": "start afresh in an existing run folder"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})


def parse_env_kwargs(items: list[str]) -> dict[str, Any]:
    """``["target_score=3000", "promo_cards=True"]`` -> ``{"target_score": 3000, "promo_cards": True}``."""
    kwargs: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"env_kwargs: expected key=value, got {item!r}")
        try:
            kwargs[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            kwargs[key] = value
    return kwargs


def env_config(args: TrainArgs) -> dict[str, Any]:
    """The env arguments of a run (player count and extra kwargs; not the reward mode)."""
    return {"num_players": args.num_players, **parse_env_kwargs(args.env_kwargs)}


def policy_spec(args: TrainArgs) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of a new model."""
    kwargs: dict[str, Any] = {"net_arch": list(args.net_arch)}
    features = pirate_envs.make(args.env_id, raw=True, **env_config(args)).action_features
    if not args.action_features or features is None:
        return "MlpPolicy", kwargs
    from agents.action_head import FeatureHeadPolicy

    return FeatureHeadPolicy, {**kwargs, "action_features": features.matrix}


def seed_everything(seed: int, torch_threads: int) -> None:
    """The one seeding block: Python, numpy and torch (envs are seeded ``seed + i`` by the VecEnv)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    torch.set_num_threads(torch_threads)
    set_random_seed(seed)


def evaluate_checkpoint(args: TrainArgs, checkpoint: Path, timesteps: int, run_dir: Path) -> list[dict[str, Any]]:
    """Tournaments of the checkpoint against each evaluation opponent; rows of the history."""
    env_kwargs = parse_env_kwargs(args.env_kwargs)
    env = pirate_envs.make(args.env_id, raw=True, **env_config(args))
    opponents = [name for name in args.eval_opponents if available(name, args.env_id, env, "the evaluation")]
    learner = f"ppo:{checkpoint}" + (SAMPLE_SUFFIX if args.eval_sample else "")
    rows, tables = [], []
    for opponent in opponents:
        lineup = [learner] + [opponent] * (args.num_players - 1)
        results, _ = run_tournament(args.env_id, lineup, args.eval_games, seed=10_000 + args.seed, **env_kwargs)
        for r in results:
            r.agent = "learner" if r.agent == learner else r.agent
        mine = results[0]
        rows.append({"timesteps": timesteps, "opponent": opponent, **asdict(mine)})
        tables.append(f"### vs {opponent}\n\n{markdown_table(results)}")
    eval_dir = run_dir / "eval"
    eval_dir.mkdir(exist_ok=True)
    policy = "sampled policy" if args.eval_sample else "argmax policy"
    games = f"{args.eval_games} games per opponent, seats rotated"
    header = f"{args.env_id}, {policy} after {timesteps} learner steps: {games}"
    (eval_dir / f"step_{timesteps}.md").write_text(header + "\n\n" + "\n\n".join(tables) + "\n")
    (eval_dir / f"step_{timesteps}.json").write_text(json.dumps(rows, indent=2))
    return rows


def build_callback(args: TrainArgs, run_dir: Path) -> Any:
    """The callback that adds snapshots, saves checkpoints, evaluates and logs win shares."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[dict[str, Any]] = []
            history_file = run_dir / "eval" / "history.json"
            if args.resume and history_file.exists():
                self.history = json.loads(history_file.read_text())

        def _on_training_start(self) -> None:
            # The first snapshot comes after ``snapshot_every`` steps: an untrained policy as an
            # opponent makes endless games (in Piraten Kapern it never stops rolling); unless
            # snapshots are the only opponents, or the run resumes a trained policy.
            if args.resume or set(parse_weights(args.opponents)) == {SELF}:
                self._add_snapshot()
            now = self.num_timesteps
            self.deadline = time.perf_counter() + args.max_wall_s if args.max_wall_s > 0 else float("inf")
            self.next_snapshot = now + args.snapshot_every
            self.next_checkpoint = now + args.checkpoint_every
            self.next_eval = now + args.eval_every if args.eval_every > 0 else float("inf")
            if args.eval_every > 0 and not any(row["timesteps"] == now for row in self.history):
                self.evaluate()  # the starting point of the learning curve

        def _add_snapshot(self) -> None:
            self.training_env.env_method("add_snapshot", policy_from_sb3(self.model.policy))

        def _on_step(self) -> bool:
            now = self.num_timesteps
            if now >= self.next_snapshot:
                self._add_snapshot()
                self.next_snapshot += args.snapshot_every
            if now >= self.next_checkpoint:
                save_checkpoint(self.model, run_dir, args, now)
                self.next_checkpoint += args.checkpoint_every
            if now >= self.next_eval:
                self.evaluate()
                self.next_eval += args.eval_every
            return time.perf_counter() < self.deadline  # False ends model.learn early

        def _on_rollout_end(self) -> None:
            episodes = self.model.ep_info_buffer
            if episodes and "win_share" in episodes[0]:
                self.logger.record("rollout/win_share", float(np.mean([e["win_share"] for e in episodes])))
                self.logger.record("rollout/final_score", float(np.mean([e["final_score"] for e in episodes])))

        def evaluate(self) -> None:
            now = self.num_timesteps
            checkpoint = save_checkpoint(self.model, run_dir, args, now)
            rows = evaluate_checkpoint(args, checkpoint, now, run_dir)
            for row in rows:
                self.logger.record(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"])
                self.logger.record(f"eval/mean_score_vs_{row['opponent']}", row["mean_score"])
            self.history = [h for h in self.history if h["timesteps"] != now] + rows
            (run_dir / "eval" / "history.json").write_text(json.dumps(self.history, indent=2))
            learning_curve(self.history, run_dir / "learning_curve.png", f"{args.env_id}: learner vs baselines")

    return SelfPlayCallback()


def save_checkpoint(model: Any, run_dir: Path, args: TrainArgs, timesteps: int) -> Path:
    """Save ``checkpoints/step_<n>.zip`` and ``latest.zip``; return the step file."""
    folder = run_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    model.pirate_envs_meta = {"env_id": args.env_id, "env_kwargs": env_config(args), "reward_mode": args.reward_mode}
    path = folder / f"step_{timesteps}.zip"
    model.save(path)
    model.save(folder / "latest.zip")
    return path


def prepare_run(args: TrainArgs) -> tuple[TrainArgs, Path]:
    """The run folder and the arguments in force (the saved ones when resuming)."""
    if args.resume:
        run_dir = Path(args.resume)
        saved = json.loads((run_dir / "config.json").read_text())
        names = {f.name for f in dataclasses.fields(TrainArgs)}
        resumed = TrainArgs(**{k: v for k, v in saved.items() if k in names})
        resumed.total_timesteps = max(args.total_timesteps, resumed.total_timesteps)
        # per-invocation settings come from this command line, not from the saved config
        resumed.resume, resumed.progress, resumed.max_wall_s = args.resume, args.progress, args.max_wall_s
        return resumed, run_dir
    name = args.run_name or f"{args.env_id}__s{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = Path(args.out_dir) / name
    if (run_dir / "config.json").exists():
        if not args.overwrite:
            raise ValueError(f"run folder {run_dir} exists: pass --resume {run_dir}, --overwrite or another --run-name")
        for stale in ("checkpoints", "eval"):
            shutil.rmtree(run_dir / stale, ignore_errors=True)
        for events in run_dir.glob("events.out.tfevents.*"):
            events.unlink()
    run_dir.mkdir(parents=True, exist_ok=True)
    return args, run_dir


def train(args: TrainArgs) -> Path:
    """Run (or resume) one training run; return its folder."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    args, run_dir = prepare_run(args)
    (run_dir / "config.json").write_text(json.dumps(asdict(args), indent=2))
    seed_everything(args.seed, args.torch_threads)
    vec_env = make_vec_env(
        args.env_id,
        num_envs=args.num_envs,
        num_workers=args.num_workers,
        seed=args.seed,
        opponents=parse_weights(args.opponents),
        reward_mode=args.reward_mode,
        max_snapshots=args.max_snapshots,
        env_kwargs=env_config(args),
        truncation_reward=args.truncation_reward,
    )
    latest = run_dir / "checkpoints" / "latest.zip"
    if args.resume and latest.exists():
        model = MaskablePPO.load(latest, env=vec_env, device=args.device)
    else:
        policy, policy_kwargs = policy_spec(args)
        model = MaskablePPO(
            policy,
            vec_env,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            learning_rate=args.learning_rate,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            policy_kwargs=policy_kwargs,
            seed=args.seed,
            device=args.device,
        )
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))
    callback = build_callback(args, run_dir)
    remaining = args.total_timesteps - model.num_timesteps
    if remaining <= 0:
        vec_env.close()
        print(f"{run_dir} already has {model.num_timesteps} learner steps (--total-timesteps {args.total_timesteps})")
        return run_dir
    start, start_steps = time.perf_counter(), model.num_timesteps
    model.learn(remaining, callback=callback, progress_bar=args.progress, reset_num_timesteps=not args.resume)
    elapsed = time.perf_counter() - start
    save_checkpoint(model, run_dir, args, model.num_timesteps)
    if not any(row["timesteps"] == model.num_timesteps for row in callback.history):
        callback.evaluate()
    vec_env.close()
    summary = {
        "timesteps": model.num_timesteps,
        "learn_wall_s": round(elapsed, 1),  # evaluations during training included
        "steps_per_s": round((model.num_timesteps - start_steps) / max(elapsed, 1e-9)),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"run folder: {run_dir}\n{json.dumps(summary)}")
    print((run_dir / "eval" / f"step_{model.num_timesteps}.md").read_text())
    return run_dir


def main(argv: list[str] | None = None) -> Path:
    return train(parse_args(TrainArgs, argv))


if __name__ == "__main__":
    main()
