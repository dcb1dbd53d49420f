"""Play any game in the terminal against chosen agents.

    python -m experiments.play --env-id piraten_kapern_v0 --agents heuristic
    python -m experiments.play --env-id skull_king_v0 --agents heuristic random ppo:<checkpoint> --seat 1

You sit at ``--seat``; ``--agents`` fill the other seats in order (one per opponent, so the
game has ``len(agents) + 1`` players). On your turn you see the game and your legal moves,
numbered; type a number (anything else is asked again). Type ``q`` (or end the input) to quit
at any time; Ctrl-C ends the game with the standings so far (exit status 130). Without
``--reveal`` you see your own view only (the public state and your own cards) and the
opponents' moves are not named, since some are hidden (Skull King's bids); with it, the
env's full ansi render (every seat's cards) and every move. The final render is always shown.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

import pirate_envs
from agents.registry import make_agent
from experiments.cli import check_agents, check_env_id, check_players, games_epilog, parse_args
from pirate_envs.core.render import format_table

QUIT = {"q", "quit", "exit"}


@dataclass
class PlayArgs:
    """Play a game in the terminal against agents."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["heuristic"], metadata={"help": "one agent per other seat (names listed below)"}
    )
    seat: int = field(default=0, metadata={"help": "your seat (0 plays first)", "min": 0})
    seed: int | None = field(default=None, metadata={"help": "game seed (None: random)", "min": 0})
    reveal: bool = field(default=False, metadata={"help": "show the full state, hidden cards included"})


def view_text(view: Any) -> str:
    """A View (named tuple or dataclass) as a two-column table of its fields."""
    if hasattr(view, "_asdict"):
        items = list(view._asdict().items())
    elif dataclasses.is_dataclass(view):
        items = [(f.name, getattr(view, f.name)) for f in dataclasses.fields(view)]
    else:
        return repr(view)
    return format_table(["what you see", "value"], items)


def moves_text(env: Any, legal: list[int]) -> str:
    """The legal moves numbered from 1, in columns when there are many."""
    labels = [f"{i + 1:>3}. {env.action_to_string(a)}" for i, a in enumerate(legal)]
    width = max(len(label) for label in labels) + 2
    columns = max(1, 100 // width)
    rows = [labels[i : i + columns] for i in range(0, len(labels), columns)]
    return "\n".join("".join(label.ljust(width) for label in row).rstrip() for row in rows)


def parse_move(text: str, count: int) -> int | None:
    """The 1-based move number typed in ``text`` as an index, or ``None`` unless it is 1..``count``.

    Only ASCII digits count (``²`` or ``٣`` do not), and no more of them than ``count`` has.
    """
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(count)):
        return None
    number = int(text)
    return number - 1 if 1 <= number <= count else None


def ask_move(env: Any, legal: list[int], read: TextIO, write: TextIO) -> int | None:
    """Ask until a valid move number is typed; ``None`` to quit (``q`` or end of input)."""
    while True:
        write.write(f"your move (1-{len(legal)}, q to quit): ")
        write.flush()
        line = read.readline()
        if not line:
            return None
        text = line.strip().lower()
        if text in QUIT:
            return None
        index = parse_move(text, len(legal))
        if index is not None:
            return legal[index]
        shown = line.strip() if len(line.strip()) <= 20 else line.strip()[:20] + "..."
        write.write(f"  '{shown}' is not a move; type a number from 1 to {len(legal)}, or q\n")


def check_args(args: PlayArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make a game; runs before the game."""
    check_env_id(args.env_id)
    n = len(args.agents) + 1
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat {args.seat}: must be in 0..{n - 1} ({len(args.agents)} agents + you)")
    check_players(args.env_id, n, f"--agents ({len(args.agents)} + you)")
    check_agents(args.agents, args.env_id, n, "--agents")


def standings(env: Any) -> str:
    """The scores so far, best first, one seat per line."""
    scores = env.game.scores().tolist()
    order = sorted(range(len(scores)), key=lambda s: -scores[s])
    return "\n".join(f"  {env.possible_agents[s]}: {scores[s]:g}" for s in order)


def play(args: PlayArgs, read: TextIO = sys.stdin, write: TextIO = sys.stdout) -> list[float] | None:
    """Play one game; the final scores, or ``None`` if the player quit."""
    check_args(args)
    n = len(args.agents) + 1
    env = pirate_envs.make(args.env_id, raw=True, num_players=n, render_mode="ansi")
    others = [s for s in range(n) if s != args.seat]
    seat_agents = {s: make_agent(name, args.env_id, seed=s, env=env) for s, name in zip(others, args.agents)}
    env.reset(seed=args.seed)
    names = {s: getattr(agent, "name", "agent") for s, agent in seat_agents.items()}
    write.write(f"{args.env_id}: you are {env.possible_agents[args.seat]}; opponents: {names}\n")
    try:
        return _play_turns(args, env, seat_agents, names, read, write)
    except KeyboardInterrupt:
        write.write(f"\ninterrupted; the standings so far:\n{standings(env)}\n")
        raise


def _play_turns(
    args: PlayArgs, env: Any, seat_agents: dict[int, Any], names: dict[int, str], read: TextIO, write: TextIO
) -> list[float] | None:
    """The turns of one game until it ends or the player quits."""
    game = env.game
    while not game.done:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        if seat != args.seat:
            action = seat_agents[seat].act(obs, game.view(seat))
            move = env.action_to_string(action) if args.reveal else "moved"  # a move may be hidden (a bid)
            write.write(f"{env.possible_agents[seat]} ({names[seat]}): {move}\n")
        else:
            write.write("\n" + (env.render() if args.reveal else view_text(game.view(seat))) + "\n")
            legal = [int(a) for a in obs["action_mask"].nonzero()[0]]
            write.write(moves_text(env, legal) + "\n")
            action = ask_move(env, legal, read, write)
            if action is None:
                write.write("quit\n")
                return None
        env.step(action)
    scores = game.scores().tolist()
    winners = [env.possible_agents[w] for w in game.winners()] if game.terminated else []
    write.write(f"\n{env.render()}\ngame over; scores {scores}; winners {winners or 'none (truncated)'}\n")
    return scores


def main(argv: list[str] | None = None) -> None:
    args = parse_args(PlayArgs, argv, epilog=games_epilog(), check=check_args)
    try:
        play(args)
    except KeyboardInterrupt:  # play has shown the standings
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
