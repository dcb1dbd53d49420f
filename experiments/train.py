"""Self-play training of a MaskablePPO agent for any env id, against an opponent pool.

    python -m experiments.train --env-id piraten_kapern_v0 --total-timesteps 200000
    python -m experiments.train --env-id skull_king_v0 --num-players 2 3 4 5 6   # one agent, every table size

The command line: it parses and checks the flags (or a resumed run's ``config.json``), builds the
run's one `agents.training.plan.RunPlan`, and hands it to `agents.training.run.train` with the
evaluation of `experiments.evaluate`. Engines, the run folder, Ctrl-C and ``--resume`` are described
in ``docs/guides/training.md`` ("The command in detail").
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
import time
from collections.abc import Mapping
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
from agents.training.finish import FINISHES, finish_of
from agents.training.plan import ACTIVATION_FLAGS, RunPlan, make_plan
from agents.training.recipes import PHASE_2_CONFIG, PHASE_2_FOLDER, Recipe, recipe_for
from agents.training.run import LATEST_FILE, ended_of_itself, newest_checkpoint
from agents.training.run import train as run_training
from experiments.cli import (
    INTERRUPTED,
    MAX_SEED,
    args_from_mapping,
    check_agents,
    check_cpus,
    check_device,
    check_env_id,
    check_fields,
    check_folder,
    check_memory,
    check_names,
    check_network_size,
    check_weights,
    flag_of,
    games_epilog,
    given_flags,
    parse_env_kwargs,
    parse_plan,
    table_envs,
)
from pirate_envs.core.rewards import REWARD_MODES

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
RESUME_FIELDS = ("resume", "total_timesteps", "max_wall_s", "max_cpu_s", "progress")


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
        default="win",
        metadata={
            "help": "win (terminal +-1), score (score changes) or margin (score changes less the others' mean)",
            "choices": list(REWARD_MODES),
        },
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
    anneal_lr: bool = field(
        default=False,
        metadata={
            "help": "lower the step size linearly from --learning-rate to 0 over --total-timesteps (a run that "
            "--max-cpu-s or --max-wall-s stops earlier ends above 0); --no-anneal-lr: constant"
        },
    )
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
    warm_start: str | None = field(
        default=None,
        metadata={
            "help": "first learn this agent's moves by imitation (e.g. oracle, heuristic), on this run's tables "
            "with its network and seed, then go on with PPO from that network (agents.training.warm_start); "
            "its CPU counts as learning"
        },
    )
    warm_start_games: int = field(default=2000, metadata={"help": "games per warm-start round", "min": 1})
    warm_start_rounds: int = field(
        default=1,
        metadata={"help": "warm-start rounds: the first with the teacher alone, each later one DAgger", "min": 1},
    )
    warm_start_epochs: int = field(
        default=6, metadata={"help": "passes over the warm start's data per round", "min": 1}
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
    max_cpu_s: float = field(
        default=0.0,
        metadata={
            "help": "stop learning once this process has used this many CPU seconds since learning began (all its "
            "threads), then save and evaluate (0: no limit); needs every game and the update in this process: "
            "the batched engine or --num-workers 0, and no --pipeline-in process",
            "min": 0,
        },
    )
    finish: str = field(
        default="last",
        metadata={
            "help": "the agent the run hands over: last (checkpoints/latest.npz), average (the mean of the "
            "checkpoints from --finish-from of the run on) or choose (the one of them that wins most against "
            "--choose-against on the validation deals); average and choose write checkpoints/final.npz and "
            "finish.json",
            "choices": list(FINISHES),
        },
    )
    finish_from: float = field(
        default=0.5,
        metadata={"help": "--finish's candidates: the checkpoints at or after this share of the run's steps"},
    )
    choose_against: str = field(
        default="heuristic", metadata={"help": "--finish choose: the opponent, at every other seat"}
    )
    choose_players: int = field(
        default=0,
        metadata={
            "help": "--finish choose: the table size (0: the run's size weighted most, the first on a tie)",
            "min": 0,
        },
    )
    choose_games: int = field(
        default=400,
        metadata={"help": "--finish choose: duplicate games per candidate (a multiple of the table size)", "min": 1},
    )
    choose_seed: int = field(
        default=169_001,
        metadata={
            "help": "--finish choose: the seed of the validation deals (keep them apart from the deals you report on)",
            "min": 0,
            "max": MAX_SEED,
        },
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
    update: str = field(
        default="lean",
        metadata={
            "help": "the PPO update: lean (the project's, on the CPU; other devices fall back to sb3) or sb3 "
            "(sb3-contrib's own on every device: the same update on CPU and GPU, for comparing them)",
            "choices": ["lean", "sb3"],
        },
    )
    device: str = field(default="cpu", metadata={"help": "torch device of the learner (cpu, cuda, auto)"})
    out_dir: str = field(default="runs", metadata={"help": "parent folder of the run folder"})
    run_name: str | None = field(default=None, metadata={"help": "run folder name (default: env id, seed, time)"})
    resume: str | None = field(default=None, metadata={"help": "run folder to resume"})
    overwrite: bool = field(default=False, metadata={"help": "start afresh in an existing run folder"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})
    recipe: str = field(
        default="auto",
        metadata={
            "help": "auto: the game's training recipe (agents/<game>/recipes.json) sets every setting no flag "
            "gives, and a recipe of two phases runs its second from the first's last checkpoint (in the run "
            "folder's phase_2/); none: the plain defaults listed here",
            "choices": ["auto", "none"],
        },
    )


def plan_of(args: TrainArgs) -> RunPlan:
    """The checked plan of a new run of ``args`` (its folder not checked); ``ValueError`` (one line)."""
    return checked_plan(args, run_folder(args))


def env_config(args: TrainArgs, players: int | None = None) -> dict[str, Any]:
    """The env arguments of one table of ``args`` (``players``, default the first size; not the reward mode)."""
    return plan_of(args).env_config(players)


def policy_spec(args: TrainArgs) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of a new model of ``args``."""
    plan = plan_of(args)
    return plan.policy, dict(plan.policy_kwargs)


def command_line(args: TrainArgs) -> str:
    """The ``python -m experiments.train`` command of ``args`` (the flags that differ from the defaults)."""
    words = ["python", "-m", "experiments.train"]
    for f in dataclasses.fields(TrainArgs):
        value = getattr(args, f.name)
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        if value == default or f.name in ("resume", "overwrite", "progress", "recipe"):
            continue
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            words.append(flag if value else "--no-" + f.name.replace("_", "-"))
        else:
            words += [flag, *(str(v) for v in (value if isinstance(value, list) else [value]))]
    return shlex.join(words)


def check_args(args: TrainArgs, given: set[str] | None = None) -> None:
    """``ValueError`` (one line) for arguments that cannot make a run; runs before any work (`plan_run`)."""
    plan_run(args, given or set())


def checked_plan(args: TrainArgs, run_dir: Path) -> RunPlan:
    """The plan of ``args`` (a command line's or a saved config's) once every check passes; ``ValueError``
    (one line) for settings that cannot make a run.

    The game is resolved once, each table size's env built once and the opponents parsed once (each
    built once per table size, to check it); the plan carries them on.
    """
    check_fields(args)
    game = check_env_id(args.env_id)
    env_kwargs = parse_env_kwargs(args.env_kwargs, RESERVED_ENV_KWARGS)  # they parse and name no key a flag sets
    sizes = planning.table_sizes(game, args.num_players)
    check_table_sizes(args, sizes)
    options = planning.env_options(env_kwargs, sizes)
    tables = table_envs(game, sizes, lambda players: {"num_players": players, **options}, args.env_kwargs)
    check_weights(args.opponents, "--opponents")
    check_names(args.eval_opponents, "--eval-opponents")
    opponents = parse_weights(args.opponents)
    flags = {name: "--opponents" for name in opponents if name != SELF}
    for name in args.eval_opponents:
        flags.setdefault(name, "--eval-opponents")
    if args.warm_start is not None:
        flags.setdefault(args.warm_start, "--warm-start")
    for players, env in tables.items():  # each agent built once per table size
        for name, flag in flags.items():
            check_agents([name], game.env_id, players, flag, env=env)
    stored = dataclasses.replace(args, num_players=sizes[0] if len(sizes) == 1 else sizes)  # as config.json keeps it
    plan = make_plan(stored, game, tables, options, opponents, run_dir, command_line(stored))
    check_settings(plan)
    return plan


def check_settings(plan: RunPlan) -> None:
    """``ValueError`` (one line) for the run's settings that its tables cannot take: the rollout, the
    network's size, the device, the pipeline, ``--init`` and the engine."""
    args = plan.args
    if args.num_envs * args.n_steps < 2:
        raise ValueError(f"--num-envs {args.num_envs} x --n-steps {args.n_steps}: a rollout needs at least 2 steps")
    if args.batch_size > args.num_envs * args.n_steps:  # a larger minibatch would be the whole rollout
        raise ValueError(
            f"--batch-size {args.batch_size}: more than a rollout's {args.num_envs * args.n_steps} steps "
            f"(--num-envs {args.num_envs} x --n-steps {args.n_steps})"
        )
    check_sizes(plan)
    check_device(args.device)
    if args.pipeline_in == "process":
        from agents.ppo.process_pipeline import fork_available

        if not args.pipeline:
            raise ValueError("--pipeline-in process: only with --pipeline (the update beside the next rollout)")
        if not fork_available():
            raise ValueError("--pipeline-in process needs the 'fork' start method, which this platform lacks")
    if args.warm_start is not None:
        check_warm_start(plan)
    if args.init is not None:
        check_init(plan)
    if args.engine == "batched":
        from agents.selfplay.batched_vec_env import batched_support

        reason = batched_support(args.env_id, dict(plan.opponents), table_configs(plan))
        if reason is not None:
            raise ValueError(f"--engine batched: {reason}; use --engine single or auto")
    if args.max_cpu_s > 0:
        check_cpu_budget(plan)
    check_finish(plan)


def check_finish(plan: RunPlan) -> None:
    """``ValueError`` (one line) for ``--finish`` settings the run cannot carry out."""
    args = plan.args
    if not 0 < args.finish_from <= 1:
        raise ValueError(f"--finish-from {args.finish_from}: a share of the run's steps, above 0 and at most 1")
    if args.finish != "choose":
        return
    players = finish_of(plan).players
    if players not in plan.table_sizes:
        sizes = " ".join(map(str, plan.table_sizes))
        raise ValueError(f"--choose-players {players}: one of the run's table sizes ({sizes})")
    if args.choose_games % players:
        raise ValueError(
            f"--choose-games {args.choose_games}: duplicate deals are played once per rotation, a multiple of {players}"
        )
    check_agents([args.choose_against], args.env_id, players, "--choose-against", env=plan.tables[players])


def check_cpu_budget(plan: RunPlan) -> None:
    """``ValueError`` (one line) for a ``--max-cpu-s`` run with work in other processes, whose CPU time this
    process cannot read: the one-game engine's worker processes or the update in a forked child."""
    args = plan.args
    if args.pipeline and args.pipeline_in == "process":
        raise ValueError("--max-cpu-s counts this process's CPU time only: not with --pipeline-in process")
    if args.num_workers > 0 and not on_batched_engine(plan):
        raise ValueError(
            f"--max-cpu-s counts this process's CPU time only: not with the one-game engine's "
            f"--num-workers {args.num_workers} processes (give --num-workers 0)"
        )


def on_batched_engine(plan: RunPlan) -> bool:
    """Whether every game of the run is on the batched engine: ``--engine batched``, or ``auto`` where the
    batched engine covers the game, its opponents and every table's options (``single``, or ``auto``
    elsewhere: the one-game engine, as `agents.selfplay.vec_env.make_vec_env` falls back)."""
    args = plan.args
    if args.engine != "auto":
        return args.engine == "batched"
    from agents.selfplay.batched_vec_env import batched_support

    return batched_support(args.env_id, dict(plan.opponents), table_configs(plan)) is None


def table_configs(plan: RunPlan) -> list[Any]:
    """The validated game ``Config`` of each of the run's tables."""
    return [env.config for env in plan.tables.values()]


def check_sizes(plan: RunPlan) -> None:
    """``ValueError`` (one line) for a network whose agent file could not be saved (over the format's
    parameter cap, actor and critic together) or a rollout larger than this machine's memory."""
    args = plan.args
    inputs = max(env.observation_layout.size for env in plan.tables.values())
    actions = max(env.num_actions for env in plan.tables.values())
    check_network_size(args.net_arch, inputs, actions)
    # a rollout step keeps the observation (float32), the action mask and a few numbers per env
    rollout = args.num_envs * args.n_steps * (4 * inputs + actions + 64)
    check_memory(rollout, f"--num-envs {args.num_envs} x --n-steps {args.n_steps}: a rollout")


def options_wanted(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> dict[str, Any]:
    """The env options of ``theirs`` (a network's, or the phase that starts from this run's) that ``ours`` lacks or
    sets otherwise, the player count aside: what ``--env-kwargs`` must add for the network to read them."""
    return {key: value for key, value in theirs.items() if key != "num_players" and ours.get(key) != value}


def _options_fix(plan: RunPlan) -> str:
    """``"; it was trained with --env-kwargs k=v ..."`` when ``--init``'s file names env options this run
    lacks or sets otherwise (the shipped agents: ``table_layout=max``); ``""`` otherwise."""
    from agents.policy.agent import load_checkpoint

    try:
        theirs = load_checkpoint(plan.args.init)[1]["env_kwargs"]
    except ValueError:
        return ""
    ours = plan.env_config()
    differ = options_wanted(ours, theirs)
    if not differ:
        return ""
    return "; it was trained with --env-kwargs " + " ".join(f"{k}={v}" for k, v in differ.items()) + ": pass that"


def check_init(plan: RunPlan) -> None:
    """``ValueError`` (one line) unless ``--init`` names an agent file this run's network can start from."""
    from agents.policy.agent import load_initial_policy

    args = plan.args
    try:
        policy, _ = load_initial_policy(args.init, args.env_id, plan.observation_pieces, plan.num_actions)
    except ValueError as error:
        raise ValueError(f"{error}{_options_fix(plan)}") from None
    hidden = [int(w.shape[1]) for w in policy.weights[:-1]]
    activation = ACTIVATION_FLAGS[args.activation]
    if hidden != list(args.net_arch) or policy.activation != activation:
        theirs = next((name for name, module in ACTIVATION_FLAGS.items() if module == policy.activation), None)
        fix = f"--net-arch {' '.join(map(str, hidden))}" + (f" --activation {theirs}" if theirs else "")
        raise ValueError(
            f"--init {args.init!r}: its hidden layers are {hidden} ({policy.activation}); this run's are "
            f"--net-arch {' '.join(map(str, args.net_arch))} ({activation}): pass {fix}"
        )


def check_warm_start(plan: RunPlan) -> None:
    """``ValueError`` (one line) for a ``--warm-start`` with ``--init`` (two starting networks); its teacher is
    checked at every table with the run's other agents (`checked_plan`)."""
    args = plan.args
    if args.init is not None:
        raise ValueError(f"--warm-start {args.warm_start!r} with --init {args.init!r}: give one starting network")


def run_folder(args: TrainArgs) -> Path:
    """The folder of a new run: ``--out-dir/--run-name`` (default name: env id, seed, time)."""
    return Path(args.out_dir) / (args.run_name or f"{args.env_id}__s{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}")


def check_run_name(run_name: str | None) -> None:
    """``ValueError`` for a ``--run-name`` that names no folder of its own (empty, ``.`` or ``..``)."""
    if run_name is not None and Path(run_name).name in ("", ".", ".."):
        raise ValueError(f"--run-name {run_name!r}: give a folder name")


def check_new_run_folder(args: TrainArgs, run_dir: Path) -> None:
    """``ValueError`` unless a new run can be written to its folder ``run_dir`` (an existing run needs
    ``--overwrite``)."""
    check_run_name(args.run_name)
    if not args.out_dir:
        raise ValueError("--out-dir is empty; give the parent folder of the run folder (. for this one)")
    check_folder(run_dir, "--out-dir/--run-name")
    if (run_dir / "config.json").exists() and not args.overwrite:
        raise ValueError(f"run folder {run_dir} exists: pass --resume {run_dir}, --overwrite or another --run-name")


def check_resume_flags(args: TrainArgs, given: set[str]) -> None:
    """``ValueError`` (one line) unless ``args.resume`` is a run folder and this command line gives only
    what a resumed run may change."""
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


def saved_args(run_dir: Path, name: str = "config.json") -> TrainArgs:
    """The arguments in a run's ``config.json`` (or another file of arguments, ``name``), checked field by field
    as a command line is (unknown keys and values of the wrong type refused)."""
    path = run_dir / name
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
    resumed.max_cpu_s = args.max_cpu_s
    return resumed


def plan_run(args: TrainArgs, given: set[str]) -> RunPlan:
    """The plan of a command line, every check passed: the arguments in force (the saved ones when
    resuming, checked as a command line is, in stored form), the run folder, and what they derive,
    worked out once; ``ValueError`` (one line) before any work."""
    if args.resume == "":
        raise ValueError("--resume is empty; give the run folder to resume")
    if not args.resume:
        check_fields(args)
        if "num_workers" in given:  # this machine's CPUs (the default fits any; a resumed run may move)
            check_cpus(args.num_workers, "--num-workers")
        check_cpus(args.torch_threads, "--torch-threads")
        run_dir = run_folder(args)
        plan = checked_plan(args, run_dir)
        check_new_run_folder(args, run_dir)
        return plan
    run_dir = Path(args.resume)
    check_resume_flags(args, given)
    saved = resumed_args(args, given)  # its own errors name config.json
    try:
        plan = checked_plan(saved, run_dir)
    except ValueError as error:
        raise ValueError(f"{run_dir / 'config.json'}: {error}") from None
    _, reached, _, _ = newest_checkpoint(run_dir)
    if plan.args.total_timesteps < reached:
        raise ValueError(
            f"--total-timesteps {plan.args.total_timesteps}: the run already reached {reached} learner steps"
        )
    return plan


def train(args: TrainArgs, given: set[str] | None = None) -> Path:
    """Run (or resume) one training run; return its folder.

    ``given``: the fields set on the command line (a resume keeps the saved ``total_timesteps``
    unless it is given). Raises `KeyboardInterrupt` after saving when Ctrl-C stopped it.
    """
    return run_training(plan_run(args, given or set()), EVALUATOR)


def unused_workers_note(plan: RunPlan, given: set[str]) -> str | None:
    """The note for a ``--num-workers`` given to a run whose games will all be on the batched engine
    (where it has no effect); ``None`` otherwise."""
    args = plan.args
    if "num_workers" not in given or args.resume or not on_batched_engine(plan):
        return None  # the one-game engine uses the workers
    return (
        f"train: note: --num-workers {args.num_workers} has no effect: every game runs on the batched engine in "
        "this process (--engine single spreads one-game envs over worker processes)"
    )


def with_recipe(args: TrainArgs, given: set[str]) -> TrainArgs:
    """``args`` with the game's recipe (`agents.training.recipes`) in every field the command line left
    unset; ``args`` unchanged for ``--recipe none``, a resumed run, or a game without a recipe."""
    recipe = recipe_of_run(args)
    if recipe is None:
        return args
    unknown = sorted((set(recipe.train) | set(recipe.then)) - {f.name for f in dataclasses.fields(TrainArgs)})
    if unknown:
        raise ValueError(f"the {args.env_id} recipe sets unknown fields {unknown}")
    return dataclasses.replace(args, **{k: recipe.train[k] for k in recipe_fields_taken(recipe.train, given)})


def recipe_of_run(args: TrainArgs) -> Recipe | None:
    """The recipe a new run of ``args`` takes: ``None`` for ``--recipe none``, a resumed run, or a game without one."""
    if args.recipe == "none" or args.resume or args.env_id not in pirate_envs.ENV_IDS:
        return None
    return recipe_for(args.env_id)


def second_phase(args: TrainArgs, given: set[str], first: Path) -> TrainArgs | None:
    """The arguments of the recipe's second phase after a new run of ``args`` (the recipe applied) in the folder
    ``first``, or ``None`` when it has none: ``args`` with the phase's settings that no given flag sets or
    replaces, starting from the first run's last checkpoint, in the folder `PHASE_2_FOLDER` inside ``first``.
    Flags given hold in both phases (``--max-cpu-s 60``: a minute each)."""
    recipe = recipe_of_run(args)
    if recipe is None or not recipe.then:
        return None
    taken = {k: recipe.then[k] for k in recipe_fields_taken(recipe.then, given)}
    return dataclasses.replace(
        args,
        **taken,
        init=str(first / "checkpoints" / LATEST_FILE),
        warm_start=None,
        out_dir=str(first),
        run_name=PHASE_2_FOLDER,
    )


def pending_phase(args: TrainArgs) -> TrainArgs | None:
    """The recipe's second phase that a resumed first phase goes on into: the arguments the first run saved
    (`PHASE_2_CONFIG`: the flags of the command that started it held there), with this command line's
    ``--progress``; its budget flags are the first phase's (what is left of its CPU cap, say), not the second's.
    ``None`` when the folder has none. ``ValueError`` once the second phase has started (resume its folder)."""
    first = Path(args.resume)  # type: ignore[arg-type]
    if not (first / PHASE_2_CONFIG).is_file():
        return None
    if (first / PHASE_2_FOLDER / "config.json").is_file():
        second = shlex.quote(str(first / PHASE_2_FOLDER))
        raise ValueError(f"--resume {first}: its second phase has started; resume that run: --resume {second}")
    return dataclasses.replace(saved_args(first, PHASE_2_CONFIG), progress=args.progress)


def plan_phases(args: TrainArgs, given: set[str]) -> tuple[RunPlan | None, TrainArgs | None]:
    """The plan of a command line (`plan_run`, the recipe applied) and the arguments of the recipe's second
    phase (``None`` without one: a new run's from the recipe, a resumed first phase's from its folder, see
    `pending_phase`), checked as far as they can be before the first phase has run (its start, the first
    phase's last checkpoint, is checked when the second phase starts); ``ValueError`` (one line). The plan is
    ``None`` for a resumed first phase that had finished: the command goes straight on to the second."""
    args = with_recipe(args, given)
    plan: RunPlan | None
    if args.resume:
        then = pending_phase(args)
        if then is not None and ended_of_itself(Path(args.resume)):
            check_resume_flags(args, given)
            plan = None
        else:
            plan = plan_run(args, given)
    else:  # a new run (or an empty --resume, which plan_run refuses)
        plan = plan_run(args, given)
        then = second_phase(args, given, plan.run_dir)
        if then is not None:
            plan = dataclasses.replace(plan, next_phase=dataclasses.asdict(then))
    if then is not None:
        try:
            second = plan_run(dataclasses.replace(then, init=None), given)
        except ValueError as error:
            raise ValueError(f"the recipe's second phase: {error}") from None
        if plan is not None:
            check_phase_options(plan, second)
    return plan, then


def check_phase_options(first: RunPlan, second: RunPlan) -> None:
    """``ValueError`` (one line) unless the recipe's second phase observes its tables with the first phase's env
    options (its network starts from the first's last checkpoint): found before the first phase runs, not when
    the second starts (a second phase of several table sizes observes in ``table_layout=max``)."""
    ours, theirs = dict(first.env_options), dict(second.env_options)
    if ours == theirs:
        return
    differ = options_wanted(ours, theirs)
    kept = [word for word in first.args.env_kwargs if word.partition("=")[0] not in differ]  # as the user wrote them
    wanted = " ".join([*kept, *(f"{key}={value}" for key, value in differ.items())])
    raise ValueError(
        f"the recipe's second phase observes its tables with env options {theirs}, the first phase with {ours} "
        f"(its network could not start from the first's): pass --env-kwargs {wanted}"
    )


#: Flags that replace recipe fields they do not name: a network given by ``--init`` takes no warm start; table
#: sizes given (``--num-players``) take none of the weights of the recipe's sizes, nor its table of
#: ``--finish choose``; a run that may put work in other processes (``--pipeline-in``, ``--engine``,
#: ``--num-workers``) takes no CPU cap, which counts this process only (`check_cpu_budget`); its budget is then
#: the recipe's learner steps.
REPLACES_RECIPE_FIELDS = {
    "init": ("warm_start", "warm_start_games", "warm_start_rounds", "warm_start_epochs"),
    "num_players": ("player_weights", "choose_players"),
    "pipeline_in": ("max_cpu_s",),
    "engine": ("max_cpu_s",),
    "num_workers": ("max_cpu_s",),
}


def recipe_fields_taken(settings: dict[str, Any], given: set[str]) -> list[str]:
    """The fields of a recipe's ``settings`` a run takes: those no given flag sets or replaces
    (`REPLACES_RECIPE_FIELDS`)."""
    replaced = {name for flag in given for name in REPLACES_RECIPE_FIELDS.get(flag, ())}
    return [name for name in settings if name not in given and name not in replaced]


def recipe_note(args: TrainArgs, given: set[str]) -> str | None:
    """The lines naming the recipe settings a new run takes, and those of its second phase (``None`` when it
    takes none)."""
    recipe = recipe_of_run(args)
    if recipe is None:
        return None
    lines = []
    taken = recipe_fields_taken(recipe.train, given)
    if taken:
        flags = shlex.join(recipe.flags(taken))
        lines.append(f"train: the {args.env_id} recipe sets {flags} (--recipe none: the plain defaults)")
    then = recipe_fields_taken(recipe.then, given)
    if recipe.then:
        flags = shlex.join(recipe.then_flags(then))
        lines.append(
            f"train: then its second phase, from the run's last checkpoint (in the run folder's {PHASE_2_FOLDER}/), "
            f"sets {flags or 'nothing over the first'}"
        )
    return "\n".join(lines) or None


def main(argv: list[str] | None = None) -> Path:
    given = given_flags(TrainArgs, argv)
    args, (plan, then) = parse_plan(TrainArgs, lambda args: plan_phases(args, given), argv, epilog=games_epilog())
    note = recipe_note(args, given)
    if note is not None:
        print(note, file=sys.stderr, flush=True)
    note = unused_workers_note(plan, given) if plan is not None else None
    if note is not None:
        print(note, file=sys.stderr, flush=True)
    if plan is not None:  # None: a resumed first phase that had finished
        try:
            run_dir = run_training(plan, EVALUATOR)
        except KeyboardInterrupt:
            if then is not None:
                print("(the resume goes on into the recipe's second phase)", file=sys.stderr, flush=True)
            raise SystemExit(INTERRUPTED) from None
        if then is None:
            return run_dir
    assert then is not None  # a plan is None only before a second phase
    print(f"train: the recipe's second phase, from {then.init}", file=sys.stderr, flush=True)
    try:
        second = plan_run(then, given)
    except ValueError as error:  # its start, checked now that the first phase wrote it
        raise SystemExit(f"train: error: the recipe's second phase: {error}") from None
    try:
        return run_training(second, EVALUATOR)
    except KeyboardInterrupt:
        raise SystemExit(INTERRUPTED) from None


if __name__ == "__main__":
    main()
