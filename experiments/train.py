"""Self-play training of a MaskablePPO agent for any env id, against an opponent pool.

    python -m experiments.train --env-id piraten_kapern_v0 --total-timesteps 200000
    python -m experiments.train --env-id skull_king_v0 --num-players 2 3 4 5 6   # one agent, every table size

The learner plays a random seat of self-play games (`agents.selfplay`);
opponents are drawn from ``--opponents`` (``self`` = frozen snapshots of the learner, added every
``--snapshot-every`` steps, plus any agent name of ``agents.registry``). Every
``--eval-every`` steps the current policy plays seat-rotated tournaments against each of
``--eval-opponents`` (``agents.evaluation``). Several ``--num-players``: each episode draws its
table size (uniformly, or by ``--player-weights``), the env observes with
``table_layout="max"`` (one vector size for every table size), every table size is evaluated,
and the agent's header lists them all in ``player_counts``.

``--engine`` picks where the games run: ``batched`` plays all ``--num-envs`` games on the batched
engine in this process (``agents.selfplay.batched_vec_env``: numba kernels, the opponents of all
games acting in one batched call per agent; numba comes with the ``train`` extra); ``single``
plays one game per env over ``--num-workers`` processes (the path without numba); ``auto``
(default) takes the batched engine when numba imports and the batched engine covers the game and
its options, else the one-game path, and prints which and why. On the batched engine the
opponents without a batched form (``mcts``) play game by game on a
reference engine kept in step with each game (``agents.batched.one_game``). On the
batched engine several table sizes share the games by their weights instead of a draw per
episode. Both learn the same games; checkpoints, evaluation and ``--resume`` do not depend on it.
The PPO update is our own (`agents.ppo.algorithm`), run by sb3-contrib's ``MaskablePPO`` in place of its own.

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
hides the later events, ``eval/history.json`` drops the later evaluations, and the temporary
files of its own writes cut short (``.<file>.<random>.tmp`` of the files a run writes) are
removed; no other file in the folder is touched. The snapshot pool restarts from the resumed policy. An
existing run folder is never reused without ``--resume`` or ``--overwrite`` (which deletes its
checkpoints, tables and TensorBoard events). Bad values (the checks of `experiments.cli`
and the run's own) end the command before any work, with one line and exit status 2.

This module is the command line: it parses and checks the flags (or a resumed run's
``config.json``), builds the run's one `agents.training.plan.RunPlan`, and hands it to
`agents.training.run.train` with the evaluation of `experiments.evaluate` (the tournaments,
tables and learning curves live on this side).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"), ("matplotlib", "train"), ("numba", "train"))

import pirate_envs
from agents.ppo.loss import LOSSES
from agents.selfplay.opponents import SELF, parse_weights
from agents.selfplay.vec_env import ENGINES
from agents.training import plan as planning
from agents.training.evaluation import EVALUATOR
from agents.training.plan import ACTIVATION_FLAGS, RunPlan, make_plan
from agents.training.run import newest_checkpoint
from agents.training.run import train as run_training
from experiments.cli import (
    INTERRUPTED,
    MAX_SEED,
    args_from_mapping,
    check_agents,
    check_device,
    check_env_id,
    check_fields,
    check_folder,
    check_names,
    check_network_size,
    check_tables,
    check_weights,
    flag_of,
    games_epilog,
    given_flags,
    parse_args,
    parse_env_kwargs,
)

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
            "(over --num-workers processes; the path without numba); auto: batched when numba imports and the "
            "batched engine covers the game, else single",
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
            "help": "entropy bonus: 0.01 kept Skull King's bids from collapsing to one per hand "
            "(docs/notebook/RESULTS.md); "
            "over Kapern's huge re-roll block it pushes the policy towards that block",
            "min": 0,
        },
    )
    net_arch: list[int] = field(default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes", "min": 1})
    activation: str = field(
        default="tanh",
        metadata={
            "help": "activation of the hidden layers (an --init agent's must match)",
            "choices": list(ACTIVATION_FLAGS),
        },
    )
    action_features: bool = field(
        default=True,
        metadata={
            "help": "score actions from the game's action features too, where it defines them "
            "(agents.ppo.action_head; Piraten Kapern); --no-action-features: one output per action only"
        },
    )
    init: str | None = field(
        default=None,
        metadata={
            "help": "start from the policy of an agent file (a path or shipped name, e.g. skull_king_v0 with "
            "--env-kwargs table_layout=max --net-arch 128 128, as it was trained) that reads this run's "
            "observations; its hidden sizes must be --net-arch's; its value head too when the file has one "
            "(else a fresh critic)"
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
    pipeline: bool = field(
        default=False,
        metadata={
            "help": "run the PPO update of each rollout in a second thread while the next rollout is collected "
            "(two cores, with --torch-threads 1): each rollout is played by the policy one update old; "
            "the same seed gives the same run"
        },
    )
    pipeline_in: str = field(
        default="thread",
        metadata={
            "help": "where --pipeline runs the update: a thread, or a child process forked from the run's "
            "(no turns at Python's lock: faster on two free cores; the same numbers; needs fork, as on Linux)",
            "choices": ["thread", "process"],
        },
    )
    loss: str = field(
        default="fused",
        metadata={
            "help": "the PPO loss: fused (the numba pass, fast) or torch (agents/ppo/loss.py in plain torch: "
            "edit it there to try another loss); the two are equal to float precision",
            "choices": list(LOSSES),
        },
    )
    device: str = field(default="cpu", metadata={"help": "torch device of the learner (cpu, cuda, auto)"})
    out_dir: str = field(default="runs", metadata={"help": "parent folder of the run folder"})
    run_name: str | None = field(default=None, metadata={"help": "run folder name (default: env id, seed, time)"})
    resume: str | None = field(default=None, metadata={"help": "run folder to resume"})
    overwrite: bool = field(default=False, metadata={"help": "start afresh in an existing run folder"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})


def table_sizes(args: TrainArgs) -> list[int]:
    """The player counts of ``args`` (``--num-players``, else the game's default)."""
    return planning.table_sizes(args.env_id, args.num_players)


def env_options(args: TrainArgs) -> dict[str, Any]:
    """The env options of ``args`` but the player count: its ``--env-kwargs`` (checked) and the table layout."""
    return planning.env_options(parse_env_kwargs(args.env_kwargs, RESERVED_ENV_KWARGS), table_sizes(args))


def env_config(args: TrainArgs, players: int | None = None) -> dict[str, Any]:
    """The env arguments of one table of ``args`` (``players``, default the first size; not the reward mode)."""
    return {"num_players": players if players is not None else table_sizes(args)[0], **env_options(args)}


def policy_spec(args: TrainArgs) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of a new model of ``args``."""
    return planning.policy_spec(args.env_id, env_config(args), args.net_arch, args.action_features, args.activation)


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
    check_sizes(args, sizes)
    check_device(args.device)
    if args.pipeline_in == "process":
        from agents.ppo.process_pipeline import fork_available

        if not args.pipeline:
            raise ValueError("--pipeline-in process: only with --pipeline (the update beside the next rollout)")
        if not fork_available():
            raise ValueError("--pipeline-in process needs the 'fork' start method, which this platform lacks")
    if args.init is not None:
        check_init(args)
    if args.engine == "batched":
        from agents.selfplay.batched_vec_env import batched_support

        reason = batched_support(args.env_id, weights)
        if reason is not None:
            raise ValueError(f"--engine batched: {reason}; use --engine single or auto")


def check_sizes(args: TrainArgs, sizes: list[int]) -> None:
    """``ValueError`` (one line) for a network whose agent file could not be saved (over the format's
    parameter cap, actor and critic together) or a rollout larger than this machine's memory."""
    inputs, actions = 0, 0
    for players in sizes:
        env = pirate_envs.make(args.env_id, raw=True, **env_config(args, players))
        inputs, actions = max(inputs, env.observation_layout.size), max(actions, env.num_actions)
    check_network_size(args.net_arch, inputs, actions)
    # a rollout step keeps the observation (float32), the action mask and a few numbers per env
    rollout = args.num_envs * args.n_steps * (4 * inputs + actions + 64)
    memory = _physical_memory()
    if memory is not None and rollout > memory:
        raise ValueError(
            f"--num-envs {args.num_envs} x --n-steps {args.n_steps}: a rollout of {rollout / 2**30:.1f} GiB, more "
            f"than this machine's {memory / 2**30:.1f} GiB of memory"
        )


def _physical_memory() -> int | None:
    """Bytes of this machine's memory (``None`` where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _options_fix(args: TrainArgs) -> str:
    """``"; it was trained with --env-kwargs k=v ..."`` when ``--init``'s file names env options this run
    lacks or sets otherwise (the shipped agents: ``table_layout=max``); ``""`` otherwise."""
    from agents.policy.agent import load_checkpoint

    try:
        theirs = load_checkpoint(args.init)[1]["env_kwargs"]  # type: ignore[arg-type]
    except ValueError:
        return ""
    ours = env_config(args)
    differ = {k: v for k, v in theirs.items() if k != "num_players" and ours.get(k) != v}
    if not differ:
        return ""
    return "; it was trained with --env-kwargs " + " ".join(f"{k}={v}" for k, v in differ.items()) + ": pass that"


def check_init(args: TrainArgs) -> None:
    """``ValueError`` (one line) unless ``--init`` names an agent file this run's network can start from."""
    from agents.policy.agent import load_initial_policy
    from agents.policy.checkpoint import layout_pieces

    policy_class, _ = policy_spec(args)
    if policy_class != "MlpPolicy":
        raise ValueError(f"--init {args.init!r}: this run scores actions from features; add --no-action-features")
    env = pirate_envs.make(args.env_id, raw=True, **env_config(args))
    try:
        policy, _ = load_initial_policy(args.init, args.env_id, layout_pieces(env.observation_layout), env.num_actions)  # type: ignore[arg-type]
    except ValueError as error:
        raise ValueError(f"{error}{_options_fix(args)}") from None
    hidden = [int(w.shape[1]) for w in policy.weights[:-1]]
    activation = ACTIVATION_FLAGS[args.activation]
    if hidden != list(args.net_arch) or policy.activation != activation:
        theirs = next((name for name, module in ACTIVATION_FLAGS.items() if module == policy.activation), None)
        fix = f"--net-arch {' '.join(map(str, hidden))}" + (f" --activation {theirs}" if theirs else "")
        raise ValueError(
            f"--init {args.init!r}: its hidden layers are {hidden} ({policy.activation}); this run's are "
            f"--net-arch {' '.join(map(str, args.net_arch))} ({activation}): pass {fix}"
        )


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


def plan_run(args: TrainArgs, given: set[str]) -> RunPlan:
    """The plan of a checked command line: the arguments in force (the saved ones when resuming,
    in stored form), the run folder, the parsed env options and the command line, derived once."""
    if args.resume:
        args, run_dir = resumed_args(args, given), Path(args.resume)
    else:
        run_dir = run_folder(args)
    args = stored_form(args)
    return make_plan(args, parse_env_kwargs(args.env_kwargs, RESERVED_ENV_KWARGS), run_dir, command_line(args))


def train(args: TrainArgs, given: set[str] | None = None) -> Path:
    """Run (or resume) one training run; return its folder.

    ``given``: the fields set on the command line (a resume keeps the saved ``total_timesteps``
    unless it is given). Raises `KeyboardInterrupt` after saving when Ctrl-C stopped it.
    """
    check_args(args, given)
    return run_training(plan_run(args, given or set()), EVALUATOR)


def unused_workers_note(args: TrainArgs, given: set[str]) -> str | None:
    """The note for a ``--num-workers`` given to a run whose games will all be on the batched engine
    (where it has no effect); ``None`` otherwise."""
    if "num_workers" not in given or args.engine == "single" or args.resume:
        return None
    from agents.selfplay.batched_vec_env import batched_support

    if batched_support(args.env_id, parse_weights(args.opponents)) is not None:
        return None  # auto falls back to the one-game engine, which uses the workers
    return (
        f"train: note: --num-workers {args.num_workers} has no effect: every game runs on the batched engine in "
        "this process (--engine single spreads one-game envs over worker processes)"
    )


def main(argv: list[str] | None = None) -> Path:
    given = given_flags(TrainArgs, argv)
    args = parse_args(TrainArgs, argv, epilog=games_epilog(), check=lambda a: check_args(a, given))
    note = unused_workers_note(args, given)
    if note is not None:
        print(note, file=sys.stderr, flush=True)
    try:
        return train(args, given)
    except KeyboardInterrupt:
        raise SystemExit(INTERRUPTED) from None


if __name__ == "__main__":
    main()
