"""Published strategy findings: the analyzer's statistics of the shipped agents, one docs page per game.

    python -m experiments.strategy_pages --out docs/strategy
    python -m experiments.strategy_pages --out docs/strategy --from-stats   # the pages only, from stats/

Each page opens with the game's advice (``stats/<game>_advice.json`` from ``experiments.strategy_advice``:
`agents.analysis.advice`), then where play goes wrong (``stats/<game>_mistakes.json`` from
``experiments.strategy_mistakes``: `agents.analysis.mistakes`), each where its statistics exist; then the
agent comparisons: `PLANS`' seat-rotated games of the shipped agents (``random``, ``heuristic``,
``ppo:<env_id>``, ``mcts``, Kapern's ``oracle``) played with `agents.analysis.analyze`, written into
``--out`` as ``<game>.md`` (budget, findings in plain words, every statistic's table and plot),
``img/<game>_<statistic>.png`` and ``stats/<game>.json`` (as ``stats.json`` of ``experiments.analyze``).

Nothing on a page is typed by hand: each finding is a template filled from the statistics (`Finding`:
"above" or "below" where the 95% intervals do not overlap, else "not clearly different from").
``--games`` plays that many games instead of the plan's, ``--no-search`` leaves ``mcts`` out,
``--env-ids`` picks games, ``--from-stats`` plays nothing and writes the pages from ``--out``'s
``stats/``. Files are written atomically; bad arguments end the command with one line (exit status 2).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.analysis.pages import PLANS, rewrite_game, write_game
from agents.extras import MissingExtra, require
from experiments.cli import MAX_SEED, check_folder, check_names, parse_args
from experiments.evaluate import MAX_GAMES


@dataclass
class StrategyPagesArgs:
    """Run the strategy analyzer for the shipped agents and write one findings page per game."""

    out: str = field(default="docs/strategy", metadata={"help": "folder for <game>.md, img/ and stats/"})
    games: int = field(default=0, metadata={"help": "games per game (0: each game's planned budget)", "min": 0})
    seed: int = field(default=0, metadata={"help": "seed of the first game of each run", "min": 0, "max": MAX_SEED})
    search: bool = field(default=True, metadata={"help": "seat the tree search (mcts)"})
    env_ids: list[str] = field(default_factory=lambda: list(PLANS), metadata={"help": "the games to write"})
    from_stats: bool = field(default=False, metadata={"help": "play nothing: write the pages from <out>/stats"})


def check_args(args: StrategyPagesArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make the pages; runs before any game."""
    try:
        require("matplotlib", "train")
    except MissingExtra as error:
        raise ValueError(str(error)) from None
    for env_id in args.env_ids:
        if env_id not in PLANS:
            raise ValueError(f"--env-ids {env_id!r} is not a game; valid ids: {', '.join(PLANS)}")
    check_names(args.env_ids, "--env-ids")
    for env_id in args.env_ids if args.from_stats else ():
        stats = Path(args.out) / "stats" / f"{env_id.removesuffix('_v0')}.json"
        if not stats.is_file():
            raise ValueError(f"--from-stats: {stats} is missing; run the analysis first (without --from-stats)")
    if args.games > MAX_GAMES:
        raise ValueError(f"--games {args.games}: at most {MAX_GAMES:,} games in one command")
    check_folder(args.out, "--out")


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run the command; each game's run by env id."""
    args = parse_args(StrategyPagesArgs, argv, check=check_args)
    out = Path(args.out)
    command = " ".join(["python -m experiments.strategy_pages", *(sys.argv[1:] if argv is None else argv)])
    runs = {}
    for env_id in dict.fromkeys(args.env_ids):
        if args.from_stats:
            run = rewrite_game(out, env_id, command)
        else:
            run = write_game(out, env_id, args.games, args.seed, args.search, command)
        runs[env_id] = run
        print(f"{env_id}: {run['games']} games, lineup {' '.join(run['lineup'])}: wrote {out}/{env_id[:-3]}.md")
    return runs


if __name__ == "__main__":
    main()
