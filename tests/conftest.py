"""Shared fixtures."""

from __future__ import annotations

import pytest

from tests.games import GAME_IDS


@pytest.fixture(params=GAME_IDS)
def env_id(request) -> str:
    """Every registered env id."""
    return request.param
