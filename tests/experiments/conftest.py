"""The shipped games only: the agents, the commands and the web table serve `pirate_envs.ENV_IDS` (an example
game registered for the generic tests, such as Pig, has no agents of its own beyond what its env offers)."""

from __future__ import annotations

import pytest

import pirate_envs


@pytest.fixture(params=pirate_envs.ENV_IDS)
def env_id(request) -> str:
    """Every shipped env id."""
    return request.param
