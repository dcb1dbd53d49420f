"""Expert iteration: train a network on its own Gumbel search (Anthony et al. 2017; Gumbel AlphaZero).

    python -m experiments.expert_iteration --env-id skull_king_v0 --players 4 --simulations 16 \\
        --iterations 20 --games-per-iteration 16 --init skull_king_v0 --out runs/ei_sk4
    python -m experiments.expert_iteration --out runs/ei_sk4 --resume --iterations 40

Each iteration plays ``--games-per-iteration`` self-play games in which every seat moves by the
Gumbel search (``gumbel:<--simulations>``; ``--search halving``: the guided flat search
``halving:<--simulations>:ppo``, every world and rollout on the batched engine, at 200 simulations
16 times the positions a second of gumbel with rollout leaves; not Kapern) with the current network,
records every decision (observation, mask, the search's improved policy, the seat's win share at the
end), updates the network (cross-entropy to the policy targets plus the value head's squared error
to the result) and writes ``checkpoints/iteration_<k>.npz`` and ``latest.npz``: data-only agent
files with a value head, played by ``ppo:<file>``, ``gumbel:<n>:ppo:<file>`` or
``mcts:<n>:ppo:<file>``. The library is `agents.training.expert_iteration`.

``--players 4`` plays one table size; ``--players 2,3,4`` plays them in turn (the observation uses
``table_layout="max"`` always). ``--init AGENT`` starts from an agent file's weights (a shipped name
such as ``skull_king_v0`` or a path; a file without a value head gets a fresh one).

``--resume`` continues the run in ``--out`` up to ``--iterations`` (only ``--iterations`` and ``--progress``
beside it), giving the files of an uninterrupted run; Ctrl-C saves and prints the command that resumes.
Bad values end the command before any work with one line and exit status 2. Needs the ``train`` extra.
The iteration, the run folder and the measured runs: ``docs/guides/expert_iteration.md``.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"))

import pirate_envs
from agents.search.guided import GUMBEL_C_SCALE, GUMBEL_CONSIDERED
from agents.search.halving import HALVING, halving_searches
from agents.search.ismcts import MAX_SIMULATIONS
from agents.training.expert_iteration import (
    RUN_FILES,
    ExpertIterationPlan,
    completed_iteration,
    load_init,
    make_envs,
)
from agents.training.expert_iteration import run as run_expert_iteration
from agents.training.run import remove_temporaries, write_json
from experiments.cli import (
    INTERRUPTED,
    MAX_SEED,
    args_from_mapping,
    check_cpus,
    check_env_id,
    check_fields,
    check_folder,
    check_network_size,
    flag_of,
    games_epilog,
    given_flags,
    parse_args,
    parse_env_kwargs,
    table_envs,
)

#: The fields a ``--resume`` command line may set (the rest come from the run's ``config.json``).
RESUME_FIELDS = ("out", "resume", "iterations", "progress")
#: Fields of one invocation, not of the run (left out of ``config.json``).
INVOCATION_FIELDS = ("out", "resume", "progress")


@dataclass
class ExpertIterationArgs:
    """Train a network (policy and value head) on its own Gumbel search, by self-play."""

    env_id: str = field(default="skull_king_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    players: str = field(
        default="", metadata={"help": "table size, or sizes played in turn as 2,3,4 (empty: the game's default)"}
    )
    env_kwargs: list[str] = field(default_factory=list, metadata={"help": "more env arguments, key=value"})
    simulations: int = field(
        default=16, metadata={"help": "search iterations per move", "min": 1, "max": MAX_SIMULATIONS}
    )
    search: str = field(
        default="gumbel",
        metadata={
            "help": "the search of every seat: gumbel (the tree search, Gumbel's root) or halving (the guided "
            "flat search on the batched engine, heuristic rollouts; not Kapern)",
            "choices": ["gumbel", "halving"],
        },
    )
    leaf: str = field(
        default="value",
        metadata={
            "help": "what values the gumbel search's leaves: value (the network's value head) or rollout (the "
            "game's heuristic played to the search horizon, as mcts; the value head still learns); halving "
            "always rolls out",
            "choices": ["value", "rollout"],
        },
    )
    gumbel_considered: int = field(
        default=GUMBEL_CONSIDERED,
        metadata={"help": "the most root actions the search considers (m)", "min": 1},
    )
    gumbel_scale: float = field(
        default=GUMBEL_C_SCALE,
        metadata={
            "help": "sigma's scale c_scale in the search and its improved-policy target (MCTX: 0.1; lower: "
            "the target leans more on the network's prior)",
            "above": 0,
        },
    )
    iterations: int = field(
        default=10, metadata={"help": "iterations in all (with --resume: the saved value unless given)", "min": 1}
    )
    games_per_iteration: int = field(default=32, metadata={"help": "self-play games per iteration", "min": 1})
    init: str | None = field(
        default=None, metadata={"help": "agent file or shipped name whose weights start the network"}
    )
    net_arch: list[int] = field(
        default_factory=lambda: [128, 128], metadata={"help": "hidden layer sizes without --init", "min": 1}
    )
    epochs: int = field(default=2, metadata={"help": "passes over the replay window per iteration", "min": 1})
    batch_size: int = field(default=256, metadata={"help": "minibatch size", "min": 1})
    learning_rate: float = field(default=1e-3, metadata={"help": "Adam step size", "above": 0})
    value_weight: float = field(default=1.0, metadata={"help": "weight of the value loss", "min": 0})
    replay_iterations: int = field(
        default=4, metadata={"help": "iterations whose decisions each update trains on", "min": 1}
    )
    seed: int = field(default=1, metadata={"help": "seed of everything", "min": 0, "max": MAX_SEED})
    torch_threads: int = field(default=1, metadata={"help": "torch intra-op threads", "min": 1})
    out: str = field(default="", metadata={"help": "the run folder (required)"})
    resume: bool = field(default=False, metadata={"help": "continue the run in --out"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})


def table_sizes(args: ExpertIterationArgs) -> list[int]:
    """The table sizes of ``--players`` (the game's default when empty); ``ValueError`` (one line) when bad."""
    if not args.players.strip():
        return [pirate_envs.game_spec(args.env_id).default_players]
    words = args.players.split(",")
    if not all(word.strip().isdigit() for word in words):
        raise ValueError(f"--players {args.players!r}: give a table size or sizes separated by commas, as 2,3,4")
    sizes = [int(word) for word in words]
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"--players {args.players!r}: a table size is repeated")
    return sizes


def plan_of(args: ExpertIterationArgs, command: str | None = None) -> ExpertIterationPlan:
    """The run of checked ``args`` (a command line's or a saved config's); ``ValueError`` (one line) otherwise."""
    check_fields(args)
    game = check_env_id(args.env_id)
    options = {"table_layout": "max", **parse_env_kwargs(args.env_kwargs, {"num_players": "--players"})}
    sizes = table_sizes(args)
    table_envs(game, sizes, lambda players: {**options, "num_players": players}, args.env_kwargs)
    if not args.out:
        raise ValueError("--out: give the run folder")
    check_folder(args.out, "--out")
    if args.search == HALVING and not halving_searches(args.env_id):
        raise ValueError(f"--search halving does not search {args.env_id} (its search plays a turn for the win)")
    plan = ExpertIterationPlan(
        env_id=args.env_id,
        table_sizes=tuple(sizes),
        env_options=options,
        run_dir=Path(args.out),
        simulations=args.simulations,
        search=args.search,
        leaf=args.leaf,
        gumbel_considered=args.gumbel_considered,
        gumbel_scale=args.gumbel_scale,
        iterations=args.iterations,
        games_per_iteration=args.games_per_iteration,
        init=args.init,
        net_arch=tuple(args.net_arch),
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        value_weight=args.value_weight,
        replay_iterations=args.replay_iterations,
        seed=args.seed,
        torch_threads=args.torch_threads,
        command=command,
    )
    env = next(iter(make_envs(plan).values()))
    if args.init is not None:
        load_init(args.init, args.env_id, env)
    else:  # the networks' sizes come from --net-arch: their agent file must hold them
        check_network_size(args.net_arch, env.observation_layout.size, env.num_actions)
    return plan


def saved_config(args: ExpertIterationArgs) -> dict:
    """The run's arguments as ``config.json`` keeps them."""
    return {k: v for k, v in dataclasses.asdict(args).items() if k not in INVOCATION_FIELDS}


def resumed_args(args: ExpertIterationArgs, given: set[str]) -> ExpertIterationArgs:
    """The saved arguments of the run in ``--out``, with this command line's ``--iterations`` and ``--progress``;
    ``ValueError`` (one line) when it cannot be continued."""
    run_dir = Path(args.out)
    path = run_dir / "config.json"
    if not args.out or not path.is_file():
        raise ValueError(f"--resume: --out {args.out!r} is not a run folder (no config.json)")
    other = [flag_of(name) for name in sorted(given - set(RESUME_FIELDS))]
    if other:
        raise ValueError(
            f"{' '.join(other)}: a resumed run keeps the settings of {path}; with --resume give only --iterations, "
            "--progress"
        )
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not readable as JSON ({error})") from None
    if not isinstance(saved, dict):
        raise ValueError(f"{path}: expected a JSON object of arguments, got {type(saved).__name__}")
    resumed = args_from_mapping(ExpertIterationArgs, saved, str(path))
    resumed.out, resumed.resume, resumed.progress = args.out, True, args.progress
    if "iterations" in given:
        resumed.iterations = args.iterations
    reached = completed_iteration(run_dir)
    if resumed.iterations < reached:
        raise ValueError(f"--iterations {resumed.iterations}: the run already reached iteration {reached}")
    return resumed


def command_line(args: ExpertIterationArgs) -> str:
    """The command that makes this run (recorded in the agent files)."""
    words = ["python", "-m", "experiments.expert_iteration"]
    for f in dataclasses.fields(ExpertIterationArgs):
        value = getattr(args, f.name)
        if f.name in ("resume", "progress") or value is None or value == []:
            continue
        words += [flag_of(f.name), *(str(v) for v in (value if isinstance(value, list) else [value]))]
    return shlex.join(words)


def prepare(args: ExpertIterationArgs, given: set[str]) -> tuple[ExpertIterationArgs, ExpertIterationPlan]:
    """The arguments in force and the plan of a command line; ``ValueError`` (one line) before any work."""
    if args.resume:
        args = resumed_args(args, given)
        try:
            return args, plan_of(args, command_line(args))
        except ValueError as error:
            raise ValueError(f"{Path(args.out) / 'config.json'}: {error}") from None
    check_cpus(args.torch_threads, "--torch-threads")  # this machine's: a resumed run may move to another
    plan = plan_of(args, command_line(args))
    if (plan.run_dir / "config.json").exists():
        raise ValueError(f"--out {args.out}: a run is there; pass --resume to continue it or another --out")
    return args, plan


def main(argv: list[str] | None = None) -> Path:
    given = given_flags(ExpertIterationArgs, argv)
    prepared = []
    parse_args(
        ExpertIterationArgs,
        argv,
        epilog=games_epilog(),
        check=lambda parsed: prepared.append(prepare(parsed, given)),
    )
    args, plan = prepared[0]
    plan.run_dir.mkdir(parents=True, exist_ok=True)
    for path in remove_temporaries(plan.run_dir, RUN_FILES):
        print(f"removed {path}, a temporary file of a run that was killed")
    if not args.resume:
        write_json(plan.run_dir / "config.json", saved_config(args))
    try:
        path = run_expert_iteration(plan, progress=args.progress, log=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(
            f"\nstopped; the iterations finished are saved. Resume with: "
            f"python -m experiments.expert_iteration --out {shlex.quote(args.out)} --resume",
            file=sys.stderr,
        )
        raise SystemExit(INTERRUPTED) from None
    searcher = f"{HALVING}:ppo:{path}" if plan.search == HALVING else f"gumbel:16:ppo:{path}"
    print(f"wrote {path} (ppo:{path} plays it; {searcher} searches with it)")
    return path


if __name__ == "__main__":
    main()
