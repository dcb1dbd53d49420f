"""A training run of a `agents.training.plan.RunPlan`: its folder, checkpoints, resume and loop.

`train` prepares the run folder, builds the self-play envs and the model (``LeanMaskablePPO``,
`agents.ppo.algorithm`), learns with a callback that adds snapshots, saves checkpoints, evaluates and logs
win shares, and writes the summary. The evaluation itself (tournaments, tables, learning
curves) comes in as an `Evaluator` (`agents.training.evaluation.EVALUATOR`; tests give their own).
"""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import shutil
import signal
import sys
import time
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy.agent import policy_from_sb3
from agents.policy.checkpoint import (
    MAX_HEADER_BYTES,
    MAX_SB3_POLICY_BYTES,
    check_members,
    make_header,
    make_value_target,
    parse_json,
    save_agent,
)
from agents.policy.mlp import MlpPolicy
from agents.selfplay.opponents import SELF
from agents.selfplay.vec_env import make_vec_env
from agents.training.finish import FINISH_REPORT, finish_of, finish_run
from agents.training.plan import RunPlan
from agents.training.progress import make_logger
from agents.training.recipes import PHASE_2_CONFIG, PHASE_2_FOLDER
from pirate_envs.core.files import temporary_target, write_atomic


@dataclass(frozen=True)
class Evaluator:
    """How a run evaluates its learner: ``evaluate(plan, agent_file, timesteps)`` plays the tournaments
    and writes ``eval/step_<n>.*``, returning the history rows; ``write_history(plan, history)``
    writes ``eval/history.json`` and the learning curves."""

    evaluate: Callable[[RunPlan, Path, int], list[dict[str, Any]]]
    write_history: Callable[[RunPlan, list[dict[str, Any]]], None]


def write_json(path: Path, value: Any) -> None:
    """``value`` as indented JSON, written atomically."""
    write_atomic(path, json.dumps(value, indent=2))


def seed_everything(seed: int, torch_threads: int) -> None:
    """The one seeding block: Python, numpy and torch (envs are seeded ``seed + i`` by the VecEnv)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    torch.set_num_threads(torch_threads)
    set_random_seed(seed)


#: The files a training run writes (regular expressions of names), by folder of the run folder.
RUN_FILES = {
    ".": r"config\.json|summary\.json|finish\.json|progress\.csv|learning_curve(_\d+p)?\.png",
    "checkpoints": r"(step_\d+|latest|warm_start)\.(zip|npz)|final\.npz|learn_cpu_s\.json",
    "eval": r"step_\d+\.(md|json)|history\.json",
}


def remove_temporaries(run_dir: Path, own_files: dict[str, str] = RUN_FILES) -> list[Path]:
    """Delete the temporary files that a killed run's atomic writes left (`write_atomic`'s
    ``.<name>.<random>.tmp``) of the files the run writes (``own_files``: name patterns by folder);
    return them. Nothing else is touched: not another ``*.tmp``, not a subfolder the run does not write."""
    stray = []
    for folder, names in own_files.items():
        directory = run_dir / folder
        if not directory.is_dir() or directory.is_symlink():
            continue
        for path in directory.iterdir():
            target = temporary_target(path.name)
            if target is not None and re.fullmatch(names, target) and path.is_file() and not path.is_symlink():
                path.unlink()
                stray.append(path)
    return stray


def prepare_folder(plan: RunPlan) -> None:
    """The run folder, made or cleared (a new run over an old one, with ``--overwrite``: its checkpoints,
    tables, TensorBoard events and a recipe's second phase, run or pending, deleted), without the temporary
    files a killed run left."""
    run_dir = plan.run_dir
    if not plan.resuming:
        if (run_dir / "config.json").exists():  # with --overwrite (checked by the command line)
            for stale in ("checkpoints", "eval", PHASE_2_FOLDER):  # a recipe's second phase starts from these
                shutil.rmtree(run_dir / stale, ignore_errors=True)
            for events in run_dir.glob("events.out.tfevents.*"):
                events.unlink()
            (run_dir / FINISH_REPORT).unlink(missing_ok=True)
            (run_dir / PHASE_2_CONFIG).unlink(missing_ok=True)
        run_dir.mkdir(parents=True, exist_ok=True)
    for path in remove_temporaries(run_dir):
        print(f"removed {path}, a temporary file of a run that was killed")


class Interrupt:
    """Turns the first Ctrl-C (SIGINT) into a request to stop at the next step; a second one aborts."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def __enter__(self) -> Interrupt:
        self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nCtrl-C: stopping at the next step to save (press it again to abort)", file=sys.stderr, flush=True)


def table_label(row: dict[str, Any], sizes: tuple[int, ...]) -> str:
    """``", 3 players,"`` for an evaluation row of a run of several table sizes; ``""`` for one size."""
    return f", {row.get('num_players', sizes[0])} players," if len(sizes) > 1 else ""


def agent_header(
    plan: RunPlan, policy: Any, timesteps: int, history: list[dict[str, Any]], exported: MlpPolicy | None = None
) -> dict[str, Any]:
    """The data-only header of the learner after ``timesteps`` steps (figures: its latest evaluation).

    ``policy`` is the SB3 policy, ``exported`` its numpy copy with the value head (made here when
    not given). Its ``env_kwargs`` are the run's env options with the player count when it plays
    one table size; without it (``table_layout="max"`` among them) when it plays several. Its
    ``value_target`` follows the run's reward mode, the env's ``SCORE_SCALE`` and ``--gamma``.
    """
    args, sizes = plan.args, plan.table_sizes
    head: dict[str, Any] = {"kind": "flat"}
    if hasattr(policy.action_net, "effective_linear"):
        head = {"kind": "features", "num_features": plan.num_action_features}
    latest = max((row["timesteps"] for row in history), default=None)
    figures = {
        f"vs {row['opponent']}{table_label(row, sizes)} at {row['timesteps']} steps ({args.eval_games} games)": (
            f"win rate {row['win_rate']:.3f} [{row['win_low']:.3f}, {row['win_high']:.3f}], "
            f"mean score {row['mean_score']:.1f}"
        )
        for row in history
        if row["timesteps"] == latest
    }
    score_scale = plan.first_table.SCORE_SCALE
    return make_header(
        args.env_id,
        plan.agent_env_kwargs(),
        plan.observation_pieces,
        plan.num_actions,
        exported if exported is not None else policy_from_sb3(policy, with_value=True),
        action_head=head,
        player_counts=list(plan.table_sizes),
        reward_mode=args.reward_mode,
        training={"command": plan.command, "timesteps": int(timesteps), "figures": figures},
        value_target=make_value_target(args.reward_mode, score_scale, args.gamma),
    )


def save_checkpoint(model: Any, plan: RunPlan, timesteps: int, history: list[dict[str, Any]] | None = None) -> Path:
    """Save ``step_<n>`` and ``latest`` as SB3 ``.zip`` and data-only ``.npz``; return the step's ``.npz``.

    Each file is written atomically; ``latest`` is a copy of the step's bytes. A pipelined run's
    update in flight is joined first (``settle``): the files hold the learner after it.
    """
    model.settle()
    folder = plan.run_dir / "checkpoints"
    model.pirate_envs_meta = {
        "env_id": plan.args.env_id,
        "env_kwargs": plan.env_config(),
        "player_counts": list(plan.table_sizes),
        "reward_mode": plan.args.reward_mode,
    }
    buffer = io.BytesIO()
    model.save(buffer)
    write_atomic(folder / f"step_{timesteps}.zip", buffer.getvalue())
    write_atomic(folder / "latest.zip", buffer.getvalue())
    return save_agent_files(model, plan, timesteps, history or [])


#: Each checkpoint's CPU seconds of learning (``{"<steps>": seconds}``), beside the checkpoints.
LEARN_CPU_FILE = "learn_cpu_s.json"
#: A run's newest agent file, in ``checkpoints/`` (a copy of its newest ``step_<n>.npz``).
LATEST_FILE = "latest.npz"
#: A run's summary (steps, CPU of learning, whether it was interrupted), in its folder when the run ends.
SUMMARY_FILE = "summary.json"


def learn_cpu_before(plan: RunPlan, timesteps: int) -> float:
    """The CPU seconds of learning recorded at ``timesteps``, where a run goes on: a resumed run's checkpoint,
    or a fresh run's warm start (at 0 steps; `agents.training.warm_start`); 0 with no record."""
    path = plan.run_dir / "checkpoints" / LEARN_CPU_FILE
    if not path.is_file():
        return 0.0
    return float(json.loads(path.read_text()).get(str(timesteps), 0.0))


def record_learn_cpu(plan: RunPlan, timesteps: int, cpu_s: float) -> None:
    """Add a checkpoint's CPU seconds of learning (since learning began) to `LEARN_CPU_FILE`.

    Evaluations during learning count; a resumed run adds its own to the figure of the checkpoint it resumed
    from (`learn_cpu_before`). The learning curves of the recipes read these figures.
    """
    path = plan.run_dir / "checkpoints" / LEARN_CPU_FILE
    seconds = json.loads(path.read_text()) if path.is_file() else {}
    seconds[str(timesteps)] = round(cpu_s, 2)
    write_json(path, seconds)


def save_agent_files(model: Any, plan: RunPlan, timesteps: int, history: list[dict[str, Any]]) -> Path:
    """Save the data-only ``step_<n>.npz`` and ``latest.npz`` (atomically), the value head included;
    return the step's file (after joining a pipelined run's update in flight)."""
    model.settle()
    folder = plan.run_dir / "checkpoints"
    exported = policy_from_sb3(model.policy, with_value=True)
    header = agent_header(plan, model.policy, timesteps, history, exported)
    agent_file = save_agent(folder / f"step_{timesteps}.npz", exported, header)
    write_atomic(folder / LATEST_FILE, agent_file.read_bytes())
    return agent_file


#: The members of an SB3 zip that ``--resume`` reads, and the most bytes each may decompress to: the
#: plain JSON ``data``, the parameters, and Adam's optimizer state (two moments per parameter).
RESUME_CAPS = {
    "data": MAX_HEADER_BYTES,
    "policy.pth": MAX_SB3_POLICY_BYTES,
    "policy.optimizer.pth": 2 * MAX_SB3_POLICY_BYTES,
}


def read_checkpoint(path: Path) -> tuple[int, dict[str, Any], int]:
    """The learner steps, the parameters (policy and optimizer state) and the update count of an SB3 zip.

    Only plain JSON fields of ``data`` are read, and the tensors with ``weights_only=True``
    (``load_from_zip_file(load_data=False)``): nothing is unpickled. Each member's declared size is
    checked against `RESUME_CAPS` before it is read. Raises ``ValueError`` when the file is damaged
    or over a cap.
    """
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        with zipfile.ZipFile(path) as archive:
            infos = {info.filename: info for info in archive.infolist()}
            for name, cap in RESUME_CAPS.items():  # declared sizes first: nothing large is read
                if name not in infos:
                    raise ValueError(f"no {name!r} member")
                check_members(path, [infos[name]], cap)
            data = parse_json(path, archive.read("data"), "its data")
            if not isinstance(data, dict):
                raise ValueError("its data is not a JSON object")
            for name in RESUME_CAPS.keys() - {"data"}:  # the records inside torch's zip format too
                with zipfile.ZipFile(io.BytesIO(archive.read(name))) as inner:
                    check_members(path, inner.infolist(), RESUME_CAPS[name])
            if archive.testzip() is not None:
                raise ValueError("a member fails its CRC check")
        _, params, _ = load_from_zip_file(path, load_data=False, device="cpu", print_system_info=False)
    except Exception as error:  # a damaged file fails in many ways; each means "not usable"
        raise ValueError(f"{path}: not a usable checkpoint ({type(error).__name__}: {error})") from error
    steps, updates = data.get("num_timesteps"), data.get("_n_updates", 0)
    if not isinstance(steps, int) or "policy" not in params or "policy.optimizer" not in params:
        raise ValueError(f"{path}: not a usable checkpoint (no step count, parameters or optimizer state)")
    return steps, params, updates if isinstance(updates, int) else 0


def ended_of_itself(run_dir: Path) -> bool:
    """Whether the run in ``run_dir`` ended of itself: its ``summary.json`` written, not at an interrupt."""
    path = run_dir / SUMMARY_FILE
    return path.is_file() and json.loads(path.read_text()).get("interrupted") is False


def newest_checkpoint(run_dir: Path) -> tuple[Path, int, dict[str, Any], int]:
    """The newest usable checkpoint of a run: ``latest.zip``, else the newest valid ``step_<n>.zip``.

    Warns when ``latest.zip`` is damaged and an older one is used; ``ValueError`` when none is usable.
    """
    folder = run_dir / "checkpoints"
    steps = sorted(folder.glob("step_*.zip"), key=lambda p: int(p.stem.split("_")[1]) if p.stem[5:].isdigit() else -1)
    candidates = [folder / "latest.zip", *reversed(steps)]
    problems = []
    for path in candidates:
        if not path.is_file():
            continue
        try:
            found = read_checkpoint(path)
        except ValueError as error:
            problems.append(str(error))
            continue
        if problems:
            warnings.warn(f"resuming from {path}: " + "; ".join(problems), stacklevel=2)
        return (path, *found)
    detail = f" ({'; '.join(problems)})" if problems else ""
    raise ValueError(f"--resume {run_dir}: no usable checkpoint in {folder}{detail}")


def learning_rate_schedule(learning_rate: float, anneal: bool) -> float | Callable[[float], float]:
    """The step size, or with ``anneal`` a linear schedule from it to 0 over the run's learner steps
    (sb3 calls it with the fraction of ``--total-timesteps`` still to go)."""
    if not anneal:
        return learning_rate
    from stable_baselines3.common.utils import LinearSchedule

    return LinearSchedule(learning_rate, 0.0, 1.0)


def build_model(plan: RunPlan, vec_env: Any, init: str | None = None) -> Any:
    """A new MaskablePPO of the plan (with the update of `agents.ppo.algorithm`), starting from the agent file
    ``init`` (a path or shipped name; default ``--init``) when given; when resuming, with the parameters and
    optimizer state of the newest usable checkpoint (nothing unpickled) and its step count."""
    from agents.ppo.algorithm import LeanMaskablePPO

    args = plan.args
    model = LeanMaskablePPO(
        plan.policy,
        vec_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=learning_rate_schedule(args.learning_rate, args.anneal_lr),
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        policy_kwargs=dict(plan.policy_kwargs),
        seed=args.seed,
        device=args.device,
    )
    model.update = args.update  # the project's lean update or sb3-contrib's own (agents.ppo.algorithm)
    model.loss = args.loss  # the minibatch loss by name (agents.ppo.loss)
    model.pipeline = args.pipeline  # rollout k + 1 beside update k (agents.ppo.pipeline)
    model.pipeline_in = args.pipeline_in  # in a thread or a child process (agents.ppo.process_pipeline)
    init = init if init is not None else args.init
    if not plan.resuming and init is not None:
        start_from(model.policy, plan, init)
    if plan.resuming:
        path, steps, params, updates = newest_checkpoint(plan.run_dir)
        model.set_parameters(params, exact_match=True, device=args.device)
        model.num_timesteps, model._n_updates = steps, updates
        print(f"resuming {args.resume} from {path.name} at {steps} learner steps")
    return model


def build_callback(plan: RunPlan, evaluator: Evaluator, interrupt: Interrupt) -> Any:
    """The callback that adds snapshots, saves checkpoints, evaluates and logs win shares."""
    from stable_baselines3.common.callbacks import BaseCallback

    args, run_dir = plan.args, plan.run_dir

    class SelfPlayCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[dict[str, Any]] = []
            history_file = run_dir / "eval" / "history.json"
            if plan.resuming and history_file.exists():
                self.history = json.loads(history_file.read_text())

        def _on_training_start(self) -> None:
            now = self.model.num_timesteps
            # a resumed run's evaluations past its checkpoint (a killed run's) are made again
            self.history = [row for row in self.history if row["timesteps"] <= now]
            #: learner steps at the start of the rollout under way (where a stopped run resumes)
            self.rollout_start = now
            self.stopped = False
            self.cpu_start = time.process_time() - learn_cpu_before(plan, now)
            # The first snapshot comes after ``snapshot_every`` steps: an untrained policy as an
            # opponent makes endless games (in Piraten Kapern it never stops rolling); unless
            # snapshots are the only opponents, or the run resumes a trained policy.
            if plan.resuming or set(plan.opponents) == {SELF}:
                self._add_snapshot()
            self.deadline = time.perf_counter() + args.max_wall_s if args.max_wall_s > 0 else float("inf")
            self.cpu_deadline = time.process_time() + args.max_cpu_s if args.max_cpu_s > 0 else float("inf")
            self.next_snapshot = now + args.snapshot_every
            self.next_checkpoint = now + args.checkpoint_every
            self.next_eval = now + args.eval_every if args.eval_every > 0 else float("inf")
            if args.eval_every > 0 and not any(row["timesteps"] == now for row in self.history):
                self.evaluate()  # the starting point of the learning curve

        def _add_snapshot(self) -> None:
            # the policy playing the rollout: a pipelined run's behaviour copy (never changed during a
            # rollout; the learner may be in the middle of an update), else the learner
            self.training_env.env_method("add_snapshot", policy_from_sb3(self.model.behaviour_policy()))

        def _on_rollout_start(self) -> None:
            # Checkpoints and evaluations fall between rollouts, after the update: a checkpoint
            # holds the policy after every rollout it counts, and progress.csv already has the
            # row of its step, so a run resumed from it logs what an uninterrupted run logs.
            now = self.rollout_start = self.model.num_timesteps
            if now >= self.next_eval:
                self.evaluate()  # saves a checkpoint too
            elif now >= self.next_checkpoint:
                save_checkpoint(self.model, plan, now)
                record_learn_cpu(plan, now, time.process_time() - self.cpu_start)
            while self.next_eval <= now:
                self.next_eval += args.eval_every
            while self.next_checkpoint <= now:
                self.next_checkpoint += args.checkpoint_every

        def _on_step(self) -> bool:
            now = self.num_timesteps
            if now >= self.next_snapshot:
                self._add_snapshot()
                self.next_snapshot += args.snapshot_every
            # False ends model.learn early, in the middle of a rollout that no update will use
            self.stopped = (
                time.perf_counter() >= self.deadline or time.process_time() >= self.cpu_deadline or interrupt.requested
            )
            return not self.stopped

        def _on_rollout_end(self) -> None:
            episodes = self.model.ep_info_buffer
            if episodes and "win_share" in episodes[0]:
                self.logger.record("rollout/win_share", float(np.mean([e["win_share"] for e in episodes])))
                self.logger.record("rollout/final_score", float(np.mean([e["final_score"] for e in episodes])))

        def evaluate(self) -> None:
            now = self.model.num_timesteps  # the count a stopped run was reset to
            agent_file = save_checkpoint(self.model, plan, now, self.history)
            record_learn_cpu(plan, now, time.process_time() - self.cpu_start)
            start = time.perf_counter()
            if args.progress:  # the bar stands still while the games are played: say why
                print(evaluation_notice(plan, now), flush=True)
            rows = evaluator.evaluate(plan, agent_file, now)
            if args.progress:
                print(f"evaluated at {now:,} learner steps in {time.perf_counter() - start:.0f} s", flush=True)
            for row in rows:
                key = row["opponent"] + (f"_{row['num_players']}p" if plan.several_tables else "")
                self.logger.record(f"eval/win_rate_vs_{key}", row["win_rate"])
                self.logger.record(f"eval/mean_score_vs_{key}", row["mean_score"])
            self.history = [h for h in self.history if h["timesteps"] != now] + rows
            evaluator.write_history(plan, self.history)
            save_agent_files(self.model, plan, now, self.history)  # its header gets these figures

    return SelfPlayCallback()


def evaluation_notice(plan: RunPlan, timesteps: int) -> str:
    """The line a run with a progress bar prints as an evaluation starts (the bar waits for it)."""
    args = plan.args
    tables = "" if not plan.several_tables else f" at each of {len(plan.table_sizes)} table sizes"
    return (
        f"evaluating the learner at {timesteps:,} learner steps: {args.eval_games} games against each of "
        f"{', '.join(args.eval_opponents)}{tables} ..."
    )


def start_from(policy: Any, plan: RunPlan, init: str) -> None:
    """Copy the network of the agent file ``init`` into the SB3 ``policy``: the actor, and the critic when the
    file has a value head (else the critic stays fresh)."""
    from agents.policy.agent import copy_into_torch, load_initial_policy

    source, _ = load_initial_policy(init, plan.args.env_id, plan.observation_pieces, plan.num_actions)
    copy_into_torch([*policy.mlp_extractor.policy_net, policy.action_net], source.weights, source.biases)
    if source.has_value:
        copy_into_torch([*policy.mlp_extractor.value_net, policy.value_net], source.value_weights, source.value_biases)
    print(f"starting from the network of {init} ({'actor and critic' if source.has_value else 'actor'})")


def train(plan: RunPlan, evaluator: Evaluator) -> Path:
    """Run (or resume) the planned run; return its folder.

    Raises `KeyboardInterrupt` after saving when Ctrl-C stopped it.
    """
    args, run_dir = plan.args, plan.run_dir
    prepare_folder(plan)
    write_json(run_dir / "config.json", asdict(args))
    if plan.next_phase is not None and not plan.resuming:
        write_json(run_dir / PHASE_2_CONFIG, dict(plan.next_phase))
    seed_everything(args.seed, args.torch_threads)
    init, warm_cpu_s = None, None
    if args.warm_start is not None and not plan.resuming:
        from agents.training.warm_start import warm_start

        path, warm_cpu_s = warm_start(plan)
        init = str(path)
        record_learn_cpu(plan, 0, warm_cpu_s)
    vec_env = make_vec_env(
        args.env_id,
        num_envs=args.num_envs,
        num_workers=args.num_workers,
        seed=args.seed,
        opponents=dict(plan.opponents),
        reward_mode=args.reward_mode,
        max_snapshots=args.max_snapshots,
        env_kwargs=dict(plan.selfplay_kwargs),
        truncation_reward=args.truncation_reward,
        engine=args.engine,
    )
    model = build_model(plan, vec_env, init)
    model.set_logger(make_logger(run_dir, model.num_timesteps if plan.resuming else None))
    remaining = args.total_timesteps - model.num_timesteps
    if remaining <= 0:
        vec_env.close()
        print(f"{run_dir} already has {model.num_timesteps} learner steps (--total-timesteps {args.total_timesteps})")
        return run_dir
    with Interrupt() as interrupt:
        callback = build_callback(plan, evaluator, interrupt)
        start, start_cpu, start_steps = time.perf_counter(), time.process_time(), model.num_timesteps
        model.learn(remaining, callback=callback, progress_bar=args.progress, reset_num_timesteps=not plan.resuming)
        elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        cpu_left = callback.cpu_deadline - time.process_time()  # of --max-cpu-s (infinite without a cap)
        if callback.stopped:  # the steps of the rollout cut short were never learned from: not counted
            model.num_timesteps = callback.rollout_start
        save_checkpoint(model, plan, model.num_timesteps, callback.history)
        record_learn_cpu(plan, model.num_timesteps, time.process_time() - callback.cpu_start)
        done = any(row["timesteps"] == model.num_timesteps for row in callback.history)
        if not interrupt.requested and not done:
            callback.evaluate()
    vec_env.close()
    summary = {
        "timesteps": model.num_timesteps,
        "learn_wall_s": round(elapsed, 1),  # evaluations during training included
        "learn_cpu_s": round(elapsed_cpu, 1),  # this process's threads (not worker processes), as --max-cpu-s
        "steps_per_s": round((model.num_timesteps - start_steps) / max(elapsed, 1e-9)),
        "interrupted": interrupt.requested,
    }
    if warm_cpu_s is not None:
        summary["warm_start_cpu_s"] = round(warm_cpu_s, 1)  # the imitation before learning (not in learn_cpu_s)
    handed_over = None if interrupt.requested else hand_over(plan, model.num_timesteps, summary)
    write_json(run_dir / SUMMARY_FILE, summary)
    print(f"run folder: {run_dir}\n{json.dumps(summary)}")
    if interrupt.requested:
        evaluator.write_history(plan, callback.history)
        print(
            f"interrupted at {model.num_timesteps} learner steps; saved {run_dir / 'checkpoints'} and the tables "
            f"so far. Resume with: {resume_command(run_dir, cpu_left)}"
        )
        raise KeyboardInterrupt
    print((run_dir / "eval" / f"step_{model.num_timesteps}.md").read_text())
    if handed_over is not None:
        print(handed_over)
    return run_dir


def resume_command(run_dir: Path, cpu_left: float) -> str:
    """The command that resumes the run in ``run_dir``, with what is left of its ``--max-cpu-s`` (a cap counts one
    invocation's CPU, so a resume without it would have none)."""
    words = ["python", "-m", "experiments.train", "--resume", str(run_dir)]
    if math.isfinite(cpu_left):
        words += ["--max-cpu-s", str(max(math.ceil(cpu_left), 1))]
    return shlex.join(words)


def hand_over(plan: RunPlan, timesteps: int, summary: dict[str, Any]) -> str | None:
    """Carry out the run's ``--finish`` (`agents.training.finish`); its CPU seconds go into ``summary``
    (``finish_cpu_s``, not in ``learn_cpu_s``). The line naming the agent handed over; ``None`` for ``last``."""
    start = time.process_time()
    handed = finish_run(plan, finish_of(plan), timesteps)
    if handed is None:  # --finish last: the agent is checkpoints/latest.npz
        return None
    summary["finish_cpu_s"] = round(time.process_time() - start, 1)
    return f"the run's agent: {handed[0]} ({handed[1]})"
