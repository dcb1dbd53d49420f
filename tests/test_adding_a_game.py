"""``docs/ADDING_A_GAME.md`` follows the example game (``examples/pig``) and states `GameSpec`'s parts.

Every block of the guide marked ``<!-- example: PATH -->`` must stand verbatim in ``PATH``; every
module of the example must be quoted; the guide's tables of required fields and optional parts
must be `GameSpec`'s fields without a default and `OPTIONAL_PARTS`, word for word.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path

from pirate_envs.core.spec import OPTIONAL_PARTS, GameSpec

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "ADDING_A_GAME.md"
EXAMPLE = ROOT / "examples" / "pig"
QUOTED = re.compile(r"^<!-- example: (\S+) -->\n```python\n(.*?)^```", flags=re.M | re.S)


def quoted_blocks(text: str) -> list[tuple[str, str]]:
    """``(path, code)`` of every block of ``text`` marked as quoted from a file."""
    return [(path, code) for path, code in QUOTED.findall(text)]


def table_after(text: str, marker: str) -> list[list[str]]:
    """The cells of the markdown table right after the line ``marker`` (its header and rule left out)."""
    lines = text[text.index(marker) :].splitlines()[1:]
    table = list(itertools.takewhile(lambda line: line.startswith("|"), lines))
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in table[2:]]


def test_every_quoted_block_stands_in_its_file():
    blocks = quoted_blocks(GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) >= 10
    for path, code in blocks:
        assert code in (ROOT / path).read_text(encoding="utf-8"), f"the guide's block from {path} is not in it:\n{code}"


def test_every_module_of_the_example_is_quoted():
    quoted = {path for path, _ in quoted_blocks(GUIDE.read_text(encoding="utf-8"))}
    modules = {str(path.relative_to(ROOT)) for path in EXAMPLE.glob("*.py")}
    assert modules - quoted == set()


def test_the_required_fields_are_those_without_a_default():
    rows = table_after(GUIDE.read_text(encoding="utf-8"), "<!-- required: the GameSpec fields without a default -->")
    required = [f.name for f in dataclasses.fields(GameSpec) if f.default is dataclasses.MISSING]
    assert [row[0].strip("`") for row in rows] == required


def test_the_optional_parts_are_the_declarations_word_for_word():
    rows = table_after(GUIDE.read_text(encoding="utf-8"), "<!-- optional: pirate_envs.core.spec.OPTIONAL_PARTS -->")
    assert {row[0].strip("`"): row[1] for row in rows} == OPTIONAL_PARTS
