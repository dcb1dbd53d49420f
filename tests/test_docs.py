"""The documentation site covers every game and every page is in the navigation."""

from __future__ import annotations

from pathlib import Path

import pirate_envs

ROOT = Path(__file__).resolve().parents[1]


def test_every_game_has_a_page_from_its_module_docstring_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    for env_id in pirate_envs.ENV_IDS:
        game = env_id.removesuffix("_v0")
        page = ROOT / "docs" / "games" / f"{game}.md"
        assert f"::: pirate_envs.{game}.env" in page.read_text(), page
        assert f"games/{game}.md" in nav


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    assert pages and [p for p in pages if p not in nav] == []
