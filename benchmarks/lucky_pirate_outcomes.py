"""How Lucky Pirate games end: won, stranded or guarded, per player count, ruling and agents.

Plays ``--games`` games per cell with random agents (uniform by action block) or heuristics in
every seat, 2 to 6 players, under the default First Mate ruling (a 9 that may also go on a
Captain) and the old one (``first_mate_only_on_captain=True``). Each game is seeded
(``--seed`` + game index), so a run is reproducible.

* ``won``: somebody shed his last card.
* ``stranded``: truncated because every seat holds a First Mate that can never be played (only
  under the old ruling); ``dead at deal`` counts those already stranded right after the deal.
* ``guarded``: truncated by the turn-limit guard (``--max-turns``).

Dead deals and stranded games can exist only under the old ruling: under the default every
card may start a pile.

With ``--wins-to-win N`` every game is a first-to-N tournament instead; the table then counts
tournaments ``won`` (finished) and ``truncated`` (past the limit of games set aside), and the
games set aside inside them (stranded, guarded).

    python benchmarks/lucky_pirate_outcomes.py [--games 300] [--seed 0] [--max-turns 3000]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import pirate_envs
from agents.registry import make_agent

ENV_ID = "lucky_pirate_v0"
FIRST_MATE_RULINGS = {"default": {}, "old First Mate": {"first_mate_only_on_captain": True}}
AGENTS = ("random", "heuristic")
PLAYER_COUNTS = range(2, 7)


def play_cell(agent_name: str, num_players: int, options: dict, args: argparse.Namespace) -> Counter:
    """Outcomes of ``args.games`` seeded episodes with ``agent_name`` in every seat."""
    env = pirate_envs.make(
        ENV_ID, raw=True, num_players=num_players, max_turns=args.max_turns, wins_to_win=args.wins_to_win, **options
    )
    game = env.game
    outcomes: Counter = Counter()
    for index in range(args.games):
        seed = args.seed + index
        env.reset(seed=seed)
        outcomes["dead at deal"] += game.first_mates_stranded()  # of the first deal (of a tournament)
        agents = [make_agent(agent_name, ENV_ID, seed=seed * 10 + seat, env=env) for seat in range(num_players)]
        while not game.done:
            seat = game.current_player
            env.step(agents[seat].act(env.observe(env.possible_agents[seat]), game.view(seat)))
        if game.terminated:
            outcomes["won"] += 1
        elif args.wins_to_win > 1:
            outcomes["truncated"] += 1
        else:
            outcomes["stranded" if game.truncation_reason == "stranded First Mates" else "guarded"] += 1
        for reason in game.set_aside_games:
            outcomes["stranded" if reason == "stranded First Mates" else "guarded"] += 1
    return outcomes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="episodes per cell (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first episode (default 0)")
    parser.add_argument("--max-turns", type=int, default=3000, help="turn-limit guard per game (default 3000)")
    parser.add_argument("--wins-to-win", type=int, default=1, help="first to N wins per episode (default 1)")
    parser.add_argument("--players", type=int, nargs="+", default=list(PLAYER_COUNTS), help="player counts (2..6)")
    parser.add_argument("--agents", nargs="+", choices=AGENTS, default=list(AGENTS), help="agents (default: both)")
    rulings = list(FIRST_MATE_RULINGS)
    parser.add_argument("--rulings", nargs="+", choices=rulings, default=rulings, help="First Mate rulings")
    args = parser.parse_args(argv)
    if args.games < 1 or args.max_turns < 1 or args.wins_to_win < 1 or args.seed < 0:
        parser.error("--games, --max-turns and --wins-to-win must be positive, --seed non-negative")
    tournament = args.wins_to_win > 1
    columns = ["won", "truncated"] if tournament else ["won"]
    columns += ["stranded", "guarded"] + ([] if tournament else ["dead at deal"])
    unit = f"first-to-{args.wins_to_win} tournaments" if tournament else "games"
    print(f"Lucky Pirate outcomes: {args.games} {unit} per cell, seeds {args.seed}.., max_turns={args.max_turns}")
    print()
    print("| ruling | agents | players | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    start = time.perf_counter()
    for ruling in args.rulings:
        options = FIRST_MATE_RULINGS[ruling]
        for agent_name in args.agents:
            for n in args.players:
                outcomes = play_cell(agent_name, n, options, args)
                cells = " | ".join(str(outcomes[c]) for c in columns)
                print(f"| {ruling} | {agent_name} | {n} | {cells} |", flush=True)
    print()
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
