"""Self-play training of a MaskablePPO agent for any env id, against an opponent pool.

    python -m experiments.train --env-id piraten_kapern_v0 --total-timesteps 200000
    python -m experiments.train --env-id skull_king_v0 --num-players 2 3 4 5 6   # one agent, every table size

The learner plays a random seat of `agents.selfplay.env.SelfPlayEnv`'s games;
opponents are drawn from ``--opponents`` (``self`` = frozen snapshots of the learner, added every
``--snapshot-every`` steps, plus any agent name of ``agents.registry``). Every
``--eval-every`` steps the current policy plays seat-rotated tournaments against each of
``--eval-opponents`` (``experiments.evaluate``). Several ``--num-players``: each episode draws its
table size (uniformly, or by ``--player-weights``), the env observes with
``table_layout="max"`` (one vector size for every table size), every table size is evaluated,
and the agent's header lists them all in ``player_counts``.

``--engine`` picks where the games run: ``batched`` plays all ``--num-envs`` games on the batched
engine in this process (``agents.selfplay.batched_vec_env``: numba kernels, the opponents of all
games acting in one batched call per agent; numba comes with the ``train`` extra); ``single``
plays one game per env over ``--num-workers`` processes; ``auto`` (default) takes the batched
engine when numba imports, the batched engine covers the game and its options, and every
opponent of the pool has a batched form (``self``, ``random``, ``heuristic``,
``ppo:<checkpoint>``), else the one-game path, and prints which and why. On the
batched engine several table sizes share the games by their weights instead of a draw per
episode. Both learn the same games; checkpoints, evaluation and ``--resume`` do not depend on it.
The PPO update is sb3-contrib's, run with less overhead (`agents.ppo`).

One folder per run (``--out-dir/--run-name``):

    config.json           the arguments
    checkpoints/          step_<n>.npz and latest.npz: the data-only agent (``ppo:<path>`` plays it;
                          loading runs no code); step_<n>.zip and latest.zip: the SB3 model with its
                          optimizer state, for ``--resume``
    progress.csv, events.out.tfevents.*   SB3 metrics as CSV and TensorBoard (rollout win share too)
    eval/                 step_<n>.md / .json tables, history.json (rows name their num_players)
    learning_curve.png    win rate against each evaluation opponent over steps, chance dashed
                          (several table sizes: learning_curve_<n>p.png per size)

Every file is written atomically (a temporary file, then ``os.replace``; ``progress.csv`` gets
whole rows appended): a run killed at any moment leaves whole files. Ctrl-C (SIGINT) stops
learning at the next step, saves a checkpoint, writes the tables and the plot it has, prints
the command that resumes, and exits with status 130.

Checkpoints and evaluations fall between rollouts, after the update: a checkpoint's policy has
learned from every rollout it counts, and ``progress.csv`` already has the row of its step. A
run stopped mid-rollout (Ctrl-C, ``--max-wall-s``) drops that rollout and is saved at its last
whole one.

``--resume <run folder>`` continues up to ``--total-timesteps`` (default: the saved one; less
than the run reached is an error) with the saved config, which is checked exactly as a command
line is (unknown keys refused); besides ``--total-timesteps``, only ``--max-wall-s`` and
``--progress`` may be given. The model is rebuilt from ``config.json`` and only its parameters
and optimizer state are loaded (nothing is unpickled), from ``latest.zip`` or, when that is
damaged, the newest valid ``step_<n>.zip`` (with a warning). A run killed at any moment resumes
to the log an uninterrupted run writes: ``progress.csv`` keeps its whole rows up to the
checkpoint's step (later ones, and a row cut short, are dropped and logged again), TensorBoard
hides the later events, ``eval/history.json`` drops the later evaluations, and the ``*.tmp``
files of writes cut short are removed. The snapshot pool restarts from the resumed policy. An
existing run folder is never reused without ``--resume`` or ``--overwrite`` (which deletes its
checkpoints, tables and TensorBoard events). Bad values (the checks of `experiments.cli`
and the run's own) end the command before any work, with one line and exit status 2.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shlex
import shutil
import signal
import sys
import time
import warnings
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"), ("matplotlib", "train"), ("numba", "train"))

import numpy as np

import pirate_envs
from agents.checkpoint import layout_pieces, make_header, save_agent, write_atomic
from agents.policy_agent import SAMPLE_SUFFIX, policy_from_sb3
from agents.selfplay.opponents import SELF, parse_weights
from agents.selfplay.vec_env import ENGINES, make_vec_env
from experiments.cli import (
    MAX_SEED,
    args_from_mapping,
    check_agents,
    check_device,
    check_env_id,
    check_fields,
    check_folder,
    check_names,
    check_tables,
    check_weights,
    default_players,
    flag_of,
    games_epilog,
    given_flags,
    parse_args,
    parse_env_kwargs,
)
from experiments.evaluate import markdown_table, run_tournament
from experiments.plots import learning_curve

#: Exit status of a run stopped by Ctrl-C (after it saved).
INTERRUPTED = 130
#: ``--env-kwargs`` keys that a flag of this command sets: ``{key: flag}``.
RESERVED_ENV_KWARGS = {
    "num_players": "--num-players",
    "player_counts": "--num-players and --player-weights",
    "reward_mode": "--reward-mode",
    "truncation_reward": "--truncation-reward",
    "opponents": "--opponents",
    "max_snapshots": "--max-snapshots",
}
#: The fields a ``--resume`` command line may set (the rest come from the run's ``config.json``).
RESUME_FIELDS = ("resume", "total_timesteps", "max_wall_s", "progress")
#: The SB3 column of ``progress.csv`` that holds the learner steps of a row.
STEPS_COLUMN = "time/total_timesteps"


@dataclass
class TrainArgs:
    """Train a MaskablePPO agent by self-play against an opponent pool."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    num_players: list[int] = field(
        default_factory=list,
        metadata={
            "help": "players per game (none: the game's default, listed below); several: each episode draws "
            "its table size and the observation uses table_layout='max'"
        },
    )
    player_weights: list[float] = field(
        default_factory=list,
        metadata={"help": "weights of the --num-players table sizes in the draw (none: uniform)", "min": 0},
    )
    env_kwargs: list[str] = field(default_factory=list, metadata={"help": "more env arguments, key=value"})
    reward_mode: str = field(
        default="win", metadata={"help": "win (terminal +-1) or score (score changes)", "choices": ["win", "score"]}
    )
    truncation_reward: float | None = field(
        default=None,
        metadata={
            "help": "unset: a game cut by the turn guard is a time limit (its value is bootstrapped); a number: "
            "it ends for the learner with this reward added (-1 in win mode: a loss, so stalling never pays)"
        },
    )
    total_timesteps: int = field(
        default=200_000,
        metadata={"help": "learner steps in all (with --resume: the saved value unless given)", "min": 1},
    )
    num_envs: int = field(
        default=128, metadata={"help": "environments in all (many per worker amortise each policy call)", "min": 1}
    )
    num_workers: int = field(
        default=2,
        metadata={
            "help": "env worker processes of the one-game engine (--engine single; 0: all envs in this process); "
            "no effect on the batched engine, which steps every game in this process",
            "min": 0,
        },
    )
    engine: str = field(
        default="auto",
        metadata={
            "help": "batched: every game on the batched engine (numba), in this process; single: one game per env "
            "(over --num-workers processes); auto: batched when numba imports and every opponent has a batched "
            "form (self, random, heuristic, ppo:), else single",
            "choices": list(ENGINES),
        },
    )
    n_steps: int = field(
        default=32, metadata={"help": "steps per env per rollout (4096 per rollout by default)", "min": 1}
    )
    batch_size: int = field(default=1024, metadata={"help": "minibatch size", "min": 2})
    n_epochs: int = field(default=4, metadata={"help": "epochs per rollout", "min": 1})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam step size", "above": 0})
    gamma: float = field(default=0.995, metadata={"help": "discount", "min": 0, "max": 1})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda", "min": 0, "max": 1})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clip range", "above": 0})
    ent_coef: float = field(
        default=0.0,
        metadata={
            "help": "entropy bonus: 0.01 kept Skull King's bids from collapsing to one per hand (docs/RESULTS.md); "
            "over Kapern's huge re-roll block it pushes the policy towards that block",
            "min": 0,
        },
    )
    net_arch: list[int] = field(default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes", "min": 1})
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
    snapshot_every: int = field(
        default=20_000, metadata={"help": "steps between snapshots added to the pool", "min": 1}
    )
    max_snapshots: int = field(default=10, metadata={"help": "snapshots kept (the most recent)", "min": 1})
    eval_every: int = field(
        default=50_000, metadata={"help": "steps between evaluations (0: only at the end)", "min": 0}
    )
    eval_games: int = field(default=100, metadata={"help": "games per evaluation opponent", "min": 1})
    eval_opponents: list[str] = field(
        default_factory=lambda: ["heuristic", "random"], metadata={"help": "agent names (listed below)"}
    )
    eval_sample: bool = field(
        default=False, metadata={"help": "evaluate the sampled policy (ppo:<checkpoint>#sample), not its argmax"}
    )
    checkpoint_every: int = field(default=50_000, metadata={"help": "steps between checkpoints", "min": 1})
    max_wall_s: float = field(
        default=0.0,
        metadata={"help": "stop learning after this many seconds, then save and evaluate (0: no limit)", "min": 0},
    )
    seed: int = field(default=1, metadata={"help": "seed of everything", "min": 0, "max": MAX_SEED})
    torch_threads: int = field(default=1, metadata={"help": "torch intra-op threads", "min": 1})
    device: str = field(default="cpu", metadata={"help": "torch device of the learner (cpu, cuda, auto)"})
    out_dir: str = field(default="runs", metadata={"help": "parent folder of the run folder"})
    run_name: str | None = field(default=None, metadata={"help": "run folder name (default: env id, seed, time)"})
    resume: str | None = field(default=None, metadata={"help": "run folder to resume"})
    overwrite: bool = field(default=False, metadata={"help": "start afresh in an existing run folder"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})


def table_sizes(args: TrainArgs) -> list[int]:
    """The player counts of a run (``--num-players``; a saved config may hold one integer)."""
    players = args.num_players
    if players is None or players == []:
        return [default_players(args.env_id)]
    return [players] if isinstance(players, int) else list(players)


def table_weights(args: TrainArgs) -> dict[int, float]:
    """``{player count: weight}`` of the table-size draw."""
    sizes = table_sizes(args)
    weights = list(args.player_weights) or [1.0] * len(sizes)
    return dict(zip(sizes, weights))


def env_options(args: TrainArgs) -> dict[str, Any]:
    """The env options of a run but the player count: ``--env-kwargs``, and ``table_layout="max"``
    when it plays several table sizes (unless ``--env-kwargs`` names a table layout)."""
    options = parse_env_kwargs(args.env_kwargs, RESERVED_ENV_KWARGS)
    if len(table_sizes(args)) > 1:
        options.setdefault("table_layout", "max")
    return options


def env_config(args: TrainArgs, players: int | None = None) -> dict[str, Any]:
    """The env arguments of one table of a run (``players``, default the first size; not the reward mode)."""
    return {"num_players": players if players is not None else table_sizes(args)[0], **env_options(args)}


def selfplay_kwargs(args: TrainArgs) -> dict[str, Any]:
    """The keyword arguments of the self-play envs: one table size, or the draw over several."""
    if len(table_sizes(args)) == 1:
        return env_config(args)
    return {**env_options(args), "player_counts": table_weights(args)}


def policy_spec(args: TrainArgs) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of a new model."""
    kwargs: dict[str, Any] = {"net_arch": list(args.net_arch)}
    features = pirate_envs.make(args.env_id, raw=True, **env_config(args)).action_features
    if not args.action_features or features is None:
        return "MlpPolicy", kwargs
    from agents.action_head import FeatureHeadPolicy

    return FeatureHeadPolicy, {**kwargs, "action_features": features.matrix}


def command_line(args: TrainArgs) -> str:
    """The ``python -m experiments.train`` command of ``args`` (the flags that differ from the defaults)."""
    words = ["python", "-m", "experiments.train"]
    for f in dataclasses.fields(TrainArgs):
        value = getattr(args, f.name)
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        if value == default or f.name in ("resume", "overwrite", "progress"):
            continue
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            words.append(flag if value else "--no-" + f.name.replace("_", "-"))
        else:
            words += [flag, *(str(v) for v in (value if isinstance(value, list) else [value]))]
    return shlex.join(words)


def seed_everything(seed: int, torch_threads: int) -> None:
    """The one seeding block: Python, numpy and torch (envs are seeded ``seed + i`` by the VecEnv)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    torch.set_num_threads(torch_threads)
    set_random_seed(seed)


def write_json(path: Path, value: Any) -> None:
    """``value`` as indented JSON, written atomically."""
    write_atomic(path, json.dumps(value, indent=2))


def evaluate_checkpoint(args: TrainArgs, agent_file: Path, timesteps: int, run_dir: Path) -> list[dict[str, Any]]:
    """Tournaments of the agent file against each evaluation opponent at each table size; rows of the history."""
    env_kwargs = env_options(args)
    learner = f"ppo:{agent_file}" + (SAMPLE_SUFFIX if args.eval_sample else "")
    rows, tables = [], []
    for players in table_sizes(args):
        for opponent in args.eval_opponents:
            lineup = [learner] + [opponent] * (players - 1)
            results, _ = run_tournament(args.env_id, lineup, args.eval_games, seed=10_000 + args.seed, **env_kwargs)
            for r in results:
                r.agent = "learner" if r.agent == learner else r.agent
            mine = results[0]
            rows.append({"timesteps": timesteps, "opponent": opponent, "num_players": players, **asdict(mine)})
            tables.append(f"### vs {opponent}, {players} players\n\n{markdown_table(results)}")
    policy = "sampled policy" if args.eval_sample else "argmax policy"
    games = f"{args.eval_games} games per opponent, seats rotated"
    header = f"{args.env_id}, {policy} after {timesteps} learner steps: {games}"
    write_atomic(run_dir / "eval" / f"step_{timesteps}.md", header + "\n\n" + "\n\n".join(tables) + "\n")
    write_json(run_dir / "eval" / f"step_{timesteps}.json", rows)
    return rows


def write_history(args: TrainArgs, run_dir: Path, history: list[dict[str, Any]]) -> None:
    """``eval/history.json`` and the learning curves (one per table size) from the evaluations so far."""
    write_json(run_dir / "eval" / "history.json", history)
    sizes = table_sizes(args)
    for players in sizes:
        rows = [row for row in history if row.get("num_players", sizes[0]) == players]
        if rows:
            name = "learning_curve.png" if len(sizes) == 1 else f"learning_curve_{players}p.png"
            title = f"{args.env_id}, {players} players: learner vs baselines"
            learning_curve(rows, run_dir / name, title, 1 / players)


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


def build_callback(args: TrainArgs, run_dir: Path, interrupt: Interrupt) -> Any:
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
            now = self.model.num_timesteps
            # a resumed run's evaluations past its checkpoint (a killed run's) are made again
            self.history = [row for row in self.history if row["timesteps"] <= now]
            #: learner steps at the start of the rollout under way (where a stopped run resumes)
            self.rollout_start = now
            self.stopped = False
            # The first snapshot comes after ``snapshot_every`` steps: an untrained policy as an
            # opponent makes endless games (in Piraten Kapern it never stops rolling); unless
            # snapshots are the only opponents, or the run resumes a trained policy.
            if args.resume or set(parse_weights(args.opponents)) == {SELF}:
                self._add_snapshot()
            self.deadline = time.perf_counter() + args.max_wall_s if args.max_wall_s > 0 else float("inf")
            self.next_snapshot = now + args.snapshot_every
            self.next_checkpoint = now + args.checkpoint_every
            self.next_eval = now + args.eval_every if args.eval_every > 0 else float("inf")
            if args.eval_every > 0 and not any(row["timesteps"] == now for row in self.history):
                self.evaluate()  # the starting point of the learning curve

        def _add_snapshot(self) -> None:
            self.training_env.env_method("add_snapshot", policy_from_sb3(self.model.policy))

        def _on_rollout_start(self) -> None:
            # Checkpoints and evaluations fall between rollouts, after the update: a checkpoint
            # holds the policy after every rollout it counts, and progress.csv already has the
            # row of its step, so a run resumed from it logs what an uninterrupted run logs.
            now = self.rollout_start = self.model.num_timesteps
            if now >= self.next_eval:
                self.evaluate()  # saves a checkpoint too
            elif now >= self.next_checkpoint:
                save_checkpoint(self.model, run_dir, args, now)
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
            self.stopped = time.perf_counter() >= self.deadline or interrupt.requested
            return not self.stopped

        def _on_rollout_end(self) -> None:
            episodes = self.model.ep_info_buffer
            if episodes and "win_share" in episodes[0]:
                self.logger.record("rollout/win_share", float(np.mean([e["win_share"] for e in episodes])))
                self.logger.record("rollout/final_score", float(np.mean([e["final_score"] for e in episodes])))

        def evaluate(self) -> None:
            now = self.model.num_timesteps  # the count a stopped run was reset to
            agent_file = save_checkpoint(self.model, run_dir, args, now, self.history)
            rows = evaluate_checkpoint(args, agent_file, now, run_dir)
            several = len(table_sizes(args)) > 1
            for row in rows:
                key = row["opponent"] + (f"_{row['num_players']}p" if several else "")
                self.logger.record(f"eval/win_rate_vs_{key}", row["win_rate"])
                self.logger.record(f"eval/mean_score_vs_{key}", row["mean_score"])
            self.history = [h for h in self.history if h["timesteps"] != now] + rows
            write_history(args, run_dir, self.history)
            save_agent_files(self.model, run_dir, args, now, self.history)  # its header gets these figures

    return SelfPlayCallback()


def table_label(row: dict[str, Any], sizes: list[int]) -> str:
    """``", 3 players,"`` for an evaluation row of a run of several table sizes; ``""`` for one size."""
    return f", {row.get('num_players', sizes[0])} players," if len(sizes) > 1 else ""


def agent_header(args: TrainArgs, policy: Any, timesteps: int, history: list[dict[str, Any]]) -> dict[str, Any]:
    """The data-only header of the learner after ``timesteps`` steps (figures: its latest evaluation).

    Its ``env_kwargs`` are the run's env options with the player count when it plays one table
    size; without it (``table_layout="max"`` among them) when it plays several.
    """
    env = pirate_envs.make(args.env_id, raw=True, **env_config(args))
    sizes = table_sizes(args)
    numpy_policy = policy_from_sb3(policy)
    head: dict[str, Any] = {"kind": "flat"}
    if hasattr(policy.action_net, "effective_linear"):
        head = {"kind": "features", "num_features": int(env.action_features.matrix.shape[1])}
    latest = max((row["timesteps"] for row in history), default=None)
    figures = {
        f"vs {row['opponent']}{table_label(row, sizes)} at {row['timesteps']} steps ({args.eval_games} games)": (
            f"win rate {row['win_rate']:.3f} [{row['win_low']:.3f}, {row['win_high']:.3f}], "
            f"mean score {row['mean_score']:.1f}"
        )
        for row in history
        if row["timesteps"] == latest
    }
    return make_header(
        args.env_id,
        env_config(args) if len(sizes) == 1 else env_options(args),
        layout_pieces(env.observation_layout),
        env.num_actions,
        numpy_policy,
        action_head=head,
        player_counts=sizes,
        reward_mode=args.reward_mode,
        training={"command": command_line(args), "timesteps": int(timesteps), "figures": figures},
    )


def save_checkpoint(
    model: Any, run_dir: Path, args: TrainArgs, timesteps: int, history: list[dict[str, Any]] | None = None
) -> Path:
    """Save ``step_<n>`` and ``latest`` as SB3 ``.zip`` and data-only ``.npz``; return the step's ``.npz``.

    Each file is written atomically; ``latest`` is a copy of the step's bytes.
    """
    folder = run_dir / "checkpoints"
    model.pirate_envs_meta = {
        "env_id": args.env_id,
        "env_kwargs": env_config(args),
        "player_counts": table_sizes(args),
        "reward_mode": args.reward_mode,
    }
    buffer = io.BytesIO()
    model.save(buffer)
    write_atomic(folder / f"step_{timesteps}.zip", buffer.getvalue())
    write_atomic(folder / "latest.zip", buffer.getvalue())
    return save_agent_files(model, run_dir, args, timesteps, history or [])


def save_agent_files(model: Any, run_dir: Path, args: TrainArgs, timesteps: int, history: list[dict[str, Any]]) -> Path:
    """Save the data-only ``step_<n>.npz`` and ``latest.npz`` (atomically); return the step's file."""
    folder = run_dir / "checkpoints"
    header = agent_header(args, model.policy, timesteps, history)
    agent_file = save_agent(folder / f"step_{timesteps}.npz", policy_from_sb3(model.policy), header)
    write_atomic(folder / "latest.npz", agent_file.read_bytes())
    return agent_file


def read_checkpoint(path: Path) -> tuple[int, dict[str, Any], int]:
    """The learner steps, the parameters (policy and optimizer state) and the update count of an SB3 zip.

    Only plain JSON fields of ``data`` are read, and the tensors with ``weights_only=True``
    (``load_from_zip_file(load_data=False)``): nothing is unpickled. Raises ``ValueError``
    when the file is damaged.
    """
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
            if archive.testzip() is not None:
                raise ValueError("a member fails its CRC check")
        _, params, _ = load_from_zip_file(path, load_data=False, device="cpu", print_system_info=False)
    except Exception as error:  # a damaged file fails in many ways; each means "not usable"
        raise ValueError(f"{path}: not a usable checkpoint ({type(error).__name__}: {error})") from error
    steps, updates = data.get("num_timesteps"), data.get("_n_updates", 0)
    if not isinstance(steps, int) or "policy" not in params or "policy.optimizer" not in params:
        raise ValueError(f"{path}: not a usable checkpoint (no step count, parameters or optimizer state)")
    return steps, params, updates if isinstance(updates, int) else 0


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


def check_args(args: TrainArgs, given: set[str] | None = None) -> None:
    """``ValueError`` (one line) for arguments that cannot make a run; runs before any work.

    With ``--resume``: the run's ``config.json`` gets the same checks as a command line, and
    this command line may give only `RESUME_FIELDS`.
    """
    if args.resume:
        check_resume(args, given or set())
    else:
        check_run(args)
        check_new_run_folder(args)


def check_run(args: TrainArgs) -> None:
    """``ValueError`` (one line) for settings that cannot make a run (a command line's or a saved config's)."""
    check_fields(args)
    check_env_id(args.env_id)
    env_options(args)  # the --env-kwargs words parse and name no key a flag sets
    sizes = table_sizes(args)
    check_table_sizes(args, sizes)
    check_tables(args.env_id, sizes, lambda players: env_config(args, players), args.env_kwargs)
    check_weights(args.opponents, "--opponents")
    check_names(args.eval_opponents, "--eval-opponents")
    weights = parse_weights(args.opponents)
    for players in sizes:
        kwargs = env_config(args, players)
        check_agents([name for name in weights if name != SELF], args.env_id, players, "--opponents", kwargs)
        check_agents(args.eval_opponents, args.env_id, players, "--eval-opponents", kwargs)
    if args.num_envs * args.n_steps < 2:
        raise ValueError(f"--num-envs {args.num_envs} x --n-steps {args.n_steps}: a rollout needs at least 2 steps")
    check_device(args.device)
    if args.engine == "batched":
        from agents.selfplay.batched_vec_env import batched_support

        reason = batched_support(args.env_id, weights)
        if reason is not None:
            raise ValueError(f"--engine batched: {reason}; use --engine single or auto")


def run_folder(args: TrainArgs) -> Path:
    """The folder of a new run: ``--out-dir/--run-name`` (default name: env id, seed, time)."""
    return Path(args.out_dir) / (args.run_name or f"{args.env_id}__s{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}")


def check_new_run_folder(args: TrainArgs) -> None:
    """``ValueError`` unless a new run can be written to its folder (an existing run needs ``--overwrite``)."""
    if args.run_name is not None and Path(args.run_name).name in ("", ".", ".."):
        raise ValueError(f"--run-name {args.run_name!r}: give a folder name")
    run_dir = run_folder(args)
    check_folder(run_dir, "--out-dir/--run-name")
    if (run_dir / "config.json").exists() and not args.overwrite:
        raise ValueError(f"run folder {run_dir} exists: pass --resume {run_dir}, --overwrite or another --run-name")


def check_resume(args: TrainArgs, given: set[str]) -> None:
    """``ValueError`` (one line) unless ``args.resume`` is a run this command line can continue."""
    run_dir = Path(args.resume)  # type: ignore[arg-type]
    if not (run_dir / "config.json").is_file():
        raise ValueError(f"--resume {run_dir}: not a run folder (no config.json)")
    other = [flag_of(name) for name in sorted(given - set(RESUME_FIELDS))]
    if other:
        allowed = ", ".join(flag_of(name) for name in RESUME_FIELDS[1:])
        raise ValueError(
            f"{' '.join(other)}: a resumed run keeps the settings of {run_dir / 'config.json'}; "
            f"with --resume give only {allowed}"
        )
    saved = resumed_args(args, given)
    try:
        check_run(saved)
    except ValueError as error:
        raise ValueError(f"{run_dir / 'config.json'}: {error}") from None
    _, reached, _, _ = newest_checkpoint(run_dir)
    if saved.total_timesteps < reached:
        raise ValueError(f"--total-timesteps {saved.total_timesteps}: the run already reached {reached} learner steps")


def check_table_sizes(args: TrainArgs, sizes: list[int]) -> None:
    """``ValueError`` for repeated ``--num-players`` or ``--player-weights`` that do not fit them."""
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"--num-players {' '.join(map(str, sizes))}: a table size is repeated")
    weights = list(args.player_weights)
    if weights and len(weights) != len(sizes):
        raise ValueError(
            f"--player-weights {' '.join(map(str, weights))}: give one weight per --num-players size ({len(sizes)})"
        )
    if weights and sum(weights) <= 0:
        raise ValueError(f"--player-weights {' '.join(map(str, weights))}: weights must be >= 0 and sum to more than 0")


def saved_args(run_dir: Path) -> TrainArgs:
    """The arguments in a run's ``config.json``, checked field by field as a command line is
    (unknown keys and values of the wrong type refused)."""
    path = run_dir / "config.json"
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not readable as JSON ({error})") from None
    if not isinstance(saved, dict):
        raise ValueError(f"{path}: expected a JSON object of arguments, got {type(saved).__name__}")
    if isinstance(saved.get("num_players"), int) and not isinstance(saved["num_players"], bool):
        saved["num_players"] = [saved["num_players"]]  # one table size is stored as an integer
    return args_from_mapping(TrainArgs, saved, str(path))


def resumed_args(args: TrainArgs, given: set[str]) -> TrainArgs:
    """The saved arguments of ``args.resume``, with this command line's per-invocation settings."""
    resumed = saved_args(Path(args.resume))  # type: ignore[arg-type]
    if "total_timesteps" in given:
        resumed.total_timesteps = args.total_timesteps
    resumed.resume, resumed.progress, resumed.max_wall_s = args.resume, args.progress, args.max_wall_s
    return resumed


def stored_form(args: TrainArgs) -> TrainArgs:
    """``args`` as ``config.json`` keeps them: one table size as an integer, as readers of runs expect."""
    sizes = table_sizes(args)
    return dataclasses.replace(args, num_players=sizes[0] if len(sizes) == 1 else sizes)  # type: ignore[arg-type]


def remove_temporaries(run_dir: Path) -> list[Path]:
    """Delete the ``*.tmp`` files a killed run left in its folder (atomic writes cut short); return them."""
    stray = [path for path in run_dir.rglob("*.tmp") if path.is_file()]
    for path in stray:
        path.unlink()
    return stray


def prepare_run(args: TrainArgs, given: set[str]) -> tuple[TrainArgs, Path]:
    """The run folder (without temporary files a killed run left) and the arguments in force
    (the saved ones when resuming)."""
    if args.resume:
        args, run_dir = resumed_args(args, given), Path(args.resume)
    else:
        run_dir = run_folder(args)
        if (run_dir / "config.json").exists():  # with --overwrite (check_new_run_folder)
            for stale in ("checkpoints", "eval"):
                shutil.rmtree(run_dir / stale, ignore_errors=True)
            for events in run_dir.glob("events.out.tfevents.*"):
                events.unlink()
        run_dir.mkdir(parents=True, exist_ok=True)
    for path in remove_temporaries(run_dir):
        print(f"removed {path}, a temporary file of a run that was killed")
    return stored_form(args), run_dir


def make_logger(run_dir: Path, resumed_step: int | None = None) -> Any:
    """SB3's CSV and TensorBoard logger of a run.

    ``resumed_step``: the learner steps of the checkpoint a resumed run starts from. The rows
    of ``progress.csv`` past it (logged after that checkpoint by a run that was killed) and a
    row cut short are dropped, so the file holds each step's row once, as an uninterrupted run
    writes it; TensorBoard hides the events past it.
    """
    from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat

    tensorboard = TensorBoardOutputFormat(str(run_dir))
    if resumed_step is not None:
        from torch.utils.tensorboard import SummaryWriter

        tensorboard.writer.close()
        tensorboard.writer = SummaryWriter(log_dir=str(run_dir), purge_step=resumed_step + 1)
    return Logger(str(run_dir), [progress_csv(run_dir / "progress.csv", resumed_step), tensorboard])


def progress_rows(path: Path, up_to_step: int | None = None) -> tuple[list[str], list[str]]:
    """The columns and the whole rows (lines) of a ``progress.csv``; with ``up_to_step``, only the
    rows whose learner steps are at most that."""
    lines = path.read_text().split("\n")[:-1] if path.is_file() else []  # the last piece: "" or a row cut short
    if not lines:
        return [], []
    columns = next(csv.reader([lines[0]]))
    if up_to_step is None:
        return columns, lines[1:]
    index = columns.index(STEPS_COLUMN) if STEPS_COLUMN in columns else -1
    rows = []
    for line in lines[1:]:
        values = next(csv.reader([line]), [])
        try:
            if 0 <= index < len(values) and float(values[index]) <= up_to_step:
                rows.append(line)
        except ValueError:
            pass  # a row without its step count is no row of the resumed run
    return columns, rows


def progress_csv(path: Path, resumed_step: int | None = None) -> Any:
    """The ``progress.csv`` writer of a run: SB3's CSV format, but it never rewrites the file in
    place. A row is appended whole; a new column rewrites the file atomically. ``resumed_step``:
    keep the rows up to it (else start an empty file)."""
    from stable_baselines3.common.logger import CSVOutputFormat, filter_excluded_keys

    class ProgressCSV(CSVOutputFormat):
        def __init__(self) -> None:
            self.separator, self.quotechar = ",", '"'
            self.keys, rows = progress_rows(path, resumed_step) if resumed_step is not None else ([], [])
            self._rewrite(rows)

        def _rewrite(self, rows: list[str]) -> None:
            header = [",".join(self.keys)] if self.keys else []
            write_atomic(path, "".join(line + "\n" for line in header + rows))
            self.file = open(path, "a")  # noqa: SIM115 - closed by close() or the next rewrite

        def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
            new = [key for key in filter_excluded_keys(key_values, key_excluded, "csv") if key not in self.keys]
            if new:
                self.file.close()
                self.keys += new
                self._rewrite([row + self.separator * len(new) for row in progress_rows(path)[1]])
            super().write(key_values, key_excluded, step)  # every key is a column now: appends one row

    return ProgressCSV()


def build_model(args: TrainArgs, vec_env: Any) -> Any:
    """A new MaskablePPO of ``args`` (with the lean update of `agents.ppo`); when
    resuming, with the parameters and optimizer state of the newest usable checkpoint (nothing
    unpickled) and its step count."""
    from agents.ppo import LeanMaskablePPO

    policy, policy_kwargs = policy_spec(args)
    model = LeanMaskablePPO(
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
    if args.resume:
        path, steps, params, updates = newest_checkpoint(Path(args.resume))
        model.set_parameters(params, exact_match=True, device=args.device)
        model.num_timesteps, model._n_updates = steps, updates
        print(f"resuming {args.resume} from {path.name} at {steps} learner steps")
    return model


def train(args: TrainArgs, given: set[str] | None = None) -> Path:
    """Run (or resume) one training run; return its folder.

    ``given``: the fields set on the command line (a resume keeps the saved ``total_timesteps``
    unless it is given). Raises `KeyboardInterrupt` after saving when Ctrl-C stopped it.
    """
    check_args(args, given)
    args, run_dir = prepare_run(args, given or set())
    write_json(run_dir / "config.json", asdict(args))
    seed_everything(args.seed, args.torch_threads)
    vec_env = make_vec_env(
        args.env_id,
        num_envs=args.num_envs,
        num_workers=args.num_workers,
        seed=args.seed,
        opponents=parse_weights(args.opponents),
        reward_mode=args.reward_mode,
        max_snapshots=args.max_snapshots,
        env_kwargs=selfplay_kwargs(args),
        truncation_reward=args.truncation_reward,
        engine=args.engine,
    )
    model = build_model(args, vec_env)
    model.set_logger(make_logger(run_dir, model.num_timesteps if args.resume else None))
    remaining = args.total_timesteps - model.num_timesteps
    if remaining <= 0:
        vec_env.close()
        print(f"{run_dir} already has {model.num_timesteps} learner steps (--total-timesteps {args.total_timesteps})")
        return run_dir
    with Interrupt() as interrupt:
        callback = build_callback(args, run_dir, interrupt)
        start, start_steps = time.perf_counter(), model.num_timesteps
        model.learn(remaining, callback=callback, progress_bar=args.progress, reset_num_timesteps=not args.resume)
        elapsed = time.perf_counter() - start
        if callback.stopped:  # the steps of the rollout cut short were never learned from: not counted
            model.num_timesteps = callback.rollout_start
        save_checkpoint(model, run_dir, args, model.num_timesteps, callback.history)
        done = any(row["timesteps"] == model.num_timesteps for row in callback.history)
        if not interrupt.requested and not done:
            callback.evaluate()
    vec_env.close()
    summary = {
        "timesteps": model.num_timesteps,
        "learn_wall_s": round(elapsed, 1),  # evaluations during training included
        "steps_per_s": round((model.num_timesteps - start_steps) / max(elapsed, 1e-9)),
        "interrupted": interrupt.requested,
    }
    write_json(run_dir / "summary.json", summary)
    print(f"run folder: {run_dir}\n{json.dumps(summary)}")
    if interrupt.requested:
        write_history(args, run_dir, callback.history)
        print(
            f"interrupted at {model.num_timesteps} learner steps; saved {run_dir / 'checkpoints'} and the tables "
            f"so far. Resume with: python -m experiments.train --resume {shlex.quote(str(run_dir))}"
        )
        raise KeyboardInterrupt
    print((run_dir / "eval" / f"step_{model.num_timesteps}.md").read_text())
    return run_dir


def main(argv: list[str] | None = None) -> Path:
    given = given_flags(TrainArgs, argv)
    args = parse_args(TrainArgs, argv, epilog=games_epilog(), check=lambda a: check_args(a, given))
    try:
        return train(args, given)
    except KeyboardInterrupt:
        raise SystemExit(INTERRUPTED) from None


if __name__ == "__main__":
    main()
