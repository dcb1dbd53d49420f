"""Pig's page (``docs/games/pig.md``) shows the observation and action tables the code builds."""

from __future__ import annotations

from examples.pig.actions import ACTIONS
from examples.pig.observation import build_layout
from tests.doc_pages import game_page


def test_the_pages_tables_match_the_code() -> None:
    page = game_page("pig_v0")
    assert build_layout(2).table() in page
    assert ACTIONS.table() in page
    assert f"Discrete({len(ACTIONS)})" in page
