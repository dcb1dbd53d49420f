"""The benchmark protocol (``pirate-bench v3``; ``--protocol v2``) for one agent, or the leaderboard page.

    python -m experiments.benchmark --env-id skull_king_v0 --agent ppo:skull_king_v0 --out runs/bench
    python -m experiments.benchmark --env-id skull_king_v0 --agent path/to/my_agent.py:make --out runs/mine
    python -m experiments.benchmark --leaderboard runs/leaderboard_v2.md --deals 128 --search-deals 2
    python -m experiments.benchmark --verify docs/results/data

A run plays ``--agent`` against every fixed line-up of the protocol at every table size it plays, on
the published deals in every seat rotation, and writes ``results.json`` and ``results.md`` to ``--out``.
``--agent`` is a registry name or a Python agent of your own (loading it runs its code); ``--deals``,
``--opponents``, ``--workers`` and ``--ray`` choose what runs and where (the figures do not change);
``--resume`` goes on with a stopped run. ``--verify FOLDER`` recomputes the opponents' fingerprints of
the results files there; ``--leaderboard PATH`` writes pirate-bench v2's leaderboard page. Bad
arguments end the command with one line and exit status 2 before any game. Every flag:
``docs/benchmark.md`` ("The command in detail").
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pirate_envs
from agents.benchmark.protocol import (
    DEAL_COUNT,
    NAME,
    OPPONENTS_V2,
    REFERENCE_SHA256,
    SEARCH_DEAL_COUNT,
    VERSION,
    VERSIONS,
    opponents_of,
    title,
)
from experiments.cli import (
    check_agents,
    check_cpus,
    check_env_id,
    check_folder,
    check_names,
    check_output_file,
    check_players,
    flag_of,
    games_epilog,
    given_flags,
    parse_args,
    say_user_code,
)


@dataclass
class BenchmarkArgs:
    """Run the pirate-bench protocol for one agent (results.json, results.md), or write the leaderboard."""

    env_id: str = field(default="skull_king_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agent: str = field(
        default="heuristic",
        metadata={"help": "the candidate: an agent name (listed below), your module.path:factory or file.py:factory"},
    )
    protocol: str = field(
        default=f"v{VERSION}", metadata={"help": f"protocol version: {' or '.join(f'v{v}' for v in VERSIONS)}"}
    )
    players: list[int] = field(default_factory=list, metadata={"help": "table sizes (default: all it plays)"})
    deals: int = field(
        default=0,
        metadata={
            "help": "deals per line-up (0: the protocol's: v3 per line-up, v2 10000)",
            "min": 0,
            "max": DEAL_COUNT,
        },
    )
    search_deals: int = field(
        default=0,
        metadata={"help": f"leaderboard: deals where mcts plays (0: {SEARCH_DEAL_COUNT})", "min": 0, "max": DEAL_COUNT},
    )
    opponents: list[str] = field(
        default_factory=list, metadata={"help": "line-ups to play (default: all of the version's)"}
    )
    workers: int = field(default=1, metadata={"help": "processes playing batches of deals", "min": 1})
    ray: str | None = field(
        default=None,
        metadata={
            "help": "play the batches as tasks on a Ray cluster: 'auto' (the one this machine joined), 'local' "
            "(an instance of --workers CPUs for this run, on 127.0.0.1) or its address host:port"
        },
    )
    out: str | None = field(default=None, metadata={"help": "folder for results.json and results.md"})
    leaderboard: str | None = field(default=None, metadata={"help": "write the leaderboard page to this path"})
    verify: str | None = field(
        default=None, metadata={"help": "check the fingerprints of every results file in this folder, then stop"}
    )
    all_sizes: bool = field(default=False, metadata={"help": "leaderboard: every table size, not the default one"})
    progress: bool = field(default=True, metadata={"help": "name each line-up on stderr as it starts"})
    resume: bool = field(
        default=False,
        metadata={
            "help": "go on with a stopped run of the same command and commit: play only the batches it did not "
            "keep in --out/batches (without it, a run starts afresh)"
        },
    )


#: The flags only a leaderboard uses, and those only a run of one agent uses (given to the other: refused).
LEADERBOARD_ONLY = ("search_deals", "all_sizes")
RUN_ONLY = ("env_id", "agent", "players", "resume", "ray")


def check(args: BenchmarkArgs, given: set[str] | frozenset[str] = frozenset()) -> None:
    """``ValueError`` (one line) for arguments that cannot make a run, or a flag of ``given`` (the
    flags the command line set) that this kind of run would not use; nothing is played before."""
    if args.verify is not None:
        check_verify(args.verify, given)
        return
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
    if args.ray is not None:
        from agents.benchmark.ray_batches import LOCAL, check_ray

        try:
            check_ray()
        except ImportError as error:
            raise ValueError(str(error)) from None
        if args.ray != LOCAL and args.workers != 1:
            raise ValueError(f"--workers {args.workers} with --ray {args.ray!r}: the cluster's CPUs play; leave it out")
    check_cpus(args.workers, "--workers")
    check_names(args.opponents, "--opponents")  # a line-up named twice would be played twice
    if args.protocol not in [f"v{v}" for v in VERSIONS]:
        raise ValueError(f"--protocol {args.protocol!r}: versions {', '.join(f'v{v}' for v in VERSIONS)}")
    version = int(args.protocol[1:])
    if args.leaderboard is not None:
        version = 2  # the leaderboard's line-ups
    for name in args.opponents:
        if name not in opponents_of(version):
            choices = ", ".join(opponents_of(version))
            raise ValueError(f"--opponents {name!r} is not a line-up of {title(version)}; line-ups: {choices}")
    if args.leaderboard is not None:
        check_output_file(args.leaderboard, "--leaderboard", ".md")
        check_page_version(args.leaderboard, title(2))
        if args.out is not None:
            check_folder(args.out, "--out")
        return
    check_env_id(args.env_id)
    import pirate_envs.vector

    if args.env_id not in pirate_envs.vector.COVERED_ENV_IDS:
        raise ValueError(f"--env-id {args.env_id}: the batched engine does not cover it")
    if args.env_id not in REFERENCE_SHA256:  # a game version published after the protocol
        games = ", ".join(REFERENCE_SHA256)
        raise ValueError(f"--env-id {args.env_id}: not a game of {title(version)} (no reference network); {games}")
    from agents.benchmark.candidate import resolve
    from agents.benchmark.protocol import table_sizes

    say_user_code([args.agent], "--agent")
    try:
        candidate = resolve(args.agent)
        sizes = table_sizes(args.env_id, candidate)
    except (ValueError, OSError) as error:
        raise ValueError(f"--agent {args.agent!r}: {error}") from None
    check_names([str(players) for players in args.players], "--players")  # a table size played twice
    for players in args.players:
        check_players(args.env_id, players, "--players")
        if players not in sizes:
            raise ValueError(f"--players {players}: {args.agent} plays {', '.join(map(str, sizes))} players here")
    for players in args.players or sizes[:1]:
        if candidate.registry:
            check_agents([args.agent], args.env_id, players, "--agent")
            continue
        try:  # the user's factory, built once for a table of this size
            candidate.make(args.env_id, 0, pirate_envs.make(args.env_id, raw=True, num_players=players))
        except ValueError as error:  # whatever the user's code raises, or a factory that returns no agent
            raise ValueError(f"--agent {args.agent!r}: {error}") from None
    if args.out is None:
        raise ValueError("--out: give a folder for results.json and results.md")
    check_folder(args.out, "--out")


def check_page_version(path: str | Path, protocol: str) -> None:
    """``ValueError`` (one line) when ``path`` is a page that names a protocol version and not ``protocol``."""
    if not Path(path).is_file():
        return
    named = set(re.findall(rf"{NAME} v[0-9]+(?:\.[0-9]+)?", Path(path).read_text(errors="replace")))
    if named and protocol not in named:
        raise ValueError(
            f"--leaderboard {path}: that page is of {', '.join(sorted(named))}, this command writes {protocol}'s; "
            "give another path"
        )


def check_verify(folder: str, given: set[str] | frozenset[str]) -> None:
    """``ValueError`` (one line) for a ``--verify`` folder without results files, or with flags it does not use."""
    others = sorted(given - {"verify", "progress"})
    if others:
        raise ValueError(f"--verify checks a folder and plays nothing; leave out {' and '.join(map(flag_of, others))}")
    if not folder or not Path(folder).is_dir() or not any(Path(folder).rglob("*.json")):
        raise ValueError(f"--verify {folder!r}: no results files (*.json) there")


def verify(folder: str, progress: Callable[[str], None] | None) -> None:
    """`agents.benchmark.verify.verify_folder` of ``folder``, printed; exit status 1 on any difference."""
    from agents.benchmark.verify import verify_folder

    found = verify_folder(folder, progress=progress)
    for source, protocol in sorted(found.other_versions.items()):
        print(f"not verified: {source} was made under {protocol}")
    for source, why in sorted(found.earlier.items()):
        print(f"verified against its revision's fingerprints: {source} was {why}")
    for line in found.differences:
        print(f"DIFFERS: {line}")
    print(f"{len(found.checked)} files checked, {len(found.differences)} differences")
    if not found.ok:
        raise SystemExit(1)


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def public_command(words: list[str]) -> str:
    """The command line of ``words`` with every path cut to its last part (``/home/me/bot.py:make``:
    ``bot.py:make``; ``ppo:runs/a.npz``: ``ppo:a.npz``), as a results file records it: never a local folder."""
    cut = [re.sub(r"[^\s:]*/", "", word) for word in words]
    return "python -m experiments.benchmark " + " ".join(shlex.quote(word) for word in cut)


def committed_results() -> Path | None:
    """The checkout's committed results files (``docs/results/data``), to rank a run among; ``None`` outside one."""
    from agents.benchmark.provenance import ROOT

    folder = ROOT / "docs" / "results" / "data"
    return folder if folder.is_dir() else None


def main(argv: list[str] | None = None) -> dict:
    given = given_flags(BenchmarkArgs, argv)
    args = parse_args(BenchmarkArgs, argv, epilog=games_epilog(), check=lambda parsed: check(parsed, given))
    progress = _say if args.progress else None
    words = sys.argv[1:] if argv is None else argv
    command = "python -m experiments.benchmark " + " ".join(shlex.quote(w) for w in words)
    if args.verify is not None:
        verify(args.verify, progress)
        return {}
    if args.leaderboard is not None:
        from agents.benchmark.leaderboard import build_leaderboard, leaderboard_markdown
        from pirate_envs.core.files import write_atomic

        board = build_leaderboard(
            args.deals or DEAL_COUNT,
            args.search_deals or SEARCH_DEAL_COUNT,
            "all" if args.all_sizes else "default",
            opponents=tuple(args.opponents) or OPPONENTS_V2,
            workers=args.workers,
            progress=progress,
        )
        write_atomic(args.leaderboard, leaderboard_markdown(board, command))
        if args.out is not None:  # every figure of the page, to render it again without playing
            write_atomic(Path(args.out) / "leaderboard.json", json.dumps(board, indent=2) + "\n")
        print(f"wrote {args.leaderboard} ({board['wall_seconds'] / 60:.1f} minutes)")
        return board
    from agents.benchmark.ray_batches import CodeMismatch
    from agents.benchmark.run import ProtocolRun, markdown, run_protocol, write_results
    from agents.processes import WorkerDied

    run = ProtocolRun(
        args.env_id,
        args.agent,
        tuple(args.players),
        args.deals or None,
        args.workers,
        tuple(args.opponents),
        progress,
        int(args.protocol[1:]),
        batches=Path(args.out) / "batches",  # type: ignore[arg-type]
        resume=args.resume,
        command=public_command(words),
        rank_against=committed_results(),
        ray=args.ray,
    )
    try:
        document = run_protocol(run)
    except (WorkerDied, ConnectionError, CodeMismatch) as error:  # one line: what was kept, how to go on
        raise SystemExit(f"benchmark: {error}") from None
    print(markdown(document))
    paths = write_results(document, args.out)  # type: ignore[arg-type]
    print(f"wrote {paths[0]} and {paths[1].name}")
    return document


if __name__ == "__main__":
    main()
