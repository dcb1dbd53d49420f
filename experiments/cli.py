"""Command lines from a dataclass of arguments (one flag per field, CleanRL style), checked up front.

A bad value ends the command before any work with one line naming the value and what is
valid, and exit status 2 (no traceback). Field metadata: ``help``; ``min`` and ``max`` (the
smallest and largest value allowed), ``above`` (a bound the value must exceed); ``choices``.
Every float must be finite and every integer fit 64 bits; a list field's bounds hold for each of its values.
`check_fields` applies these rules, to a command line (`parse_args`) and to a
saved configuration alike (`args_from_mapping`); `parse_plan` also builds a command's run
plan from its arguments, once, refusing bad values the same way. The checks that several commands
share live here too: the seed range (`MAX_SEED`), repeated names (`check_names`),
``name:weight`` lists (`check_weights`), output folders and files (`check_folder`,
`check_output_file`), input files (`check_input_file`), processes and threads (`check_cpus`), torch
devices (`check_device`), ``key=value`` env options (`parse_env_kwargs`). ``--help``
shows every default; `games_epilog` lists each game's player counts and agent names.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import math
import os
import tempfile
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pirate_envs
from pirate_envs.core.errors import shown
from pirate_envs.core.spec import GameSpec

T = TypeVar("T")
P = TypeVar("P")

#: The largest seed a command takes: numpy seeds up to 2**32 - 1, and commands add offsets
#: (one per env, per evaluation) to the seed they are given.
MAX_SEED = 2**31 - 1


#: The largest integer any flag takes (numpy's and torch's 64-bit integers hold every count a command uses).
MAX_INT = 2**63 - 1


#: Exit status of a command stopped by Ctrl-C (after what it had done was saved).
INTERRUPTED = 130


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

    `check_fields` runs first, then ``check(args)``; a ``ValueError`` either raises is the message.
    """
    parser = build_parser(cls, description, epilog)
    args = cls(**vars(parser.parse_args(argv)))
    try:
        check_fields(args)
        if check is not None:
            check(args)
    except ValueError as error:
        parser.error(str(error))
    return args


def parse_plan(
    cls: type[T],
    plan_of: Callable[[T], P],
    argv: Sequence[str] | None = None,
    description: str | None = None,
    epilog: str | None = None,
) -> tuple[T, P]:
    """Parse ``argv`` into an instance of ``cls`` and build the command's run plan from it, once.

    ``plan_of(args)`` checks what `check_fields` does not and returns the plan (a frozen
    dataclass the command hands to the library); its ``ValueError`` ends the command as
    `parse_args` does: one line, exit status 2.
    """
    plans: list[P] = []
    args = parse_args(cls, argv, description, epilog, check=lambda parsed: plans.append(plan_of(parsed)))
    return args, plans[0]


def check_fields(args: Any) -> None:
    """``ValueError`` (one line) for a field of the dataclass ``args`` that breaks its metadata.

    ``min``/``max``: inclusive bounds; ``above``: an exclusive lower bound; ``choices``; every
    float finite, every integer within 64 bits (`MAX_INT`). A list field's rules hold for each of its values.
    """
    for field in dataclasses.fields(args):
        value = getattr(args, field.name)
        for item in value if isinstance(value, list) else [value]:
            problem = _field_problem(field.metadata, item)
            if problem is not None:
                raise ValueError(f"{flag_of(field.name)} {problem}")


def _field_problem(metadata: Mapping[str, Any], value: Any) -> str | None:
    """What is wrong with one value under a field's metadata (``None``: nothing)."""
    if value is None or isinstance(value, bool):
        return None
    if "choices" in metadata and value not in metadata["choices"]:
        return f"{value!r} is not valid; choose from {', '.join(map(str, metadata['choices']))}"
    if not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if isinstance(value, int) and abs(value) > MAX_INT:
        return f"must be at most {MAX_INT} (a 64-bit integer), got {value}"
    low, high, above = metadata.get("min"), metadata.get("max"), metadata.get("above")
    if low is not None and value < low:
        return f"must be at least {low}, got {value}"
    if high is not None and value > high:
        return f"must be at most {high}, got {value}"
    if above is not None and value <= above:
        return f"must be above {above}, got {value}"
    return None


def args_from_mapping(cls: type[T], values: Mapping[str, Any], source: str) -> T:
    """An instance of ``cls`` from a saved mapping (a run's ``config.json``), checked as a command line is.

    Unknown keys and values of the wrong type are refused, then `check_fields` runs; a
    missing key takes the field's default. ``ValueError`` messages start with ``source``.
    """
    fields = {field.name: field for field in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ValueError(f"{source}: unknown keys {unknown}; a run's configuration holds only {sorted(fields)}")
    hints = typing.get_type_hints(cls)
    for name, value in values.items():
        if not _has_type(value, hints[name]):
            raise ValueError(f"{source}: {flag_of(name)} {value!r} is not of type {_type_name(hints[name])}")
    args = cls(**{name: _as_float(value, hints[name]) for name, value in values.items()})
    try:
        check_fields(args)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    return args


def _has_type(value: Any, hint: Any) -> bool:
    """Whether ``value`` (from JSON) fits the type hint ``hint`` (an int fits a float, a bool fits no number)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        return isinstance(value, list) and all(_has_type(item, args[0]) for item in value)
    if args and type(None) in args:  # Optional
        return value is None or any(_has_type(value, a) for a in args if a is not type(None))
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _as_float(value: Any, hint: Any) -> Any:
    """``value`` with the integers of a float field (JSON writes ``0.0`` as ``0``) made floats."""
    if float in typing.get_args(hint) or hint is float:
        return float(value) if isinstance(value, int) else value
    if typing.get_origin(hint) is list and typing.get_args(hint)[0] is float:
        return [float(item) for item in value]
    return value


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) if typing.get_origin(hint) is None else str(hint).replace("typing.", "")


def given_flags(cls: type, argv: Sequence[str] | None) -> set[str]:
    """The fields of ``cls`` that ``argv`` sets explicitly (``--help`` is left to `parse_args`)."""
    parser = build_parser(cls, add_help=False)
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    return set(vars(parser.parse_known_args(argv)[0]))


def default_players(env_id: str) -> int:
    """The player count of ``env_id`` when none is given (from its spec)."""
    return pirate_envs.game_spec(env_id).default_players


def check_env_id(env_id: str) -> GameSpec:
    """The game of ``env_id`` (its `GameSpec`: the handle a command resolves once); ``ValueError`` unless
    it is a registered id."""
    if env_id not in pirate_envs.ENV_IDS:
        raise ValueError(f"--env-id {env_id!r} is not a game; valid ids: {', '.join(pirate_envs.ENV_IDS)}")
    return pirate_envs.game_spec(env_id)


def check_players(game: str | GameSpec, players: int, flag: str = "--num-players") -> None:
    """``ValueError`` unless ``game`` (an env id, or its resolved `GameSpec`) allows ``players`` players."""
    spec = pirate_envs.game_spec(game) if isinstance(game, str) else game
    counts = spec.player_counts
    if players not in counts:
        raise ValueError(f"{flag}: {spec.env_id} plays {counts[0]}-{counts[-1]} players, not {players}")


def table_envs(
    game: GameSpec, sizes: Sequence[int], config_of: Callable[[int], dict[str, Any]], env_kwargs: Sequence[str]
) -> dict[int, Any]:
    """The raw env of ``game`` at each table size (built once, for the checks and the plan); ``ValueError``
    (one line) unless every size makes an env, all of one observation size.

    ``config_of(players)``: the env's keyword arguments at that table size; ``env_kwargs``: the
    ``--env-kwargs`` words, named in the errors. One network plays every size only where the
    observation has one size: ``table_layout="max"`` where the sizes differ.
    """
    envs: dict[int, Any] = {}
    layout = None
    for players in sizes:
        check_players(game, players)
        config = config_of(players)
        layout = config.get("table_layout")
        try:
            envs[players] = pirate_envs.make(game.env_id, raw=True, **config)
        except (ValueError, TypeError) as error:
            raise ValueError(f"--env-kwargs {' '.join(env_kwargs)}: {error}") from None
    if len({env.observation_layout.size for env in envs.values()}) > 1:
        raise ValueError(
            f"--num-players {' '.join(map(str, sizes))} needs one observation size for every table size: "
            f"table_layout={layout!r} is not valid here; use table_layout='max'"
        )
    return envs


def check_agents(
    names: Sequence[str],
    env_id: str,
    players: int,
    flag: str,
    env_kwargs: dict[str, Any] | None = None,
    env: Any = None,
    user_code: bool = False,
) -> None:
    """``ValueError`` unless every agent name builds for a ``players``-seat table of ``env_id`` (``env``: that
    table's raw env when the caller has built it; else it is built from ``env_kwargs``).

    A ``ppo:`` agent is loaded (no code runs) and checked against the table. A Python agent
    (``file.py:factory``) is refused unless the command takes one (``user_code``); then it is said
    that its code runs (`say_user_code`), and it is loaded and built once here.
    """
    from agents.registry import make_agent
    from agents.spec import runs_user_code

    for name in dict.fromkeys(names):
        if runs_user_code(name) and not user_code:
            raise ValueError(f"{flag} {name!r}: a Python agent runs your code; {USER_CODE_COMMANDS} take one")
    say_user_code(names, flag)
    if env is None:
        env = pirate_envs.make(env_id, raw=True, **{**(env_kwargs or {}), "num_players": players})
    for name in dict.fromkeys(names):
        try:
            make_agent(name, env_id, seed=0, env=env)
        except (ValueError, ImportError) as error:
            raise ValueError(f"{flag} {name!r}: {error}") from None


#: The commands that take a Python agent of the user's (its code runs on the user's machine).
USER_CODE_COMMANDS = "experiments.benchmark, experiments.evaluate and experiments.play"


def say_user_code(names: Sequence[str], flag: str) -> None:
    """Say, before any is loaded, that each Python agent of ``names`` runs its code on this machine."""
    from agents.spec import runs_user_code

    for name in dict.fromkeys(names):
        if runs_user_code(name):
            print(f"{flag} {name}: a Python agent; loading it runs its code, on this machine")


def games_epilog() -> str:
    """Each game's player counts (and default) and agent names, for ``--help``."""
    from agents.registry import agent_names, agent_player_counts
    from agents.spec import KINDS, parse_agent_name

    lines = ["games (players, default) and their agents (a trained one, or one not for every size: its player counts):"]
    for env_id in pirate_envs.ENV_IDS:
        counts = pirate_envs.player_counts(env_id)
        lines.append(f"  {env_id} ({counts[0]}-{counts[-1]}, default {default_players(env_id)}):")
        names = []
        for name in agent_names(env_id):
            plays = agent_player_counts(name, env_id)
            if parse_agent_name(name).network is not None or plays != counts:
                name += f" ({'/'.join(map(str, plays))}p)"
            names.append(name)
        lines.append("      " + " ".join(names))
    lines.append("the kinds of agent name (<n>: simulations per move):")
    lines += [f"  {kind.syntax}: {kind.summary}" for kind in KINDS.values()]
    return "\n".join(lines)


def check_names(names: Sequence[str], flag: str, words: Sequence[str] | None = None) -> None:
    """``ValueError`` when a name of ``names`` is repeated (``words``: the flag's words, shown in the message)."""
    repeated = [name for i, name in enumerate(names) if name in names[:i]]
    if repeated:
        listed = " ".join(words if words is not None else names)
        raise ValueError(f"{flag} {listed}: {repeated[0]!r} is named twice; give each once")


def check_weights(specs: Sequence[str], flag: str) -> None:
    """``ValueError`` unless the ``name:weight`` list names each agent once, with finite weights
    >= 0 that are not all zero."""
    from agents.selfplay.opponents import split_weight

    pairs = [split_weight(spec) for spec in specs]
    check_names([name for name, _ in pairs], flag, specs)
    for spec, (_, weight) in zip(specs, pairs):
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"{flag} {spec}: a weight must be a finite number >= 0, got {weight}")
    if pairs and all(weight == 0 for _, weight in pairs):
        raise ValueError(f"{flag} {' '.join(specs)}: the weights are all 0; give at least one a weight above 0")


def check_folder(folder: str | Path, flag: str) -> None:
    """``ValueError`` (one line) unless a command can write into ``folder``: it is, or its nearest
    existing ancestor is, a folder that takes a file. A probe file is made there and removed (a
    permission check alone passes for root on a read-only or virtual file system); no folder is made."""
    if not str(folder):
        raise ValueError(f"{flag} is empty; give a folder")
    folder = Path(folder)
    check_name_lengths(folder, flag)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{flag} {folder}: {existing} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=".write-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise ValueError(f"{flag} {folder}: cannot write there ({error.strerror or error})") from None


def check_name_lengths(path: str | Path, flag: str) -> None:
    """``ValueError`` (one line) for a name of ``path`` not made yet that is longer than the file system
    of its nearest existing folder allows (``NAME_MAX``: 255 bytes where it does not say), or a path over
    ``PATH_MAX`` (4,096)."""
    path = Path(path)
    existing = path
    while not os.path.exists(existing) and existing != existing.parent:  # False, not OSError, for a long name
        existing = existing.parent
    folder = existing if existing.is_dir() else existing.parent
    name_max, path_max = _path_limit(folder, "PC_NAME_MAX", 255), _path_limit(folder, "PC_PATH_MAX", 4096)
    for part in path.relative_to(existing).parts:
        if len(os.fsencode(part)) > name_max:
            raise ValueError(
                f"{flag} {shown(str(path))}: the name {shown(part)} is {len(os.fsencode(part))} bytes; "
                f"a file name takes at most {name_max} there"
            )
    if len(os.fsencode(os.path.abspath(path))) >= path_max:
        raise ValueError(f"{flag} {shown(str(path))}: the path is longer than the {path_max} bytes allowed there")


def _path_limit(folder: Path, name: str, default: int) -> int:
    """``os.pathconf(folder, name)``, or ``default`` where the platform does not say."""
    try:
        return int(os.pathconf(folder, name))
    except (AttributeError, OSError, ValueError):
        return default


def check_output_file(path: str | Path, flag: str, suffix: str | None = None) -> None:
    """``ValueError`` (one line) unless a command can write the file ``path`` (ending in ``suffix``,
    when given): not a folder, in a folder that `check_folder` passes."""
    if not str(path):
        raise ValueError(f"{flag} is empty; give a file name")
    path = Path(path)
    if suffix is not None and path.suffix != suffix:
        raise ValueError(f"{flag} {str(path)!r} must name a {suffix} file")
    check_name_lengths(path, flag)
    if path.is_dir():
        raise ValueError(f"{flag} {str(path)!r} is a folder; give a file name")
    check_folder(path.parent, flag)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it, else the CPU count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def check_cpus(count: int, flag: str) -> None:
    """``ValueError`` (one line) for more processes or threads than the CPUs this process may use."""
    cpus = available_cpus()
    if count > cpus:
        raise ValueError(f"{flag} {count}: at most the {cpus} CPUs this process may use")


def physical_memory() -> int | None:
    """Bytes of this machine's memory (``None`` where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(needed: int, what: str) -> None:
    """``ValueError`` (one line, starting with ``what``: the flags and the thing they size) when ``needed``
    bytes are more than this machine's memory."""
    memory = physical_memory()
    if memory is not None and needed > memory:
        raise ValueError(
            f"{what} of {needed / 2**30:.1f} GiB, more than this machine's {memory / 2**30:.1f} GiB of memory"
        )


def check_input_file(path: str | Path, flag: str) -> None:
    """``ValueError`` (one line) unless ``path`` names an existing file (not a folder)."""
    if not str(path):
        raise ValueError(f"{flag} is empty; give a file")
    if not Path(path).is_file():
        raise ValueError(f"{flag} {str(path)!r}: {'a folder, not a file' if Path(path).is_dir() else 'no such file'}")


def network_parameters(hidden: Sequence[int], inputs: int, actions: int, critic: bool = True) -> int:
    """Weights and biases of a network of hidden layers ``hidden`` from ``inputs`` to ``actions`` (with ``critic``,
    also the critic's, to one value)."""
    import itertools

    heads = (actions, 1) if critic else (actions,)
    return sum((a + 1) * b for outputs in heads for a, b in itertools.pairwise([inputs, *hidden, outputs]))


def check_network_size(
    hidden: Sequence[int], inputs: int, actions: int, flag: str = "--net-arch", critic: bool = True
) -> None:
    """``ValueError`` (one line) for hidden layers ``hidden`` whose network (`network_parameters`) exceeds
    what an agent file holds (the format's parameter cap)."""
    from agents.policy.checkpoint import MAX_PARAMETERS

    parameters = network_parameters(hidden, inputs, actions, critic)
    if parameters > MAX_PARAMETERS:
        what = "actor and critic" if critic else "the network"
        raise ValueError(
            f"{flag} {' '.join(map(str, hidden))}: {parameters:,} parameters ({what}), more than an "
            f"agent file holds ({MAX_PARAMETERS:,})"
        )


def check_device(device: str, flag: str = "--device") -> None:
    """``ValueError`` unless ``device`` is ``auto`` or a torch device this machine has."""
    import torch

    if device == "auto":
        return
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError):
        raise ValueError(f"{flag} {device!r} is not a torch device; use cpu, cuda, cuda:<index> or auto") from None
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"{flag} {device}: CUDA is not available on this machine (torch.cuda.is_available() is False); "
                "use --device cpu"
            )
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise ValueError(f"{flag} {device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    elif parsed.type == "mps":
        if not torch.backends.mps.is_available():
            raise ValueError(f"{flag} {device}: MPS is not available on this machine; use --device cpu")
    elif parsed.type != "cpu":
        raise ValueError(f"{flag} {device}: not supported; use cpu, cuda, cuda:<index> or auto")


def parse_env_kwargs(items: Sequence[str], reserved: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``["target_score=3000", "promo_cards=True"]`` -> ``{"target_score": 3000, "promo_cards": True}``.

    ``ValueError`` (naming ``--env-kwargs``) for a word that is not ``key=value``, a key given
    twice, a key of ``reserved`` (``{key: the flag that sets it}``), or ``render_mode`` (no command
    draws its games).
    """
    kwargs: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--env-kwargs {item!r}: expected key=value")
        if key in kwargs:
            raise ValueError(f"--env-kwargs {' '.join(items)}: {key} is given twice")
        if reserved and key in reserved:
            raise ValueError(f"--env-kwargs {item}: {key} is set by its own flag here; use {reserved[key]}")
        if key == "render_mode":  # the commands' envs run unseen, in worker processes or batched
            raise ValueError(
                f"--env-kwargs {item}: commands play without drawing; watch a game with python -m experiments.play"
            )
        try:
            kwargs[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            kwargs[key] = value
    return kwargs
