"""Tournaments between agents, seats rotated, with 95% confidence intervals.

    python -m experiments.evaluate --env-id piraten_kapern_v0 --agents oracle heuristic random --games 30

``--agents`` lists one agent per seat (any name of the grammar `agents.spec`; ``NAMEx<k>`` is ``k``
copies of ``NAME``); ``--players`` decides how the names fill one table or a league. Game ``g``
seats agent ``k`` of a lineup at seat ``(k + g) mod n``; a win shared by ``w`` players counts
``1/w``, a truncated game none. The intervals are over games, never seats (`agents.evaluation.summary`):
Wilson's for one seat a game, Student t for copies, a normal interval over deals with ``--duplicate``;
OpenSkill ratings and a head-to-head matrix beside them. ``--out`` gets ``results.md``,
``results.json`` and ``results.png``; ``--save-games`` one JSON record per game, never overwritten;
``--from-records`` replays saved records into one evaluation (`agents.evaluation.records`).
Bad arguments end the command before any game with one line and exit status 2.

The seats and leagues, the intervals, the records and every option: ``docs/guides/evaluating.md``.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pirate_envs
from agents.evaluation.games import deal_of
from agents.evaluation.records import RecordWriter, load_records
from agents.evaluation.summary import AgentResult, markdown_cell
from agents.evaluation.tournament import (
    RecordsOutcome,
    TournamentOutcome,
    TournamentPlan,
    outcome_of_records,
    play_tournament,
)
from agents.extras import MissingExtra, require
from agents.processes import WorkerDied
from experiments.cli import (
    check_agents,
    check_cpus,
    check_env_id,
    check_folder,
    check_players,
    flag_of,
    games_epilog,
    given_flags,
    parse_env_kwargs,
    parse_plan,
)
from pirate_envs.core.files import write_atomic


@dataclass
class EvalArgs:
    """Play a seat-rotated tournament and print win rates and mean scores with 95% intervals."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["oracle", "heuristic", "random"],
        metadata={"help": "one agent name per seat, NAMEx<k> for k copies (each game's names are listed below)"},
    )
    games: int = field(default=30, metadata={"help": "number of games (per pairing in a league)", "min": 1})
    seed: int = field(default=0, metadata={"help": "seed of the first game (game g uses seed + g)", "min": 0})
    players: int = field(
        default=0,
        metadata={
            "help": "players per game (0: one seat per agent; more: the last agent fills the rest; fewer: a league)",
            "min": 0,
        },
    )
    out: str | None = field(default=None, metadata={"help": "folder for results.md and results.json"})
    duplicate: bool = field(
        default=False,
        metadata={"help": "play every deal once per rotation of the agents (same seed); games: a multiple of n"},
    )
    workers: int = field(default=1, metadata={"help": "processes playing games in parallel", "min": 1})
    progress: bool = field(default=True, metadata={"help": "show games done, rate and time left on stderr"})
    save_games: str | None = field(
        default=None, metadata={"help": "folder for one JSON record per game (numbered on after those there)"}
    )
    env_kwargs: list[str] = field(
        default_factory=list, metadata={"help": "more env arguments, key=value (e.g. promo_cards=True)"}
    )
    from_records: list[str] = field(
        default_factory=list,
        metadata={"help": "play nothing: summarise the game records saved in these folders (replayed, checked)"},
    )


#: The fields that choose the games to play, refused beside ``--from-records`` (the records hold them).
PLAYING_FIELDS = ("env_id", "agents", "games", "seed", "players", "workers", "save_games", "env_kwargs")


#: The most games one command plays (over every pairing of a league): their records stay in memory.
MAX_GAMES = 1_000_000
#: The largest game seed: every seed stays a signed 64-bit integer (numpy, JSON readers).
MAX_SEED = 2**63 - 1


def check_env_options(args: EvalArgs, players: int) -> dict[str, Any]:
    """The ``--env-kwargs`` of ``args``; ``ValueError`` (one line) unless they make a ``players``-seat env."""
    options = parse_env_kwargs(args.env_kwargs) if args.env_kwargs else {}  # its errors name --env-kwargs
    try:
        if "num_players" in options:
            raise ValueError("the player count comes from --players or --agents, not num_players")
        json.dumps(options)  # the game records hold them
        pirate_envs.make(args.env_id, raw=True, **options, num_players=players)
    except (TypeError, ValueError) as error:
        raise ValueError(f"--env-kwargs {' '.join(args.env_kwargs)}: {error}") from None
    return options


#: ``NAMEx<k>`` in ``--agents``: ``k`` copies of the agent ``NAME`` (``heuristicx5``).
COPIES = re.compile(r"(.+)x([1-9][0-9]*)")


def expand_copies(names: list[str], max_copies: int) -> list[str]:
    """``names`` with each ``NAMEx<k>`` written out as ``k`` copies of ``NAME``.

    ``ValueError`` (one line) for more than ``max_copies`` copies (the largest table).
    """
    lineup = []
    for name in names:
        match = COPIES.fullmatch(name)
        if match is None:
            lineup.append(name)
            continue
        copies = int(match.group(2))
        if copies > max_copies:
            raise ValueError(f"--agents {name}: at most {max_copies} copies, the largest table")
        lineup += [match.group(1)] * copies
    return lineup


def table_lineup(args: EvalArgs) -> tuple[list[str], int]:
    """The agent names of ``--agents`` (copies written out) and the seats of a table.

    ``--players`` 0 seats one per name. More seats than names: the last name fills the rest
    (``--agents ppo:x heuristic --players 6``: ``ppo:x`` and five heuristics). Fewer: a league.
    """
    counts = pirate_envs.player_counts(args.env_id)
    if args.players > counts[-1]:  # refused before a list of that many seats is made
        check_players(args.env_id, args.players, "--players")
    names = expand_copies(args.agents, counts[-1])
    players = args.players or len(names)
    return names + [names[-1]] * (players - len(names)), players


def check_extras(args: EvalArgs) -> None:
    """``ValueError`` (one line naming the extra) unless the modules the command needs are installed:
    openskill (the ratings) and matplotlib (``results.png``, with ``--out``)."""
    needs = ["openskill"] + ["matplotlib"] * bool(args.out)
    try:
        for module in needs:
            require(module, "train")
    except MissingExtra as error:
        raise ValueError(str(error)) from None


def plan_of(args: EvalArgs) -> TournamentPlan:
    """The tournament (or league) of ``args``; ``ValueError`` (one line) for arguments that cannot
    make one. Runs before any game.

    The output folders are checked last (made, and a file written and removed in each), so a
    refused command leaves none behind.
    """
    check_extras(args)
    check_env_id(args.env_id)
    names, players = table_lineup(args)
    distinct = len(dict.fromkeys(names))
    if players < len(names) and players > distinct:
        raise ValueError(f"--players {args.players}: a league seats distinct agents, at most {distinct} here")
    if args.duplicate and args.games % players:
        raise ValueError(f"--duplicate plays each deal once per rotation: --games must be a multiple of {players}")
    check_players(args.env_id, players, "--players" if args.players else "--agents (one seat each)")
    options = check_env_options(args, players)
    check_agents(names, args.env_id, players, "--agents", options, user_code=True)
    check_cpus(args.workers, "--workers")
    lineups = math.comb(distinct, players) if players < len(names) else 1
    if args.games * lineups > MAX_GAMES:
        per = f" x {lineups} pairings" if lineups > 1 else ""
        raise ValueError(f"--games {args.games}{per}: at most {MAX_GAMES:,} games in one command")
    last_seed = args.seed + deal_of(args.games - 1, players, args.duplicate)[0]
    if last_seed > MAX_SEED:
        raise ValueError(f"--seed {args.seed}: the games' seeds run to {last_seed}, above the largest seed {MAX_SEED}")
    for flag, folder in (("--save-games", args.save_games), ("--out", args.out)):
        if folder is not None:
            check_folder(folder, flag)
    return TournamentPlan(
        args.env_id, tuple(names), players, args.games, args.seed, args.duplicate, args.workers, args.progress, options
    )


def write_results(args: EvalArgs, outcome: TournamentOutcome, header: str, tables: str) -> Path:
    """Write ``results.md``, ``results.json`` and ``results.png`` into ``--out``; the folder."""
    from agents.evaluation.plots import tournament_chart

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "results.md", f"{markdown_cell(header)}\n\n{tables}\n")  # names may come from records
    payload = {
        "args": asdict(args),
        "lineup": list(outcome.plan.lineup),
        "results": [asdict(r) for r in outcome.results],
        "truncated": sum(outcome.truncation_reasons.values()),
        "truncation_reasons": outcome.truncation_reasons,
        "head_to_head": outcome.head_to_head,
    }
    write_atomic(out / "results.json", json.dumps(payload, indent=2))
    chance = 1 / outcome.plan.players
    tournament_chart([asdict(r) for r in outcome.results], out / "results.png", header, chance=chance)
    return out


def records_plan(args: EvalArgs, given: set[str]) -> RecordsOutcome:
    """The saved games of ``--from-records`` (replayed and checked) summarised; ``ValueError`` (one line)
    for a flag that chooses new games, a missing extra, an ``--out`` that cannot be written, or
    records that cannot make one evaluation (`load_records`, `outcome_of_records`)."""
    clash = [name for name in PLAYING_FIELDS if name in given]
    if clash:
        raise ValueError(f"{flag_of(clash[0])}: --from-records summarises saved games; the records name their games")
    check_extras(args)
    if args.out is not None:
        check_folder(args.out, "--out")
    return outcome_of_records(load_records(args.from_records), args.duplicate)


def records_header(found: RecordsOutcome, folders: list[str]) -> str:
    """The header of a summary of saved games: where they come from, their seeds, the deals left out."""
    seeds = sorted({record.seed for _, record in found.outcome.played if record.seed is not None})
    header = f"{found.outcome.header()}; {len(found.outcome.played)} saved games from {', '.join(folders)}"
    header += f", seeds {seeds[0]} to {seeds[-1]}" if seeds else ""
    if found.left_out:
        shown = ", ".join(map(str, found.left_out[:10])) + (" ..." if len(found.left_out) > 10 else "")
        deals = f"{len(found.left_out)} deal" + "s" * (len(found.left_out) != 1)
        header += f"; left out {deals} short of a rotation (seeds {shown})"
    return header


def main(argv: list[str] | None = None) -> list[AgentResult]:
    argv = list(argv) if argv is not None else sys.argv[1:]
    given = given_flags(EvalArgs, argv)

    def plan_or_records(args: EvalArgs) -> TournamentPlan | RecordsOutcome:
        return records_plan(args, given) if args.from_records else plan_of(args)

    args, plan = parse_plan(EvalArgs, plan_or_records, argv, epilog=games_epilog())
    if isinstance(plan, RecordsOutcome):
        outcome, header, writer = plan.outcome, records_header(plan, args.from_records), None
    else:
        writer = RecordWriter(args.save_games, args.env_id, **plan.env_kwargs) if args.save_games else None
        try:
            outcome = play_tournament(plan, on_game=writer.write if writer else None)  # records saved as games end
        except WorkerDied as error:  # one line, and where the games that ended are
            saved = f"the games that ended are saved in {args.save_games}" if writer else "no game was saved"
            raise SystemExit(f"evaluate: {error}; {saved}") from None
        header = outcome.header()
    tables = outcome.tables()
    print(header)
    print(tables)
    if writer is not None:
        paths = writer.paths
        names = f" ({paths[0].name} to {paths[-1].name})" if paths else ""
        print(f"wrote {len(paths)} game records to {args.save_games}{names}")
    if args.out:
        out = write_results(args, outcome, header, tables)
        print(f"wrote {out / 'results.md'}, results.json and results.png")
    return outcome.results


if __name__ == "__main__":
    main()
