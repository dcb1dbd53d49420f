"""Feed bad inputs to every command and to the public API, and classify each answer.

    python benchmarks/probe_bad_inputs.py [--commands train evaluate ...] [--no-api] [--show silent unclear]

For every ``experiments.<command>`` the probe reads the command's argument dataclass and, per flag,
makes bad values by class (wrong type, negative, zero, absurdly large, NaN/inf, unknown names, empty,
repeated items, nonexistent inputs, folders where files are meant, unwritable outputs, a flag that
only matters with another one given alone). Each command line runs in-process: the command's own
parsing and checks run, and the first step past them (the parsed arguments handed back to ``main``)
is stopped, so no game, training or solve runs. An answer is

* ``clear``: exit status 2, one line naming the flag, no traceback;
* ``conventional``: argparse's own one-line error (an invalid int, a missing value, a bad choice);
* ``silent``: the bad value got through the checks (the work would have run with it);
* ``unclear``: a traceback, another exit status, a message that names no flag, or a hang.

The API part calls ``pirate_envs.make`` (every env's keyword arguments), ``gymnasium.make``,
``agents.registry.make_agent`` and the evaluation and benchmark entry points with bad values: a
``ValueError``/``TypeError`` naming the argument or value is clear, another exception unclear, no
exception silent. Each command runs in its own process (a crash or a hang stays there; 60 s per
command line). A few values the probe makes are meaningful for some flags (``--players 0``: one seat
per agent); those are listed in `ALLOWED` with the reason and counted as ``allowed``.

A measurement (counts by class and command), not a test: ``tests/experiments/test_bad_inputs_probe.py`` pins its cases.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import io
import json
import math
import signal
import subprocess
import sys
import tempfile
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COMMANDS = (
    "analyze", "benchmark", "best_response", "evaluate", "exact", "expert_iteration", "explain", "export",
    "imitate", "kapern_best_response", "kapern_race", "play", "results_pages", "rllib_selfplay", "rule_cards",
    "strategy_advice", "strategy_pages", "train", "train_dmc", "web",
)  # fmt: skip

#: What each command needs besides the probed flag to get past its checks with good values.
BASE: dict[str, list[str]] = {
    "export": ["--checkpoint", "{zip}"],
    "expert_iteration": ["--out", "{tmp}/ei"],
    "explain": ["--env-id", "skull_king_v0"],
    "evaluate": ["--env-id", "skull_king_v0", "--agents", "heuristic", "random"],
    "analyze": ["--env-id", "skull_king_v0", "--agents", "heuristic", "random", "--out", "{tmp}/an"],
    "benchmark": ["--env-id", "skull_king_v0", "--agent", "heuristic", "--deals", "8", "--out", "{tmp}/bench"],
    "train": ["--out-dir", "{tmp}/runs", "--no-progress"],
    "best_response": ["--out-dir", "{tmp}/runs"],
    "train_dmc": ["--out", "{tmp}/dmc/agent.npz"],
    "imitate": ["--env-id", "piraten_kapern_v0", "--teacher", "heuristic", "--out", "{tmp}/im.npz"],
    "kapern_race": ["--out", "{tmp}/race.npz"],
    "exact": ["--out", "{tmp}/exact.md", "--quick"],
    "rule_cards": ["--out", "{tmp}/rc", "--cards", "{tmp}/cards"],
    "strategy_advice": ["--out", "{tmp}/sa"],
    "strategy_pages": ["--out", "{tmp}/sp"],
    "results_pages": ["--out", "{tmp}/rp"],
    "rllib_selfplay": ["--out", "{tmp}/rl"],
    "web": ["--data-dir", "{tmp}/web"],
}

#: Budgets: a huge value asks for a long run (or a long listing the legal moves cap), not for memory.
BUDGETS = (
    "total_timesteps", "total_steps", "iterations", "games", "rounds", "epochs", "n_epochs", "num_epochs",
    "eval_every", "snapshot_every", "checkpoint_every", "log_every", "play", "samples", "deals", "train_games",
    "holdout_games", "eval_games", "games_per_iteration", "replay_iterations", "train_batch_size", "max_snapshots",
    "top", "gumbel_considered",
)  # fmt: skip

#: (command, flag, value class) -> why the probe's "bad" value is a good one for that flag.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("train", "--truncation-reward", "negative"): "a penalty for a game cut short",
    ("play", "--agents", "repeated"): "two opponents of one kind",
    ("analyze", "--agents", "repeated"): "copies of one agent at the table (as NAMEx2)",
    ("explain", "--actions", "zero"): "action 0 is a legal first move of that deal",
    ("train", "--run-name", "unknown name"): "a new run's folder name",
    ("best_response", "--run-name", "unknown name"): "a new run's folder name",
    ("web", "--agents-dir", "directory"): "a folder is what the flag names",
    ("expert_iteration", "--gumbel-scale", "huge"): "a finite scale in the flag's range",
    ("evaluate", "--seed", "huge"): "evaluate's games take seeds up to 2**63 - 1 (its MAX_SEED)",
    ("train", "--truncation-reward", "zero"): "a game cut short scores 0",
    ("web", "--allow-host", "unknown name"): "a host name the page may be opened under; it need not resolve here",
    ("expert_iteration", "--batch-size", "huge"): "a minibatch larger than the positions collected takes them all",
    ("imitate", "--batch-size", "huge"): "a minibatch larger than the positions collected takes them all",
    ("train_dmc", "--batch-size", "huge"): "a minibatch larger than a round's decisions takes them all",
}

#: Why a bad-looking value of the API is a good one.
ALLOWED_API = {
    "huge": "a longer game: make takes any positive count (the web table and records keep the safe ranges)",
}


def allowed(case: Case, field: dataclasses.Field | None) -> str | None:
    """Why the probe's bad value is a good one for this flag (``None``: it is bad)."""
    if (case.command, case.flag, case.kind) in ALLOWED:
        return ALLOWED[(case.command, case.flag, case.kind)]
    if field is None:
        return None
    if case.kind == "huge" and field.name in BUDGETS:
        return "a budget: a long run is what was asked"
    if case.kind == "huge" and case.argv[-1] == FLOAT_VALUES["huge"]:
        return "a finite number in the flag's range"
    if case.kind == "zero" and field.metadata.get("min") == 0:
        return "0 is in the flag's documented range"
    if case.kind == "repeated" and field.name in ("net_arch", "hidden"):
        return "two hidden layers of one size"
    return None


#: Values the probe makes for a flag of each type, by class.
HUGE = "1000000000000"
INT_VALUES = {
    "wrong type": "abc",
    "fraction": "1.5",
    "negative": "-1",
    "zero": "0",
    "huge": HUGE,
    "past int64": "1" + "0" * 30,
}
FLOAT_VALUES = {"wrong type": "abc", "nan": "nan", "inf": "inf", "negative": "-1", "zero": "0", "huge": "1e300"}
#: Fields naming a file or folder read (inputs) or written (outputs).
INPUTS = ("checkpoint", "record", "tables", "init", "resume", "from_records", "pipeline_in", "agents_dir")
OUTPUTS = ("out", "out_dir", "cards", "curve", "leaderboard", "save_games", "data_dir")

#: Commands that check some inputs after parsing (reading a file is the first step): the probe stops
#: at these functions of the command's module instead of right after parsing.
WORK: dict[str, tuple[str, ...]] = {
    "export": ("export",),  # reading the zip is the work: a bad one is refused there (its own tests)
    "kapern_race": ("build_race_table", "bellman_residual"),
    "kapern_best_response": ("solve_best_response", "save_best_response", "best_response_shares"),
}


#: The address space a worker may take (a value that would fill the memory fails there, as MemoryError).
MEMORY_CAP = 8 * 2**30


class Accepted(Exception):
    """The command's checks passed: what it parsed is handed back here instead of running."""


@dataclasses.dataclass(frozen=True)
class Case:
    command: str
    flag: str
    kind: str
    argv: tuple[str, ...]


def command_module(command: str) -> Any:
    return importlib.import_module("experiments.web.__main__" if command == "web" else f"experiments.{command}")


def args_class(module: Any) -> type:
    """The argument dataclass a command parses (the one defined in its module with a ``main`` using it)."""
    classes = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__
        and value.__name__.endswith("Args")
    ]  # fmt: skip
    return classes[0]


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    return field.default_factory()  # type: ignore[misc]


def _base_type(hint: Any) -> Any:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if typing.get_origin(hint) is not list and args else hint


def bad_values(field: dataclasses.Field, hint: Any, tmp: Path) -> Iterator[tuple[str, list[str]]]:
    """(class, the flag's words) for the bad values of one field."""
    base = _base_type(hint)
    default = _default(field)
    help_text = field.metadata.get("help", "")
    zero_means = "0:" in help_text or "(0" in help_text or "0 " in help_text.split(":")[0]
    if base is bool:
        return
    if typing.get_origin(base) is list:
        item = typing.get_args(base)[0]
        yield "empty list", []
        if item is str:
            sample = default[0] if default else "random"
            yield "repeated", [sample, sample]
            yield "unknown name", ["no_such_name"]
            yield "empty string", [""]
            if field.name in INPUTS:
                yield "nonexistent input", [str(tmp / "missing")]
                yield "directory", [str(tmp)]
        else:
            values = INT_VALUES if item is int else FLOAT_VALUES
            for kind, value in values.items():
                if kind in ("wrong type", "fraction") or (kind == "zero" and zero_means):
                    continue
                yield kind, [value]
            yield "repeated", ["2", "2"]
        return
    if base in (int, float):
        values = INT_VALUES if base is int else FLOAT_VALUES
        for kind, value in values.items():
            if kind == "zero" and (zero_means or default == 0):
                continue
            yield kind, [value]
        return
    # strings
    if default == "":
        pass  # the empty string is the default: it means "none"
    elif field.metadata.get("choices"):
        yield "unknown name", ["no_such_name"]
        return
    else:
        yield "empty string", [""]
    if field.name in INPUTS:
        yield "nonexistent input", [str(tmp / "missing" / "x.npz")]
        yield "directory", [str(tmp)]
    elif field.name in OUTPUTS:
        yield "unwritable", ["/proc/pirate_probe/x"]
        yield "under a file", [str(tmp / "a_file" / "x")]
    else:
        yield "unknown name", ["no_such_name"]


def needs_cases(cls: type) -> Iterator[tuple[str, list[str]]]:
    """A flag whose help says it only matters ``with --other`` (a switch), given without it."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for field in dataclasses.fields(cls):
        help_text = field.metadata.get("help", "")
        if not help_text.startswith("with --"):
            continue
        other = help_text[len("with --") :].split(":")[0].split(" ")[0].replace("-", "_")
        if other not in fields or hints[other] is not bool or _default(fields[other]) is not False:
            continue
        flag = "--" + field.name.replace("_", "-")
        value = _other_value(_default(field), _base_type(hints[field.name]))
        if value is not None:
            yield f"{flag} without --{other.replace('_', '-')}", [flag, *value]


def _other_value(default: Any, base: Any) -> list[str] | None:
    """A good value that is not the default (``None``: none is known)."""
    if base is bool:
        return [] if default is False else None
    if base is int:
        return [str((default or 0) + 3)]
    if base is float:
        return [str((default or 0.0) + 0.5)]
    return None


def cases_of(command: str, tmp: Path) -> list[Case]:
    module = command_module(command)
    cls = args_class(module)
    hints = typing.get_type_hints(cls)
    base = [word.format(tmp=tmp, zip=tmp / "model.zip") for word in BASE.get(command, [])]
    cases = []
    for field in dataclasses.fields(cls):
        flag = "--" + field.name.replace("_", "-")
        for kind, words in bad_values(field, hints[field.name], tmp):
            cases.append(Case(command, flag, kind, (*base, flag, *words)))
    for kind, words in needs_cases(cls):
        cases.append(Case(command, words[0], kind, (*base, *words)))
    for flag, kind, words in EXTRA.get(command, []):
        cases.append(Case(command, flag, kind, (*base, *(word.format(tmp=tmp) for word in words))))
    return cases


#: Cases by hand: combinations of flags the help's wording does not show (flag, class, words).
EXTRA: dict[str, list[tuple[str, str, list[str]]]] = {
    "kapern_race": [
        ("--samples", "--samples without --check", ["--samples", "5"]),
        ("--threads", "--threads with --check", ["--check", "--threads", "1", "--out", "{tmp}/t.npz"]),
        ("--seed", "--seed without --play", ["--seed", "3"]),
    ],
    "kapern_best_response": [
        ("--tolerance", "--tolerance with --tables", ["--tables", "{tmp}/t.npz", "--tolerance", "0.01"]),
        ("--opponent", "--opponent with --tables", ["--tables", "{tmp}/t.npz", "--opponent", "heuristic"]),
        ("--seed", "--seed without --play", ["--seed", "3"]),
    ],
    "exact": [("--variants", "repeated", ["--variants", "x,x"])],
    "train": [("--batch-size", "larger than a rollout", ["--num-envs", "2", "--n-steps", "8", "--batch-size", "64"])],
    "rllib_selfplay": [
        ("--num-env-runners", "more than --num-cpus", ["--num-env-runners", "2", "--num-cpus", "1"]),
    ],
    "best_response": [("--train-args", "the flag, not after --", ["--train-args", "n_steps"])],
}


def _stopping(real: Callable[..., Any], depth: list[int]) -> Callable[..., Any]:
    """``real`` (a command's ``parse_args``/``parse_plan``) that raises `Accepted` once the outermost call returns."""

    def stop(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        try:
            result = real(*args, **kwargs)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            raise Accepted(result)
        return result

    return stop


def _stop(*args: Any, **kwargs: Any) -> typing.NoReturn:
    raise Accepted(args)


ARGPARSE_WORDS = ("argument --", "unrecognized arguments", "the following arguments are required", "expected ")


def classify(case: Case) -> tuple[str, str]:
    """(class, what the command printed or raised, shortened)."""
    module = command_module(case.command)
    depth = [0]
    stops = WORK.get(case.command, ("parse_args", "parse_plan"))
    saved = {name: getattr(module, name) for name in stops if hasattr(module, name)}
    for name, real in saved.items():
        setattr(module, name, _stopping(real, depth) if name.startswith("parse_") else _stop)
    err, out = io.StringIO(), io.StringIO()
    signal.alarm(60)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            module.main(list(case.argv))
        return "silent", "ran to the end"
    except Accepted:
        return "silent", "accepted: " + out.getvalue().strip()[-100:]
    except SystemExit as stop:
        text = err.getvalue().strip() or out.getvalue().strip() or str(stop.code)
        if stop.code != 2 or text.count("\n") or "Traceback" in text:
            return "unclear", f"exit {stop.code}: {text[-300:]}"
        if any(word in text for word in ARGPARSE_WORDS) and "error: argument" in text:
            return "conventional", text
        if any(flag in text for flag in case.flag.split()):
            return "clear", text
        return "unclear", "names another flag or none: " + text
    except Exception as error:
        return "unclear", f"{type(error).__name__}: {str(error)[:200]}"
    finally:
        signal.alarm(0)
        for name, real in saved.items():
            setattr(module, name, real)


def _timeout(*_: Any) -> None:
    raise TimeoutError("no answer in 60 s")


def run_commands(commands: list[str]) -> list[dict[str, Any]]:
    """Classify every case of ``commands`` in this process (a worker's job)."""
    signal.signal(signal.SIGALRM, _timeout)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "model.zip").write_bytes(b"")
        (tmp / "a_file").write_text("x")
        (tmp / "t.npz").write_bytes(b"")
        for command in commands:
            try:
                cases = cases_of(command, tmp)
            except (ImportError, SystemExit) as error:
                rows.append({"command": command, "flag": "-", "kind": "import", "class": "skipped",
                             "detail": f"not importable here: {error}", "argv": []})  # fmt: skip
                continue
            base = Case(command, "(none)", "baseline", tuple(w.format(tmp=tmp, zip=tmp / "model.zip")
                                                             for w in BASE.get(command, [])))  # fmt: skip
            verdict, detail = classify(base)
            if verdict != "silent":  # a probe whose good command line fails measures nothing
                detail = f"the good command line is refused: {detail}"
                rows.append({"command": command, "flag": "-", "kind": "baseline", "class": "skipped", "detail": detail})
                continue
            fields = {
                "--" + f.name.replace("_", "-"): f for f in dataclasses.fields(args_class(command_module(command)))
            }
            for case in cases:
                verdict, detail = classify(case)
                reason = allowed(case, fields.get(case.flag))
                if verdict == "silent" and reason:
                    verdict, detail = "allowed", reason
                argv = [w.replace(str(tmp), "<tmp>") for w in case.argv]
                detail = detail.replace(str(tmp), "<tmp>")
                rows.append({"command": command, "flag": case.flag, "kind": case.kind, "class": verdict,
                             "detail": detail, "argv": argv})  # fmt: skip
    return rows


# ---------------------------------------------------------------- the public API


def api_cases() -> Iterator[tuple[str, str, Callable[[], Any], tuple[str, ...]]]:
    """(entry point, bad input, the call, words one of which a clear message names)."""

    import pirate_envs

    for bad in (None, 3, "", "no_such_game", "SkullKing-v0", "pirate_envs/SkullKing-v0"):
        yield "pirate_envs.make", f"env id {bad!r}", (lambda b=bad: pirate_envs.make(b)), ("env id", repr(bad))
    from pirate_envs.core.spec import resolve

    for env_id in pirate_envs.ENV_IDS:
        config = resolve(pirate_envs.game_spec(env_id).config)
        options = {f.name: _default(f) for f in dataclasses.fields(config)}
        options.update({"num_players": 3, "render_mode": None, "reward_mode": "win", "table_layout": "seated"})
        for name, default in options.items():
            for kind, value in _api_bad_values(default):
                call = lambda e=env_id, n=name, v=value: pirate_envs.make(e, raw=True, **{n: v})  # noqa: E731
                yield f"make({env_id})", f"{name}={value!r} ({kind})", call, (name,)
        call = lambda e=env_id: pirate_envs.make(e, raw=True, no_such_option=1)  # noqa: E731
        yield f"make({env_id})", "no_such_option=1 (unknown)", call, ("no_such_option",)
    yield from _gym_cases()
    yield from _registry_cases()
    yield from _evaluation_cases()
    yield from _vector_and_explain_cases()


def _words(value: Any) -> tuple[str, ...]:
    """The words a message naming ``value`` holds: its repr, or each item's, or a path's name."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return tuple(w for item in items for w in (repr(item), repr(str(item).split(":")[-1])))


def _api_bad_values(default: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(default, bool):
        yield from (("wrong type", "yes"), ("wrong type", 2))
    elif isinstance(default, int):
        yield from (("wrong type", "3"), ("fraction", 2.5), ("bool", True), ("negative", -1), ("huge", 10**9))
    elif isinstance(default, float):
        yield from (("wrong type", "x"), ("nan", math.nan), ("inf", math.inf), ("negative", -1.0))
    elif isinstance(default, str):
        yield from (("wrong type", 5), ("unknown name", "no_such_value"))
    elif default is None:
        yield from (("wrong type", object()), ("unknown name", "no_such_value"), ("negative", -1))


def _gym_cases() -> Iterator[tuple[str, str, Callable[[], Any], tuple[str, ...]]]:
    import gymnasium

    import agents  # noqa: F401 - registers the ids
    import pirate_envs

    gym_id = next(iter(pirate_envs.GYMNASIUM_IDS))
    # an unknown id is gymnasium's own error (NameNotFound, naming the id): conventional, not probed
    for name, value in (("num_players", 99), ("num_players", "3"), ("opponents", ["no_such_agent"]),
                        ("opponents", []), ("no_such_option", 1), ("reward_mode", "nope")):  # fmt: skip
        call = lambda n=name, v=value: gymnasium.make(gym_id, **{n: v})  # noqa: E731
        yield "gymnasium.make", f"{name}={value!r}", call, (name, *_words(value))


def _registry_cases() -> Iterator[tuple[str, str, Callable[[], Any], tuple[str, ...]]]:
    from agents.registry import make_agent

    names = ("", "no_such_agent", "ppo:/no/such/file.npz", "ppo:", "mcts:-1", "mcts:abc", "mcts:0",
             "mcts:1000000000000", "halving:0", "halving:-5", "gumbel:0:ppo:skull_king_v0", "omniscient:-1",
             "dmc:/no/such.npz", "rules:/no/such.json", "mcts:8:batched:extra", "heuristic:0.5")  # fmt: skip
    for name in names:
        yield "make_agent", f"name {name!r}", (lambda n=name: make_agent(n, "skull_king_v0", seed=0)), _words(name)
    for seed in (-1, "x", 1.5):
        call = lambda s=seed: make_agent("random", "skull_king_v0", seed=s)  # noqa: E731
        yield "make_agent", f"seed {seed!r}", call, ("seed",)
    yield "make_agent", "env id 3", lambda: make_agent("random", 3), ("env id",)  # type: ignore[arg-type]


def _evaluation_cases() -> Iterator[tuple[str, str, Callable[[], Any], tuple[str, ...]]]:
    from agents.benchmark.run import ProtocolRun, run_protocol
    from agents.evaluation.tournament import run_tournament

    def tournament(**changes: Any) -> Callable[[], Any]:
        kwargs = {"env_id": "skull_king_v0", "agent_names": ["random", "random"], "games": 2, **changes}
        return lambda: run_tournament(**kwargs)

    for name, value in (("games", 0), ("games", -3), ("games", "2"), ("seed", -1), ("workers", 0),
                        ("agent_names", []), ("agent_names", ["no_such_agent", "random"]),
                        ("agent_names", "random"), ("env_id", "no_such_game")):  # fmt: skip
        yield "run_tournament", f"{name}={value!r}", tournament(**{name: value}), (name, *_words(value))

    def protocol(**changes: Any) -> Callable[[], Any]:
        kwargs = {"env_id": "skull_king_v0", "candidate": "random", "deals": 8, **changes}
        return lambda: run_protocol(ProtocolRun(**kwargs))

    for name, value in (("deals", 0), ("deals", -8), ("players", (99,)), ("workers", 0), ("version", 99),
                        ("opponents", ("no_such_agent",)), ("candidate", "no_such_agent"),
                        ("env_id", "no_such_game")):  # fmt: skip
        yield "run_protocol", f"{name}={value!r}", protocol(**{name: value}), (name, *_words(value))


def _vector_and_explain_cases() -> Iterator[tuple[str, str, Callable[[], Any], tuple[str, ...]]]:
    import importlib.util

    import numpy as np

    import pirate_envs
    from agents.analysis.explain import explain

    env = pirate_envs.make("skull_king_v0", raw=True)
    env.reset(seed=0)
    for name, value in (("name", None), ("name", 3)):
        yield "explain", f"{name}={value!r}", (lambda v=value: explain(env, v)), (name, repr(value))
    yield "explain", "env=None", lambda: explain(None, "heuristic"), ("env",)
    if importlib.util.find_spec("numba") is None:  # the batched engine's cases need the fast extra
        return
    import pirate_envs.vector as vector

    yield "vector.make", "num_envs=10**9", lambda: vector.make("skull_king_v0", 10**9), (str(10**9),)
    mask, empty, rng = np.ones((2, 3), np.int8), np.zeros((2, 3), np.int8), np.random.default_rng(0)
    for what, call, words in (
        ("a 1-D mask", lambda: vector.random_legal_actions(np.ones(3, np.int8), rng), ("action_mask",)),
        ("rng=None", lambda: vector.random_legal_actions(mask, None), ("rng",)),  # type: ignore[arg-type]
        ("a row with no legal action", lambda: vector.random_legal_actions(empty, rng), ("row 0",)),
    ):
        yield "random_legal_actions", what, call, words


def run_api() -> list[dict[str, Any]]:
    signal.signal(signal.SIGALRM, _timeout)
    rows = []
    for entry, what, call, words in api_cases():
        signal.alarm(60)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                call()
            kind = what.rsplit("(", 1)[-1].rstrip(")")
            verdict, detail = ("allowed", ALLOWED_API[kind]) if kind in ALLOWED_API else ("silent", "accepted")
        except (ValueError, TypeError) as error:
            text = str(error)
            named = any(str(word).lower() in text.lower() for word in words)
            verdict, detail = ("clear" if named and "\n" not in text.strip() else "unclear"), text[:200]
        except Exception as error:
            verdict, detail = "unclear", f"{type(error).__name__}: {str(error)[:200]}"
        finally:
            signal.alarm(0)
        rows.append({"command": "api:" + entry, "flag": what, "kind": "api", "class": verdict, "detail": detail})
    return rows


# ---------------------------------------------------------------- the report

CLASSES = ("clear", "conventional", "allowed", "silent", "unclear", "skipped")


def report(rows: list[dict[str, Any]], show: list[str]) -> None:
    by_command: dict[str, Counter] = {}
    for row in rows:
        by_command.setdefault(row["command"], Counter())[row["class"]] += 1
    total = Counter(row["class"] for row in rows)
    print(f"| command | {' | '.join(CLASSES)} |")
    print(f"|---|{'---|' * len(CLASSES)}")
    for command, counts in sorted(by_command.items()):
        print(f"| {command} | {' | '.join(str(counts[c]) for c in CLASSES)} |")
    print(f"| **all ({len(rows)})** | {' | '.join(str(total[c]) for c in CLASSES)} |")
    for row in rows:
        if row["class"] in show:
            words = " ".join(row.get("argv", [])) or row["flag"]
            print(f"{row['class'].upper():8} {row['command']} {row['flag']} [{row['kind']}]: {words}")
            print(f"    -> {row['detail']}")


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=COMMANDS, metavar="COMMAND")
    parser.add_argument("--no-api", action="store_true", help="leave the API part out")
    parser.add_argument("--show", nargs="*", default=["silent", "unclear"], choices=CLASSES)
    parser.add_argument("--json", help="also write every row to this file")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # one process per command: a crash, a hang or a memory blow-up stays in it
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
        rows = run_api() if args.worker == ["api"] else run_commands(args.worker)
        print(json.dumps(rows))
        return rows
    rows = []
    for job in [*args.commands, *([] if args.no_api else ["api"])]:
        done = subprocess.run(
            [sys.executable, __file__, "--worker", job], capture_output=True, text=True, cwd=ROOT, check=False
        )
        try:
            rows.extend(json.loads(done.stdout.strip().splitlines()[-1]))
        except (IndexError, ValueError):
            rows.append({"command": job, "flag": "-", "kind": "worker", "class": "unclear",
                         "detail": f"the worker failed: {done.stderr.strip()[-300:]}"})  # fmt: skip
    report(rows, args.show)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
