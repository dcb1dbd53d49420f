"""Shared fixtures."""

from __future__ import annotations

import pytest

import pirate_envs


@pytest.fixture(params=pirate_envs.ENV_IDS)
def env_id(request) -> str:
    """Every registered env id."""
    return request.param
