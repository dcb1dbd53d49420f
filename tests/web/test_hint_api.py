"""``GET /api/sessions/{id}/hint?agent=NAME``: an agent's advice in words for your turn, from the seat's view."""

from __future__ import annotations

import numpy as np
import pytest

from tests.game_data import by_version
from tests.web.conftest import new_game, play_out, require_module

require_module("starlette", "web")
require_module("httpx", "web")

from agents.analysis.hint_text import HINT_TOP, hint_named  # noqa: E402

FIELDS = {"action", "label", "probability", "visits", "value", "expected_points"}


def hint(client, sid, agent=None):
    return client.get(f"/api/sessions/{sid}/hint", params={} if agent is None else {"agent": agent})


# the agents and figures by version: each game's ``hint_figures`` in tests/<game>/short_games.json
@pytest.mark.parametrize(
    "env_id, agent, figure",
    [(env_id, row["agent"], row["figure"]) for env_id, rows in by_version("hint_figures").items() for row in rows],
)
def test_hint_answers_with_the_agents_figures_for_the_persons_seat(client, env_id, agent, figure):
    state = new_game(client, env_id, ("heuristic",)).json()
    response = hint(client, state["id"], agent)
    assert response.status_code == 200, response.json()
    answer = response.json()
    session = client.app.state.sessions.get(state["id"])
    expected = hint_named(session.env, answer["agent"], seed=0).to_dict()
    assert answer == {**expected, "version": state["version"], "staged": []}
    assert answer["agent"] == (agent or f"ppo:{env_id}") and len(answer["moves"]) <= HINT_TOP
    assert answer["text"].startswith(f"{answer['agent']} (") and answer["meaning"] in answer["text"]
    legal = {move["action"] for move in state["moves"]} | set(np.flatnonzero(session.env.game.legal_mask()).tolist())
    assert answer["moves"] and all(set(m) == FIELDS and m["action"] in legal for m in answer["moves"])
    if figure is not None:
        assert all(m[figure] is not None for m in answer["moves"])
    after = client.get(f"/api/sessions/{state['id']}").json()
    assert after["steps"] == state["steps"]  # a hint plays nothing


def test_hint_is_the_same_when_the_hidden_cards_are_redrawn(client):
    state = new_game(client, "skull_king_v0", ("heuristic", "heuristic")).json()
    sid = state["id"]
    before = hint(client, sid, "mcts").json()
    session = client.app.state.sessions.get(sid)
    rendered = session.env.game.render()
    session.env.game.resample_hidden(session.seat, np.random.default_rng(12))
    assert session.env.game.render() != rendered  # the others' hands and the deck changed
    assert hint(client, sid, "mcts").json() == before
    assert client.get(f"/api/sessions/{sid}").json()["text"] == state["text"]


def test_hint_refuses_an_unknown_agent_and_a_finished_game(client):
    state = new_game(client, "skull_king_v0", ("random",)).json()
    response = hint(client, state["id"], "file:../../etc/passwd")
    assert response.status_code == 400 and "unknown agent" in response.json()["error"]
    final = play_out(client, state)
    response = hint(client, final["id"])
    assert response.status_code == 409 and "not your turn" in response.json()["error"]
    response = hint(client, "nosuchgame")
    assert response.status_code == 404
