"""Strategy analysis: how agents play, decision by decision, with 95% intervals.

    python -m experiments.analyze --env-id skull_king_v0 --agents heuristic random --players 3 \
        --games 50 --out runs/analyze

Plays ``--games`` seat-rotated games of the named agents against each other (names as
``experiments.evaluate`` takes them: ``random``, ``heuristic``, ``mcts``, ``ppo:<name>``,
``oracle`` for Piraten Kapern; ``NAMEx<k>`` for ``k`` copies), game ``g`` dealt with seed
``seed + g``, and collects per-decision statistics from the public events and the deciding
seat's View (`agents.analysis`). ``--players`` 0 seats one per name; more seats than names:
the last name fills the rest. Writes ``report.md`` (tables, agents side by side),
``stats.json`` (every figure with its interval and count) and PNG plots to ``--out``, each
file written atomically; prints the figures that have no grouping.

``--engine auto`` (the default) plays the games on the batched engine when every agent has a
batched form (``random``, ``heuristic``, ``ppo:<...>``), many at once, and replays each on its
reference engine for the statistics (`agents.analysis.batched`: game ``g`` is then the batched
engine's deal of seed ``seed + g``, not the AEC env's); otherwise on the AEC env.
``--engine batched`` refuses an agent without a batched form, ``--engine aec`` never uses it.
The engine that played is printed and recorded in ``stats.json`` (``engine``).

Bad arguments (an unknown game or agent, a player count the game does not allow, fewer seats than
names, an agent that does not fit the table, too many games, a seed out of range, an ``--out`` that
cannot be written, matplotlib missing, ``--engine batched`` with an agent that has no batched form)
end the command before any game with one line and exit status 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pirate_envs
from agents.analysis import analyze
from agents.analysis.batched import ENGINES, choose_engine
from agents.analysis.report import REPORT_FILE, STATS_FILE, cell_text, write_report
from agents.extras import MissingExtra, require
from experiments.cli import MAX_SEED, check_agents, check_env_id, check_folder, check_players, games_epilog, parse_args
from experiments.evaluate import MAX_GAMES, table_lineup


@dataclass
class AnalyzeArgs:
    """Play seat-rotated games and write per-decision strategy statistics with 95% intervals."""

    env_id: str = field(default="skull_king_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["heuristic", "random"],
        metadata={"help": "one agent name per seat, NAMEx<k> for k copies (each game's names are listed below)"},
    )
    players: int = field(
        default=0,
        metadata={"help": "players per game (0: one seat per agent; more: the last agent fills the rest)", "min": 0},
    )
    games: int = field(default=20, metadata={"help": "number of games (game g uses seed + g)", "min": 1})
    seed: int = field(default=0, metadata={"help": "seed of the first game", "min": 0})
    out: str = field(default="runs/analyze", metadata={"help": "folder for report.md, stats.json and the plots"})
    engine: str = field(
        default="auto",
        metadata={
            "help": "where the games are played: batched (every agent needs a batched form), aec, "
            "or auto (batched when every agent has one)",
            "choices": list(ENGINES),
        },
    )


def check_args(args: AnalyzeArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make an analysis; runs before any game."""
    try:
        require("matplotlib", "train")
    except MissingExtra as error:
        raise ValueError(str(error)) from None
    check_env_id(args.env_id)
    lineup, players = table_lineup(args)  # type: ignore[arg-type]  # reads agents, env_id and players
    if players < len(lineup):
        raise ValueError(f"--players {players}: fewer seats than the {len(lineup)} agents named; each needs a seat")
    check_players(args.env_id, players, "--players" if args.players else "--agents (one seat each)")
    check_agents(lineup, args.env_id, players, "--agents")
    if args.games > MAX_GAMES:
        raise ValueError(f"--games {args.games}: at most {MAX_GAMES:,} games in one command")
    if args.seed + args.games - 1 > MAX_SEED:
        raise ValueError(f"--seed {args.seed}: the games' seeds run to {args.seed + args.games - 1}, above {MAX_SEED}")
    check_folder(args.out, "--out")
    if args.engine == "batched":  # auto falls back to the AEC env; batched must play every agent
        choose_engine(args.engine, args.env_id, lineup)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the command; the run's description with its ``stats`` (as written to ``stats.json``)."""
    args = parse_args(AnalyzeArgs, argv, epilog=games_epilog(), check=check_args)
    lineup, _ = table_lineup(args)  # type: ignore[arg-type]
    meta, stats = analyze(args.env_id, lineup, args.games, args.seed, engine=args.engine)
    from agents.evaluation.plots import short_labels  # imports matplotlib: only once check_args found it

    labels = short_labels(meta["agents"])
    written = write_report(args.out, meta, stats, labels)
    engine = f"on the {meta['engine']} engine"
    print(f"{args.env_id}: {args.games} games {engine}, lineup {' '.join(lineup)}, seed {args.seed}")
    for stat in stats.values():
        overall = stat["groups"].get("all")
        if overall:
            pairs = zip(meta["agents"], labels)
            cells = ", ".join(f"{label} {cell_text(overall.get(agent), stat['kind'])}" for agent, label in pairs)
            print(f"  {stat['title']}: {cells}")
    print(f"wrote {args.out}/{REPORT_FILE}, {STATS_FILE} and {len(written) - 2} plots")
    return {**meta, "stats": stats}


if __name__ == "__main__":
    main()
