"""The README's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "final reward" in capsys.readouterr().out


def test_readme_has_both_commands():
    text = README.read_text()
    for marker in ("# main-command", "# test-command"):
        line = text.split(marker + "\n", 1)[1].split("\n", 1)[0]
        assert line.startswith("python3 -m venv .venv") and "-c constraints.txt" in line
