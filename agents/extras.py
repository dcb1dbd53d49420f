"""One line naming the missing extra, never a ``ModuleNotFoundError`` traceback.

The core install (``pip install -e .``) holds only the envs; the commands need extras of
``pirate-envs`` (``pyproject.toml``): ``train`` (torch, sb3, openskill, matplotlib), ``rllib``
(ray), ``web`` (starlette, uvicorn) and ``fast`` (numba). Where a command needs one:

    from agents.extras import require, require_extras

    openskill = require("openskill", "train")  # the module, or MissingExtra (an ImportError)

    # at the top of a command module, before the imports that need the extra:
    require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"))

An agent that needs an extra names it in its class's ``extras`` (``(module, extra)`` pairs) and calls
`require_agent_extras` first thing in its constructor: built without the extra, it refuses in one line
(`MissingExtra`), not at its first move; `agent_available` tells, importing nothing, whether it builds.

`require_extras` run as a command (``python -m ...``: ``__name__ == "__main__"``) prints
one line and exits with status 2 when a module is missing; imported, it raises
`MissingExtra`. A command that checks its arguments with ``experiments.cli.parse_args``
can instead turn `MissingExtra` into the ``ValueError`` of its check (one line, status 2).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

#: The install command of an extra, from a checkout of the project (``constraints.txt`` pins torch's CPU build).
INSTALL = 'pip install -c constraints.txt -e ".[{extra}]"'


class MissingExtra(ImportError):
    """A module of an optional extra is not installed; the message is one line naming the extra."""


def missing_extra_message(extra: str, module: str, needed_by: str = "this command") -> str:
    """``<needed_by> needs the "<extra>" extra (<module> is not installed): pip install ...``."""
    return f'{needed_by} needs the "{extra}" extra ({module} is not installed): {INSTALL.format(extra=extra)}'


def require(module: str, extra: str, needed_by: str = "this command") -> ModuleType:
    """The module ``module``, imported; `MissingExtra` naming ``extra`` if it (or one it needs) is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing = error.name or module
        raise MissingExtra(missing_extra_message(extra, missing, needed_by), name=missing) from None


def require_agent_extras(agent: Any) -> None:
    """`MissingExtra` (``agent '<name>' needs the "<extra>" extra ...``) unless every module of the
    agent's ``extras`` (``(module, extra)`` pairs of its class) imports."""
    for module, extra in getattr(agent, "extras", ()):
        require(module, extra, f"agent {agent.name!r}")


def agent_available(agent_class: type) -> bool:
    """Whether every module of the agent class's ``extras`` is installed (found; nothing is imported)."""
    return all(importlib.util.find_spec(module) is not None for module, _ in getattr(agent_class, "extras", ()))


def exit_missing_extra(error: MissingExtra) -> NoReturn:
    """Print ``<program>: error: <error>`` on stderr (one line) and exit with status 2."""
    print(f"{Path(sys.argv[0]).name}: error: {error}", file=sys.stderr)
    raise SystemExit(2)


def require_extras(caller: str, *requirements: tuple[str, str]) -> None:
    """Import every ``(module, extra)``; a missing one ends a command (``caller == "__main__"``) with one
    line and status 2, and raises `MissingExtra` in an importer."""
    try:
        for module, extra in requirements:
            require(module, extra)
    except MissingExtra as error:
        if caller != "__main__":
            raise
        exit_missing_extra(error)
