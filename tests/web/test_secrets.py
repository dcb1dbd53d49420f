"""While a game runs, nothing its seat may not see leaves the server: no seed, no record, no moves list."""

from __future__ import annotations

import json
import logging

import pytest

from tests.web.conftest import require_module, short_options, table_client

require_module("starlette", "web")
require_module("httpx", "web")

import pirate_envs  # noqa: E402
from experiments.web.server import create_app  # noqa: E402
from experiments.web.sessions import GameSession  # noqa: E402

#: Keys of a record that a running game's answers never hold.
RECORD_KEYS = ("seed", "actions", "agents", "rng")


@pytest.mark.parametrize("env_id", pirate_envs.ENV_IDS)
def test_a_running_game_gives_away_neither_its_seed_nor_its_record(env_id):
    app = create_app()
    with table_client(app) as client:
        opponents = ["random"] * pirate_envs.game_spec(env_id).min_players  # a seat more than the fewest
        body = {"env_id": env_id, "opponents": opponents, "seat": 0, "options": short_options(env_id)}
        first = client.post("/api/sessions", json=body)
        assert first.status_code == 200, first.json()
        sid = first.json()["id"]
        seed = str(app.state.sessions.get(sid).seed)  # the server's secret
        assert seed not in client.get("/api/games").text
        answers = [first, client.get(f"/api/sessions/{sid}")]
        answers.append(client.post(f"/api/sessions/{sid}/move", json={"action": 10**6}))  # an error
        answers.append(client.post(f"/api/sessions/{sid}/move", json={"command": "no such move"}))
        answers.append(client.get(f"/api/sessions/{sid}/record"))
        assert answers[-1].status_code == 409 and "once the game is over" in answers[-1].json()["error"]
        state = answers[1].json()
        while not state["done"]:
            move = client.post(f"/api/sessions/{sid}/move", json={"action": state["moves"][0]["action"]})
            state = move.json()
            if not state["done"]:
                answers.append(move)
                record = client.get(f"/api/sessions/{sid}/record")
                assert record.status_code == 409
                answers.append(record)
        for answer in answers:
            assert seed not in answer.text, answer.text[:200]
            assert not set(answer.json()) & set(RECORD_KEYS), answer.text[:200]
            assert answer.json().get("chosen_seed") is None
        record = client.get(f"/api/sessions/{sid}/record")  # the game is over: everything
        assert record.status_code == 200 and str(record.json()["seed"]) == seed and record.json()["actions"]


def test_a_chosen_seed_is_shown_back_and_the_page_says_what_it_means():
    with table_client(create_app()) as client:
        body = {"env_id": "skull_king_v0", "opponents": ["random"], "seed": 12345, "options": {"num_hands": 1}}
        state = client.post("/api/sessions", json=body).json()
        assert state["chosen_seed"] == 12345
        assert client.get(f"/api/sessions/{state['id']}/record").status_code == 409
        page = client.get("/").text
        assert "secret random deal" in page and "hidden cards can be rebuilt" in page
        # at a shared table every seat is told that the host chose the deal, and nobody is shown the seed
        seed = 987654321987
        table = {"env_id": "skull_king_v0", "seats": ["you", "random"], "seed": seed, "options": {"num_hands": 1}}
        opened = client.post("/api/tables", json=table).json()
        assert opened["state"]["seeded"] is True and opened["state"]["chosen_seed"] is None
        assert str(seed) not in client.get(f"/api/tables/{opened['id']}").text
        assert "host chose this deal's seed" in client.get("/static/app.js").text


def test_the_server_seed_is_too_large_to_guess():
    app = create_app()
    with table_client(app) as client:
        seeds = set()
        for _ in range(8):
            state = client.post("/api/sessions", json={"env_id": "lucky_pirate_v0", "opponents": ["random"]}).json()
            seeds.add(app.state.sessions.get(state["id"]).seed)
        assert len(seeds) == 8 and max(seeds) > 2**40  # a 31-bit seed is a brute force away from the deal


def test_an_error_in_the_game_code_is_logged_and_answered_without_details(monkeypatch, caplog):
    def broken_state(self):
        raise RuntimeError(f"secret: seed {self.seed}, hands {self.env.game!r}")

    with table_client(create_app(), raise_server_exceptions=False) as client:
        body = {"env_id": "skull_king_v0", "opponents": ["random"], "options": {"num_hands": 1}}
        sid = client.post("/api/sessions", json=body).json()["id"]
        monkeypatch.setattr(GameSession, "state", broken_state)
        with caplog.at_level(logging.ERROR):
            response = client.get(f"/api/sessions/{sid}")
        assert response.status_code == 500
        assert response.json() == {"error": "internal error in the game; the server log has the details"}
        assert "secret" not in response.text
        assert any("secret" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)
        # a request error is still itself, and the game is still there
        bad = client.post(f"/api/sessions/{sid}/move", json={"action": "x"})
        assert bad.status_code == 400 and "must be an integer" in bad.json()["error"]
        assert json.loads(client.get("/api/games").text)["skull_king_v0"]["name"]
