"""Play any game in the terminal against chosen agents.

    python -m experiments.play --env-id piraten_kapern_v0 --agents heuristic
    python -m experiments.play --env-id skull_king_v0 --agents heuristic random ppo:<checkpoint> --seat 1

You sit at ``--seat``; ``--agents`` fill the other seats in order (one per opponent, so the
game has ``len(agents) + 1`` players), listed at the start by the names you typed. Between your
moves you read the public event log (cards played, dice rolled, bids revealed, trick and round
winners, every score change and its cause); on your turn, your seat's screen
(``pirate_envs.<game>.text``: what you know, nothing more) and the menu of your moves, ``#1``,
``#2``, ... (Kapern's re-rolls are named, not listed).

A typed move has one meaning, the same as in the web table's text box
(`pirate_envs.core.text.parse_move`): ``#2`` is menu move 2; a move's label is that move
(``commit bid``, any case); a bare number is the value it names: a bid (``2`` bids 2), a card
value (``7``: your 7, or which 7?), a die count, a seat; then the game's short forms: a card
(``red-13``), dice to re-roll (``reroll 2 parrot 1 sabre``, short ``r 2p 1s``), a Piratenpoker
card for your bid (``b g5``), a Lucky Pirate set (``2x5``). An input that could mean several
moves lists them and asks again; a move the rules forbid says why (``you must follow black: you
hold black-5``). ``hint`` (a command, not a move; ``hint mcts``, ``hint oracle``, ``hint heuristic``)
shows what an agent advises from your seat's view only (`agents.analysis.hint_text`; the figures each
gives: ``docs/guides/playing.md``).
``q``, Ctrl-D and Ctrl-C end the game with the standings so far (Ctrl-C: exit status 130).
``--reveal`` shows every seat's cards (the env's ansi render) and names every move as it is made.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, TextIO

import pirate_envs
from agents.analysis.explain import default_agents
from agents.analysis.hint_text import hint_named
from agents.registry import make_agent
from experiments.cli import MAX_SEED, check_agents, check_env_id, check_players, games_epilog, parse_args
from pirate_envs.core.events import event_text, record_events
from pirate_envs.core.text import WIDTH, Ambiguous, Refusal, shorten, text_module

QUIT = {"q", "quit", "exit"}
#: The player's command that asks an agent about the moves (``hint [AGENT]``); never a move.
HINT = "hint"


@dataclass
class PlayArgs:
    """Play a game in the terminal against agents."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["heuristic"], metadata={"help": "one agent per other seat (names listed below)"}
    )
    seat: int = field(default=0, metadata={"help": "your seat (0 plays first)", "min": 0})
    seed: int | None = field(default=None, metadata={"help": "game seed (None: random)", "min": 0, "max": MAX_SEED})
    reveal: bool = field(default=False, metadata={"help": "show the full state, hidden cards included"})


def menu_moves(env: Any, legal: list[int]) -> list[int]:
    """The legal moves of the menu, ``#1`` first (the game reader's menu: Kapern's re-rolls left out)."""
    game = env.game
    return text_module(env).Reader(game.view(game.current_player), legal).menu()


def moves_text(env: Any, menu: list[int]) -> str:
    """The menu's moves as ``#1 label``, in columns when there are many."""
    if not menu:
        return ""
    labels = [f"{f'#{i + 1}':>4} {env.action_to_string(a)}" for i, a in enumerate(menu)]
    width = max(len(label) for label in labels) + 2
    columns = max(1, WIDTH // width)
    rows = [labels[i : i + columns] for i in range(0, len(labels), columns)]
    return "\n".join("".join(label.ljust(width) for label in row).rstrip() for row in rows)


def ask_move(env: Any, legal: list[int], read: TextIO, write: TextIO) -> int | None:
    """Ask until a legal move is typed (`pirate_envs.core.text.parse_move`); ``None`` to quit (``q``, end of input)."""
    game = env.game
    view = game.view(game.current_player)
    module = text_module(env)
    menu = menu_moves(env, legal)
    numbers = f"#1-#{len(menu)} from the menu, " if menu else ""
    while True:
        write.write(f"your move (a move, {numbers}hint [AGENT], q to quit): ")
        write.flush()
        line = read.readline()
        if not line:
            return None
        if line.strip().lower() in QUIT:
            return None
        words = line.split()
        if words and words[0].lower() == HINT:
            write.write(hint_text(env, words[1:]) + "\n")
            continue
        parsed = module.parse_move(line, view, legal)
        if not isinstance(parsed, (Ambiguous, Refusal)):
            return parsed
        shown = shorten(line, 20)
        answer = parsed.message if isinstance(parsed, Ambiguous) else f"'{shown}' is not a move: {parsed.reason}"
        write.write(fold(f"  {answer}", "    ") + "\n")


def hint_text(env: Any, words: list[str]) -> str:
    """The answer to ``hint [AGENT]``: the agent's advice in words from the seat's view, or one line why not."""
    if len(words) > 1:
        return f"  hint takes one agent name at most, e.g. 'hint heuristic'; got {shorten(' '.join(words), 40)!r}"
    name = words[0] if words else default_agents(env)[-1]
    try:
        answer = hint_named(env, name)
    except (ValueError, ImportError) as error:
        return fold(f"  hint {shorten(name, 30)}: {error}", "    ")
    return "\n".join(fold(line, "      ") for line in textwrap.indent(answer.text(), "  ").splitlines())


def check_args(args: PlayArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make a game; runs before the game."""
    check_env_id(args.env_id)
    n = len(args.agents) + 1
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat {args.seat}: must be in 0..{n - 1} ({len(args.agents)} agents + you)")
    check_players(args.env_id, n, f"--agents ({len(args.agents)} + you)")
    check_agents(args.agents, args.env_id, n, "--agents", user_code=True)


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
    names = dict(zip(others, args.agents))  # the names typed on the command line
    opponents = ", ".join(f"{env.possible_agents[s]} {name}" for s, name in names.items())
    write.write(fold(f"{args.env_id}: you are {env.possible_agents[args.seat]}; opponents: {opponents}", "  ") + "\n")
    try:
        scores = _play_turns(args, env, seat_agents, names, read, write)
    except KeyboardInterrupt:
        write.write(f"\ninterrupted; the standings so far:\n{standings(env)}\n")
        raise
    if scores is None:
        write.write(f"quit; the standings so far:\n{standings(env)}\n")
    return scores


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
        write.write(f"\n{screen}\n{moves_text(env, menu_moves(env, legal))}\n{hint}\n")
        action = ask_move(env, legal, read, write)
        if action is None:
            return None
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
