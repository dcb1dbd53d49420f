"""The documentation site covers every game, every page is in the navigation, and docstrings are Markdown."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pirate_envs

ROOT = Path(__file__).resolve().parents[1]


def test_every_game_has_a_page_from_its_module_docstring_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    for env_id in pirate_envs.ENV_IDS:
        game = re.sub(r"_v\d+$", "", env_id)  # every version of a game shares its page
        page = ROOT / "docs" / "games" / f"{game}.md"
        assert f"::: pirate_envs.{game}.env" in page.read_text(), page
        assert f"games/{game}.md" in nav


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    assert pages and [p for p in pages if p not in nav] == []


# Docstrings are Markdown (mkdocstrings renders them as such): code in backticks, no reST roles
# such as :func:`x` and no reST literal-block marker "::" (they show up verbatim on the pages).
REST_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|data|mod|attr|obj|exc|const):`")
REST_LITERAL = re.compile(r"(?<!:)::[ \t]*$", flags=re.M)
PACKAGES = ("pirate_envs", "agents", "experiments")


def rest_markup_by_file() -> dict[str, list[str]]:
    """``{file: [where]}`` for every module, class and function docstring with reST markup."""
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                doc = ast.get_docstring(node, clean=False) or ""
                if REST_ROLE.search(doc) or REST_LITERAL.search(doc):
                    where = f"{getattr(node, 'name', 'module')} (line {getattr(node, 'lineno', 1)})"
                    found.setdefault(path.relative_to(ROOT).as_posix(), []).append(where)
    return found


def test_docstrings_are_markdown_without_rest_roles():
    assert rest_markup_by_file() == {}, "reST roles or '::' in docstrings (write `name` in backticks instead)"


def test_the_markup_check_finds_rest_roles():
    assert REST_ROLE.search("Use :func:`make` or :class:`~x.Y`") and not REST_ROLE.search("Use `make`")
    assert REST_LITERAL.search("for example::\n\n    code") and not REST_LITERAL.search("::: pirate_envs.vector")
    assert not REST_LITERAL.search("for example:\n\n    code")


def test_doc_pages_have_no_rest_roles():
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    assert [p.name for p in pages if REST_ROLE.search(p.read_text())] == []
