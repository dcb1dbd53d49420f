"""The web table's tests need the ``web`` extra; outside CI they skip when it is missing."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest

import pirate_envs
from tests.game_data import short_game

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_module(name: str, extra: str) -> None:
    """Skip (outside CI) or fail (in CI) when ``name`` cannot be imported."""
    if importlib.util.find_spec(name) is None:
        message = f"{name} is not installed: pip install -e '.[{extra}]'"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


#: The address the test client sends in ``Host`` (the table refuses other host names).
BASE_URL = "http://localhost"


def table_client(app: Any, **kwargs: Any) -> Any:
    """A Starlette test client that talks to ``app`` as a page opened at ``http://localhost`` would."""
    from starlette.testclient import TestClient

    return TestClient(app, base_url=BASE_URL, **kwargs)


@pytest.fixture
def app() -> Any:
    """A fresh web table (no agents folder, tables in memory)."""
    from experiments.web.server import create_app

    return create_app()


@pytest.fixture
def client(app: Any) -> Any:
    """A test client of ``app``."""
    with table_client(app) as c:
        yield c


#: The header of a JSON body (the table refuses a POST or DELETE without it).
JSON = {"Content-Type": "application/json"}


def short_options(env_id: str) -> dict[str, Any]:
    """The options of a short game of ``env_id`` at the table (its ``tests/<game>/short_games.json``, ``web``)."""
    return short_game(env_id, "web")


def new_game(client, env_id="skull_king_v0", opponents=("heuristic", "random"), **extra):
    """POST a short game with seed 3, the person at seat 0; the response."""
    options = short_options(env_id)
    body = {"env_id": env_id, "opponents": list(opponents), "seat": 0, "seed": 3, "options": options, **extra}
    return client.post("/api/sessions", json=body)


def play_out(client, state, pick=lambda moves: moves[0]["action"]):
    """Play the first listed move (Kapern: stop) until the game ends; the final state."""
    for _ in range(5000):
        if state["done"]:
            return state
        assert state["your_turn"]
        response = client.post(f"/api/sessions/{state['id']}/move", json={"action": pick(state["moves"])})
        assert response.status_code == 200, response.json()
        state = response.json()
    raise AssertionError("game not over")


@pytest.fixture(params=pirate_envs.ENV_IDS)
def env_id(request) -> str:
    """Every shipped env id: the web table serves `pirate_envs.ENV_IDS` (an example game registered for the
    generic tests, such as Pig, is not offered there)."""
    return request.param
