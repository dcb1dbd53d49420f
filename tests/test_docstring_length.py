"""Module docstrings fit a screen: at most 25 lines; the long text lives in the docs pages."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 25
#: The folders checked here (others add theirs).
FOLDERS = ["pirate_envs", "examples"]


def long_docstrings(folder: str) -> dict[str, int]:
    """``{path: lines}`` of every module under ``folder`` whose docstring runs past `MAX_LINES`."""
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False) or ""
        lines = len(doc.split("\n"))
        if lines > MAX_LINES:
            found[path.relative_to(ROOT).as_posix()] = lines
    return found


@pytest.mark.parametrize("folder", FOLDERS)
def test_module_docstrings_fit_a_screen(folder: str) -> None:
    assert long_docstrings(folder) == {}, f"module docstrings over {MAX_LINES} lines: move the text to docs/"
