"""Every module docstring fits a screen: at most `MAX_LINES` lines; the long text lives in the docs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The most lines a module docstring spans in its file (the closing quotes' line included).
MAX_LINES = 25
#: The folders whose modules are checked.
FOLDERS = ("pirate_envs", "agents", "experiments", "benchmarks", "examples")


def docstring_lines(path: Path) -> int:
    """How many lines the module docstring of ``path`` spans (0 without one)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    return 0 if doc is None else doc.count("\n") + 1


def too_long(folder: str) -> dict[str, int]:
    """``{module: lines}`` of every module under ``folder`` whose docstring runs past `MAX_LINES`."""
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if (lines := docstring_lines(path)) > MAX_LINES:
            found[name] = lines
    return found


@pytest.mark.parametrize("folder", FOLDERS)
def test_module_docstrings_fit_a_screen(folder: str) -> None:
    assert too_long(folder) == {}, f"module docstrings over {MAX_LINES} lines: move the long text to docs/"


def test_the_count_includes_the_closing_line(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""One.\n\nThree.\n"""\n\nx = 1\n')
    assert docstring_lines(module) == 4
    module.write_text("x = 1\n")
    assert docstring_lines(module) == 0
