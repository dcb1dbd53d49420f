"""The benchmark protocol (``pirate-bench v2``) for one agent, or the leaderboard page.

    python -m experiments.benchmark --env-id skull_king_v0 --agent ppo:skull_king_v0 --out runs/bench
    python -m experiments.benchmark --leaderboard docs/leaderboard.md --deals 128 --search-deals 2

The first plays the candidate ``--agent`` against every fixed line-up of the protocol (copies of
``random``, ``heuristic``, ``mcts`` and the game's shipped ``ppo:<env_id>``) at every table size
it plays (``--players`` to choose some), on the published deals, every deal once per seat
rotation, and writes ``results.json`` and ``results.md`` to ``--out`` (see
``agents.benchmark``; ``docs/benchmark.md`` is the protocol). ``--deals`` plays only the
first deals of the list (a reduced run, marked so); ``--opponents`` only some line-ups;
``--workers`` spreads batches of deals over processes (the figures do not change).

``--leaderboard PATH`` instead writes the leaderboard page: every built-in agent of every game,
at ``--deals`` per line-up (``--search-deals`` where ``mcts`` plays), against ``--opponents``
(default: all) and at the game's default table (``--players`` is ignored; ``--all-sizes`` for
every size); with ``--out``, every figure of the page goes to ``leaderboard.json`` there too.
Bad arguments end the command with one line and exit status 2 before any game.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pirate_envs
from agents.benchmark.protocol import DEAL_COUNT, OPPONENTS, SEARCH_DEAL_COUNT, TITLE
from experiments.cli import (
    check_agents,
    check_env_id,
    check_folder,
    check_names,
    check_players,
    flag_of,
    games_epilog,
    given_flags,
    parse_args,
)
from experiments.evaluate import available_cpus


@dataclass
class BenchmarkArgs:
    """Run the pirate-bench protocol for one agent (results.json, results.md), or write the leaderboard."""

    env_id: str = field(default="skull_king_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agent: str = field(default="heuristic", metadata={"help": "the candidate: an agent name (listed below)"})
    players: list[int] = field(default_factory=list, metadata={"help": "table sizes (default: all it plays)"})
    deals: int = field(
        default=0, metadata={"help": f"deals per line-up (0: the protocol's {DEAL_COUNT})", "min": 0, "max": DEAL_COUNT}
    )
    search_deals: int = field(
        default=0,
        metadata={"help": f"leaderboard: deals where mcts plays (0: {SEARCH_DEAL_COUNT})", "min": 0, "max": DEAL_COUNT},
    )
    opponents: list[str] = field(
        default_factory=list, metadata={"help": f"line-ups to play (default: all of {OPPONENTS})"}
    )
    workers: int = field(default=1, metadata={"help": "processes playing batches of deals", "min": 1})
    out: str | None = field(default=None, metadata={"help": "folder for results.json and results.md"})
    leaderboard: str | None = field(default=None, metadata={"help": "write the leaderboard page to this path"})
    all_sizes: bool = field(default=False, metadata={"help": "leaderboard: every table size, not the default one"})
    progress: bool = field(default=True, metadata={"help": "name each line-up on stderr as it starts"})


#: The flags only a leaderboard uses, and those only a run of one agent uses (given to the other: refused).
LEADERBOARD_ONLY = ("search_deals", "all_sizes")
RUN_ONLY = ("env_id", "agent", "players")


def check(args: BenchmarkArgs, given: set[str] | frozenset[str] = frozenset()) -> None:
    """``ValueError`` (one line) for arguments that cannot make a run, or a flag of ``given`` (the
    flags the command line set) that this kind of run would not use; nothing is played before."""
    unused = [name for name in (RUN_ONLY if args.leaderboard is not None else LEADERBOARD_ONLY) if name in given]
    if unused:
        flags = " and ".join(flag_of(name) for name in unused)
        leaderboard = args.leaderboard is not None
        mode = "a --leaderboard run plays every game and agent" if leaderboard else "only --leaderboard uses it"
        raise ValueError(f"{flags}: {mode}; leave it out")
    if importlib.util.find_spec("numba") is None:
        raise ValueError('the benchmark plays on the batched engine, which needs numba: pip install -e ".[fast]"')
    if importlib.util.find_spec("openskill") is None:  # the ratings
        raise ValueError('the benchmark needs openskill (the train extra): pip install -e ".[train]"')
    cpus = available_cpus()
    if args.workers > cpus:
        raise ValueError(f"--workers {args.workers}: at most the {cpus} CPUs this process may use")
    check_names(args.opponents, "--opponents")  # a line-up named twice would be played twice
    for name in args.opponents:
        if name not in OPPONENTS:
            raise ValueError(f"--opponents {name!r} is not a line-up of {TITLE}; line-ups: {', '.join(OPPONENTS)}")
    if args.leaderboard is not None:
        check_folder(Path(args.leaderboard).parent, "--leaderboard")
        if args.out is not None:
            check_folder(args.out, "--out")
        return
    check_env_id(args.env_id)
    import pirate_envs.vector

    if args.env_id not in pirate_envs.vector.COVERED_ENV_IDS:
        raise ValueError(f"--env-id {args.env_id}: the batched engine does not cover it")
    from agents.benchmark.protocol import table_sizes

    try:
        sizes = table_sizes(args.env_id, args.agent)
    except (ValueError, OSError) as error:
        raise ValueError(f"--agent {args.agent!r}: {error}") from None
    for players in args.players:
        check_players(args.env_id, players, "--players")
        if players not in sizes:
            raise ValueError(f"--players {players}: {args.agent} plays {', '.join(map(str, sizes))} players here")
    for players in args.players or sizes[:1]:
        check_agents([args.agent], args.env_id, players, "--agent")
    if args.out is None:
        raise ValueError("--out: give a folder for results.json and results.md")
    check_folder(args.out, "--out")


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def main(argv: list[str] | None = None) -> dict:
    given = given_flags(BenchmarkArgs, argv)
    args = parse_args(BenchmarkArgs, argv, epilog=games_epilog(), check=lambda parsed: check(parsed, given))
    progress = _say if args.progress else None
    if args.leaderboard is not None:
        from agents.benchmark.leaderboard import build_leaderboard, leaderboard_markdown
        from agents.policy.checkpoint import write_atomic

        board = build_leaderboard(
            args.deals or DEAL_COUNT,
            args.search_deals or SEARCH_DEAL_COUNT,
            "all" if args.all_sizes else "default",
            opponents=tuple(args.opponents) or OPPONENTS,
            workers=args.workers,
            progress=progress,
        )
        words = sys.argv[1:] if argv is None else argv
        command = "python -m experiments.benchmark " + " ".join(shlex.quote(w) for w in words)
        write_atomic(args.leaderboard, leaderboard_markdown(board, command))
        if args.out is not None:  # every figure of the page, to render it again without playing
            write_atomic(Path(args.out) / "leaderboard.json", json.dumps(board, indent=2) + "\n")
        print(f"wrote {args.leaderboard} ({board['wall_seconds'] / 60:.1f} minutes)")
        return board
    from agents.benchmark.run import ProtocolRun, markdown, run_protocol, write_results

    run = ProtocolRun(
        args.env_id, args.agent, tuple(args.players), args.deals or None, args.workers, tuple(args.opponents), progress
    )
    document = run_protocol(run)
    print(markdown(document))
    paths = write_results(document, args.out)  # type: ignore[arg-type]
    print(f"wrote {paths[0]} and {paths[1].name}")
    return document


if __name__ == "__main__":
    main()
