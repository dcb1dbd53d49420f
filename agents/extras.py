"""One line naming the missing extra, never a ``ModuleNotFoundError`` traceback.

The core install (``pip install -e .``) holds only the envs; the commands need extras of
``pirate-envs`` (``pyproject.toml``): ``train`` (torch, sb3, openskill, matplotlib), ``rllib``
(ray), ``web`` (starlette, uvicorn) and ``fast`` (numba). Where a command needs one:

    from agents.extras import require, require_extras

    openskill = require("openskill", "train")  # the module, or MissingExtra (an ImportError)

    # at the top of a command module, before the imports that need the extra:
    require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"))

`require_extras` run as a command (``python -m ...``: ``__name__ == "__main__"``) prints
one line and exits with status 2 when a module is missing; imported, it raises
`MissingExtra`. A command that checks its arguments with ``experiments.cli.parse_args``
can instead turn `MissingExtra` into the ``ValueError`` of its check (one line, status 2).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

#: The install command of an extra, from a checkout of the project (``constraints.txt`` pins torch's CPU build).
INSTALL = 'pip install -c constraints.txt -e ".[{extra}]"'


class MissingExtra(ImportError):
    """A module of an optional extra is not installed; the message is one line naming the extra."""


def missing_extra_message(extra: str, module: str) -> str:
    """``this command needs the "<extra>" extra (<module> is not installed): pip install ...``."""
    return f'this command needs the "{extra}" extra ({module} is not installed): {INSTALL.format(extra=extra)}'


def require(module: str, extra: str) -> ModuleType:
    """The module ``module``, imported; `MissingExtra` naming ``extra`` if it (or one it needs) is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing = error.name or module
        raise MissingExtra(missing_extra_message(extra, missing), name=missing) from None


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
