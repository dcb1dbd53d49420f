"""Why this move: the position before a move, as its seat sees it, and what each agent makes of it.

    python -m experiments.explain --record runs/games/game_000000.json --move 12
    python -m experiments.explain --env-id skull_king_v0 --seed 3 --actions 70 12 --agents heuristic mcts

The position is move ``--move`` of a saved game record (``experiments.evaluate --save-games``
and the web table's record; ``0`` is the first move: the position after the first ``K`` moves),
read as JSON and checked by replaying it whole (`experiments.evaluate.replay`; nothing in it
is evaluated or unpickled), or the position after ``--actions`` from the deal of ``--seed``
(``--players`` seats, 0: the game's default). It prints the deciding seat's screen
(``pirate_envs.<game>.text.seat_text``), then for each of ``--agents`` (default: ``heuristic``
and the game's shipped network) its choice and its ``--top`` moves (`agents.analysis.explain`): a
network's masked probabilities, the search's visit counts and values (``mcts``, seeded with
``--agent-seed``), Kapern's ``oracle``'s expected points. Everything comes from the deciding
seat's own view.

Bad arguments (no position or two, an unreadable or forged record, a move past its end, an
illegal action, an unknown agent) end the command with one line and exit status 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pirate_envs
from agents.analysis.explain import (
    DEFAULT_TOP,
    Explanation,
    default_agents,
    explain,
    explanation_text,
    position_text,
    replay_position,
)
from agents.evaluation.records import replay
from agents.registry import make_agent
from experiments.cli import (
    MAX_SEED,
    check_env_id,
    check_names,
    check_players,
    default_players,
    games_epilog,
    parse_args,
)

#: The largest record file read (a record of the longest capped game is under 100 KB).
MAX_RECORD_BYTES = 4 * 1024 * 1024


@dataclass
class ExplainArgs:
    """Show one position as its seat sees it and what each agent makes of its moves."""

    record: str | None = field(default=None, metadata={"help": "a saved game record (JSON) to read the position from"})
    move: int | None = field(
        default=None, metadata={"help": "with --record: the move to explain (0: the first)", "min": 0}
    )
    env_id: str | None = field(default=None, metadata={"help": f"without --record: one of {pirate_envs.ENV_IDS}"})
    seed: int = field(default=0, metadata={"help": "without --record: the deal's seed", "min": 0, "max": MAX_SEED})
    actions: list[int] = field(default_factory=list, metadata={"help": "without --record: the moves played so far"})
    players: int = field(default=0, metadata={"help": "without --record: players (0: the game's default)", "min": 0})
    agents: list[str] = field(
        default_factory=list, metadata={"help": "agents to ask (default: heuristic and the shipped network)"}
    )
    top: int = field(default=DEFAULT_TOP, metadata={"help": "moves listed per agent", "min": 1})
    agent_seed: int = field(
        default=0, metadata={"help": "seed of the agents (the search's worlds)", "min": 0, "max": MAX_SEED}
    )


def read_record(path: str) -> dict[str, Any]:
    """The game record in the JSON file ``path``, checked by replaying it (``ValueError``: one line)."""
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"--record {path!r} is not a file")
    if file.stat().st_size > MAX_RECORD_BYTES:
        raise ValueError(f"--record {path!r} is over {MAX_RECORD_BYTES} bytes; a game record is far smaller")
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"--record {path!r} is not JSON: {str(error)[:120]}") from None
    try:
        replay(record)
    except ValueError as error:
        raise ValueError(f"--record {path!r}: {error}") from None
    return record


def position_of(args: ExplainArgs) -> Any:
    """The raw env at the position the arguments name (``ValueError``: one line)."""
    if (args.record is None) == (args.env_id is None):
        raise ValueError("name one position: --record FILE --move K, or --env-id ID [--seed S] [--actions ...]")
    if args.record is not None and (args.actions or args.players):
        raise ValueError("--actions and --players are for --env-id; a record has its own moves and table")
    if args.record is None and args.move is not None:
        raise ValueError("--move is the move of a --record; with --env-id, give the moves before it (--actions)")
    if args.record is not None:
        if args.move is None:
            raise ValueError("--record needs --move K: the move to explain (0: the first)")
        record = read_record(args.record)
        actions = record["actions"]
        if args.move >= len(actions):
            raise ValueError(f"--move {args.move}: the record has moves 0..{len(actions) - 1}")
        return replay_position(record["env_id"], record["seed"], actions[: args.move], **record["env_kwargs"])
    check_env_id(args.env_id)  # type: ignore[arg-type]
    players = args.players or default_players(args.env_id)  # type: ignore[arg-type]
    check_players(args.env_id, players, "--players")  # type: ignore[arg-type]
    try:
        return replay_position(args.env_id, args.seed, args.actions, num_players=players)  # type: ignore[arg-type]
    except ValueError as error:
        raise ValueError(f"--actions: {error}") from None


def check_args(args: ExplainArgs) -> None:
    """``ValueError`` (one line) for arguments that name no position or an agent that cannot play it."""
    check_names(args.agents, "--agents")  # each would be asked twice
    env = position_of(args)
    for name in args.agents:
        try:
            make_agent(name, env.metadata["name"], seed=0, env=env)
        except (ValueError, ImportError) as error:
            raise ValueError(f"--agents {name!r}: {error}") from None


def main(argv: list[str] | None = None) -> list[Explanation]:
    """Run the command; every agent's answer, in the order asked."""
    args = parse_args(ExplainArgs, argv, epilog=games_epilog(), check=check_args)
    env = position_of(args)
    seat = env.game.current_player
    moves = args.move if args.record is not None else len(args.actions)
    print(f"{env.metadata['name']}: {env.possible_agents[seat]} decides, after {moves} moves")
    print(position_text(env))
    answers = []
    for name in args.agents or default_agents(env):
        answer = explain(env, name, seed=args.agent_seed, top=args.top)
        answers.append(answer)
        print()
        print(explanation_text(answer))
    return answers


if __name__ == "__main__":
    main()
