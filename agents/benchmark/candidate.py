"""The benchmark's candidate: a registry name, a user's Python agent, or an agent object or factory.

* A **registry name** (``heuristic``, ``ppo:skull_king_v0``, ``ppo:path/to/agent.npz`` ...): built by
  `agents.registry.make_agent`, on the batched engine where it has a batched form.
* A **Python agent**: ``package.module:factory`` (an importable, dotted module path) or
  ``path/to/file.py:factory``. ``factory(env_id, seed, env)`` returns an `agents.base.Agent` (``act``
  and ``reset``) for one game of the table ``env`` (a raw env); it is called once per game.
  Loading it runs its code: it is the user's own code, run on the user's machine by the benchmark
  command or API. Nothing served over the network loads one (the web table offers only the
  registry's names and data-only agent files).
* Given to `agents.benchmark.run.run_protocol`: an agent object (deep-copied for every game) or a
  factory as above.

A Python agent plays every table size of its game unless ``--players`` chooses; its results file
records the file's name and SHA-256 (never its path).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.spec import parse_agent_name, runs_user_code
from pirate_envs.core.errors import shown

#: ``factory(env_id, seed, env)``: an agent for one game of ``env``.
AgentFactory = Callable[[str, "int | None", Any], Agent]


@dataclass(frozen=True)
class Candidate:
    """A candidate: its name in the results and how to build it (``factory`` ``None``: a registry name)."""

    name: str
    factory: AgentFactory | None = None
    source: Path | None = None  # the file that defines a Python agent (hashed, never recorded)

    @property
    def registry(self) -> bool:
        """Whether the candidate is a registry name (built by `agents.registry.make_agent`)."""
        return self.factory is None

    def make(self, env_id: str, seed: int | None, env: Any) -> Agent:
        """One agent for one game of ``env``."""
        if self.factory is None:
            from agents.registry import make_agent

            return make_agent(self.name, env_id, seed=seed, env=env)
        try:
            agent = self.factory(env_id, seed, env)
        except (Exception, SystemExit) as error:  # the user's code: refused in one line naming it
            raise ValueError(f"{self.name}: {failure(error)}") from None
        if isinstance(agent, type) or not all(callable(getattr(agent, m, None)) for m in ("act", "reset")):
            raise ValueError(
                f"{self.name} returned {shown(agent)} ({type(agent).__name__}), not an agent: "
                "return an object with reset(seed) and act(observation, view)"
            )
        return agent

    def player_counts(self, env_id: str) -> tuple[int, ...]:
        """The table sizes of ``env_id`` it plays (a Python agent: every size of the game)."""
        if self.factory is None:
            from agents.registry import agent_player_counts

            return agent_player_counts(self.name, env_id)
        return tuple(pirate_envs.player_counts(env_id))


def is_python_agent(name: str) -> bool:
    """Whether ``name`` names a Python agent: ``path/to/file.py:factory`` or ``package.module:factory``."""
    return runs_user_code(name)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def failure(error: BaseException) -> str:
    """One line for what the user's code raised (a ``sys.exit`` said as such)."""
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r})"
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _module_file(target: str) -> str:
    """The file name of the module ``target`` (where it can be found without running it), else ``target``."""
    try:
        spec = importlib.util.find_spec(target)
    except (Exception, SystemExit):  # finding a submodule imports its package: the user's code again
        return target
    origin = getattr(spec, "origin", None)
    return f"{target} ({Path(origin).name})" if origin and Path(origin).is_file() else target


def load_python_agent(name: str) -> Candidate:
    """The Python agent ``name`` (runs its module's code); ``ValueError`` (one line, naming the file) if it
    cannot load: whatever the module raises while loading, ``sys.exit`` included."""
    spec = parse_agent_name(name)
    if spec.kind != "python":
        raise ValueError(f"{shown(name)} is not a Python agent: use path/to/file.py:factory or package.module:factory")
    target, attribute = spec.source or "", spec.option or ""
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"no file {path.name!r} at the path given")
        module_name = f"_pirate_bench_agent_{file_sha256(path)[:16]}"
        module = sys.modules.get(module_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module  # so that worker processes and pickle find it
            try:
                spec.loader.exec_module(module)
            except (Exception, SystemExit) as error:
                del sys.modules[module_name]
                raise ValueError(f"{path.name} failed to load: {failure(error)}") from None
        shown_name = f"{path.name}:{attribute}"
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise ValueError(f"cannot import {target}: {error}") from None
        except (Exception, SystemExit) as error:  # a module that cannot compile or run
            raise ValueError(f"{_module_file(target)} failed to load: {failure(error)}") from None
        shown_name = name
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"{shown_name}: no callable {attribute!r} in the module")
    source = getattr(module, "__file__", None)
    return Candidate(shown_name, factory, Path(source) if source else None)


class _Copies:
    """A factory of deep copies of one agent object (picklable when the object is)."""

    def __init__(self, agent: Agent):
        self.agent = agent

    def __call__(self, env_id: str, seed: int | None, env: Any) -> Agent:
        return copy.deepcopy(self.agent)


def _source_of(thing: Any) -> Path | None:
    """The file defining ``thing``; ``None`` when there is none (a REPL, a notebook cell, ``<stdin>``)."""
    try:
        source = inspect.getsourcefile(thing)
    except TypeError:
        return None
    return Path(source) if source and Path(source).is_file() else None


def resolve(candidate: str | Agent | AgentFactory | Candidate) -> Candidate:
    """The `Candidate` of a name, an agent object or a factory (`Candidate` itself unchanged)."""
    if isinstance(candidate, Candidate):
        return candidate
    if isinstance(candidate, str):
        return load_python_agent(candidate) if is_python_agent(candidate) else Candidate(candidate)
    if not isinstance(candidate, type) and isinstance(candidate, Agent):  # a class is a factory
        kind = type(candidate)
        name = str(getattr(candidate, "name", "") or kind.__name__)
        return Candidate(name, _Copies(candidate), _source_of(kind))
    if callable(candidate):
        name = getattr(candidate, "__qualname__", None) or type(candidate).__name__
        return Candidate(name, candidate, _source_of(candidate))
    raise TypeError(f"a candidate is an agent name, an Agent or a factory, not {type(candidate).__name__}")


__all__ = ["AgentFactory", "Candidate", "file_sha256", "is_python_agent", "load_python_agent", "resolve"]
