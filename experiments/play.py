"""Play any game in the terminal against chosen agents.

    python -m experiments.play --env-id piraten_kapern_v0 --agents heuristic
    python -m experiments.play --env-id skull_king_v0 --agents heuristic random ppo:<checkpoint> --seat 1

You sit at ``--seat``; ``--agents`` fill the other seats in order (one per opponent, so the
game has ``len(agents) + 1`` players). Between your moves you read the public event log (cards
played, dice rolled, bids revealed, trick and round winners, every score change and its
cause); on your turn, your seat's screen (``pirate_envs.<game>.text``: what you know, nothing
more) and your moves, numbered. Type a number, or name the move: a card (``red-13``), a bid
(``3``), dice to re-roll (``reroll 2 parrot 1 sabre``, short ``r 2p 1s``; Kapern's re-rolls are
not listed), a Piratenpoker bid (``bid green-5 red-3``, short ``b g5 r3``), a Lucky Pirate set
(``2x5``). Anything else is asked again with a hint. Type ``q`` (or end the input) to quit at
any time; Ctrl-C ends the game with the standings so far (exit status 130). ``--reveal`` shows
the env's full ansi render instead (every seat's cards) and names every move as it is made.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, TextIO

import pirate_envs
from agents.registry import make_agent
from experiments.cli import check_agents, check_env_id, check_players, games_epilog, parse_args
from pirate_envs.core.events import event_text, record_events
from pirate_envs.core.text import WIDTH, text_module

QUIT = {"q", "quit", "exit"}
#: Blocks of moves typed by name and not listed (Kapern's re-rolls: up to 2,073 of them).
NAMED_ONLY_BLOCKS = {"reroll"}


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


def listed_moves(env: Any, legal: list[int]) -> list[int]:
    """The legal moves shown numbered: all but those of `NAMED_ONLY_BLOCKS`."""
    hidden = [b for b in env.actions.blocks if b.name in NAMED_ONLY_BLOCKS]
    return [a for a in legal if not any(a in b for b in hidden)]


def moves_text(env: Any, legal: list[int]) -> str:
    """The legal moves numbered from 1, in columns when there are many."""
    if not legal:
        return ""
    labels = [f"{i + 1:>3}. {env.action_to_string(a)}" for i, a in enumerate(legal)]
    width = max(len(label) for label in labels) + 2
    columns = max(1, WIDTH // width)
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


def ask_move(env: Any, legal: list[int], read: TextIO, write: TextIO) -> list[int] | None:
    """Ask until a move is typed, as a listed number or by name; ``None`` to quit (``q`` or end of input).

    Returns the moves typed (a named Piratenpoker bid is several), checked for the player on turn.
    """
    game = env.game
    view = game.view(game.current_player)
    module = text_module(env)
    listed = listed_moves(env, legal)
    numbers = f"1-{len(listed)} or " if listed else ""
    while True:
        write.write(f"your move ({numbers}its name, q to quit): ")
        write.flush()
        line = read.readline()
        if not line:
            return None
        text = line.strip().lower()
        if text in QUIT:
            return None
        index = parse_move(text, len(listed))
        if index is not None:
            return [listed[index]]
        numbered = f"a number from 1 to {len(listed)}, or " if listed else ""
        if text.isascii() and text.isdigit() and len(text) > 2:
            reason = f"type {numbered}{module.move_hint(view, legal).removeprefix('type ')}"
        else:
            try:
                return module.parse_moves(text, view, legal)
            except ValueError as error:
                reason = str(error).replace("; type ", f"; type {numbered}", 1)
        shown = line.strip() if len(line.strip()) <= 20 else line.strip()[:20] + "..."
        write.write(fold(f"  '{shown}' is not a move: {reason}", "    ") + "\n")


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
    record_events(env.game)
    others = [s for s in range(n) if s != args.seat]
    seat_agents = {s: make_agent(name, args.env_id, seed=s, env=env) for s, name in zip(others, args.agents)}
    env.reset(seed=args.seed)
    names = {s: getattr(agent, "name", "agent") for s, agent in seat_agents.items()}
    write.write(fold(f"{args.env_id}: you are {env.possible_agents[args.seat]}; opponents: {names}", "  ") + "\n")
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
    module = text_module(env)
    shown = 0  # events written so far
    while not game.done:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        if seat != args.seat:
            action = seat_agents[seat].act(obs, game.view(seat))
            if args.reveal:  # a move may be hidden (a bid): named only with --reveal
                write.write(f"{env.possible_agents[seat]} ({names[seat]}): {env.action_to_string(action)}\n")
            env.step(action)
            continue
        shown = write_events(game, shown, write)
        view = game.view(seat)
        screen = env.render() if args.reveal else module.seat_text(view, seat)
        legal = [int(a) for a in obs["action_mask"].nonzero()[0]]
        hint = fold(f"  ({module.move_hint(view, legal)})", "   ")
        write.write(f"\n{screen}\n{moves_text(env, listed_moves(env, legal))}\n{hint}\n")
        actions = ask_move(env, legal, read, write)
        if actions is None:
            write.write("quit\n")
            return None
        for action in actions:
            env.step(action)
    write_events(game, shown, write)
    scores = game.scores().tolist()
    winners = [env.possible_agents[w] for w in game.winners()] if game.terminated else []
    final = env.render() if args.reveal else module.seat_text(game.view(args.seat))
    write.write(f"\n{final}\ngame over; scores {scores}; winners {winners or 'none (truncated)'}\n")
    return scores


def fold(text: str, indent: str) -> str:
    """``text`` wrapped at the screen width, continuation lines indented by ``indent``."""
    return textwrap.fill(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def write_events(game: Any, start: int, write: TextIO) -> int:
    """Write the public events from index ``start`` on, one line each; the new count."""
    events = game.events or []
    for event in events[start:]:
        write.write(fold(f"  * {event_text(event)}", "    ") + "\n")
    return len(events)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(PlayArgs, argv, epilog=games_epilog(), check=check_args)
    try:
        play(args)
    except KeyboardInterrupt:  # play has shown the standings
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
