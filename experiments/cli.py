"""Command lines from a dataclass of arguments (one flag per field, CleanRL style), checked up front.

A bad value ends the command before any work with one line naming the value and what is
valid, and exit status 2 (no traceback). Field metadata: ``help``; ``min`` (the smallest
value allowed); ``choices``. ``--help`` shows every default; :func:`games_epilog` lists each
game's player counts and agent names.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import typing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pirate_envs

T = TypeVar("T")


class _OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (no usage block), exit status 2."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Every default in the help, and the epilog as written."""


def _flag_kwargs(field: dataclasses.Field, hint: Any) -> dict[str, Any]:
    """argparse keyword arguments for one dataclass field."""
    default = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
    kwargs: dict[str, Any] = {"default": default, "help": field.metadata.get("help", " ")}
    if "choices" in field.metadata:
        kwargs["choices"] = field.metadata["choices"]
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is bool:
        return {**kwargs, "action": argparse.BooleanOptionalAction}
    if origin is list:
        return {**kwargs, "nargs": "+", "type": args[0]}
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and type(None) in args:
        return {**kwargs, "type": next(a for a in args if a is not type(None))}
    return {**kwargs, "type": hint}


def build_parser(
    cls: type, description: str | None = None, epilog: str | None = None, add_help: bool = True
) -> argparse.ArgumentParser:
    """The parser of the dataclass ``cls``: one ``--flag`` per field."""
    parser = _OneLineParser(
        description=description or cls.__doc__, epilog=epilog, formatter_class=_HelpFormatter, add_help=add_help
    )
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        parser.add_argument(flag_of(field.name), dest=field.name, **_flag_kwargs(field, hints[field.name]))
    return parser


def flag_of(name: str) -> str:
    """The command-line flag of a field: ``total_timesteps`` -> ``--total-timesteps``."""
    return "--" + name.replace("_", "-")


def parse_args(
    cls: type[T],
    argv: Sequence[str] | None = None,
    description: str | None = None,
    epilog: str | None = None,
    check: Callable[[T], None] | None = None,
) -> T:
    """Parse ``argv`` into an instance of ``cls``; a bad value exits with status 2 and one line.

    ``check(args)`` runs after the field checks; a ``ValueError`` it raises is the message.
    """
    parser = build_parser(cls, description, epilog)
    args = cls(**vars(parser.parse_args(argv)))
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        low, value = field.metadata.get("min"), getattr(args, field.name)
        if low is not None and value is not None and value < low:
            parser.error(f"{flag_of(field.name)} must be at least {low}, got {value}")
    if check is not None:
        try:
            check(args)
        except ValueError as error:
            parser.error(str(error))
    return args


def given_flags(cls: type, argv: Sequence[str] | None) -> set[str]:
    """The fields of ``cls`` that ``argv`` sets explicitly (``--help`` is left to :func:`parse_args`)."""
    parser = build_parser(cls, add_help=False)
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    return set(vars(parser.parse_known_args(argv)[0]))


@functools.cache
def player_counts(env_id: str) -> tuple[int, ...]:
    """The player counts ``env_id`` allows (probed through the env's own checks)."""
    from agents.registry import game_player_counts

    return game_player_counts(env_id)


@functools.cache
def default_players(env_id: str) -> int:
    """The player count of ``env_id`` when none is given."""
    return len(pirate_envs.make(env_id, raw=True).possible_agents)


def check_env_id(env_id: str) -> None:
    """``ValueError`` unless ``env_id`` is a registered id."""
    if env_id not in pirate_envs.ENV_IDS:
        raise ValueError(f"--env-id {env_id!r} is not a game; valid ids: {', '.join(pirate_envs.ENV_IDS)}")


def check_players(env_id: str, players: int, flag: str = "--num-players") -> None:
    """``ValueError`` unless ``env_id`` allows ``players`` players."""
    counts = player_counts(env_id)
    if players not in counts:
        raise ValueError(f"{flag}: {env_id} plays {counts[0]}-{counts[-1]} players, not {players}")


def check_tables(
    env_id: str, sizes: Sequence[int], config_of: Callable[[int], dict[str, Any]], env_kwargs: Sequence[str]
) -> None:
    """``ValueError`` (one line) unless every table size makes an env, all of one observation size.

    ``config_of(players)``: the env's keyword arguments at that table size; ``env_kwargs``: the
    ``--env-kwargs`` words, named in the errors. One network plays every size only where the
    observation has one size: ``table_layout="max"`` where the sizes differ.
    """
    observation_sizes = set()
    layout = None
    for players in sizes:
        check_players(env_id, players)
        config = config_of(players)
        layout = config.get("table_layout")
        try:
            env = pirate_envs.make(env_id, raw=True, **config)
        except (ValueError, TypeError) as error:
            raise ValueError(f"--env-kwargs {' '.join(env_kwargs)}: {error}") from None
        observation_sizes.add(env.observation_layout.size)
    if len(observation_sizes) > 1:
        raise ValueError(
            f"--num-players {' '.join(map(str, sizes))} needs one observation size for every table size: "
            f"table_layout={layout!r} is not valid here; use table_layout='max'"
        )


def check_agents(
    names: Sequence[str], env_id: str, players: int, flag: str, env_kwargs: dict[str, Any] | None = None
) -> None:
    """``ValueError`` unless every agent name builds for a ``players``-seat table of ``env_id``.

    A ``ppo:`` agent is loaded (no code runs) and checked against the table.
    """
    from agents.registry import make_agent

    env = pirate_envs.make(env_id, raw=True, **{**(env_kwargs or {}), "num_players": players})
    for name in dict.fromkeys(names):
        try:
            make_agent(name, env_id, seed=0, env=env)
        except (ValueError, ImportError) as error:
            raise ValueError(f"{flag} {name!r}: {error}") from None


def games_epilog() -> str:
    """Each game's player counts (and default) and agent names, for ``--help``."""
    from agents.policy_agent import load_checkpoint
    from agents.registry import agent_names

    lines = ["games (players, default) and their agents (a trained agent: the player counts it plays):"]
    for env_id in pirate_envs.ENV_IDS:
        counts = player_counts(env_id)
        lines.append(f"  {env_id} ({counts[0]}-{counts[-1]}, default {default_players(env_id)}):")
        names = []
        for name in agent_names(env_id):
            if name.startswith("ppo:"):
                plays = load_checkpoint(name.removeprefix("ppo:"))[1]["player_counts"]
                name += f" ({'/'.join(map(str, plays))}p)"
            names.append(name)
        lines.append("      " + " ".join(names))
    lines.append("  ppo:<path> loads a trained agent file (.npz; a legacy SB3 .zip is read without unpickling)")
    return "\n".join(lines)
