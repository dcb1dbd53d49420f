"""The documentation pages, read by the tests that hold them to the code (paths from the repository root)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def doc_page(relative: str) -> str:
    """The text of ``docs/<relative>``, e.g. ``doc_page("guides/batched.md")``."""
    return (ROOT / "docs" / relative).read_text(encoding="utf-8")


def game_page(env_id: str) -> str:
    """The text of the game's page ``docs/games/<game>.md`` (every version of a game shares it)."""
    return doc_page(f"games/{re.sub(r'_v[0-9]+$', '', env_id)}.md")
