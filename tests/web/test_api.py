"""The web table's HTTP API through the ASGI test client: games, moves, bad requests, sessions."""

from __future__ import annotations

import shutil

import pytest

from agents.policy.agent import shipped_checkpoints
from tests.web.conftest import JSON, new_game, play_out, require_module, table_client

require_module("starlette", "web")
require_module("httpx", "web")

import experiments.web.sessions as sessions_module  # noqa: E402
import pirate_envs  # noqa: E402
from agents.policy.agent import PRETRAINED_DIR  # noqa: E402
from agents.registry import agent_names  # noqa: E402
from experiments.web.server import create_app  # noqa: E402
from experiments.web.sessions import SessionStore  # noqa: E402
from tests.helpers import one_table_agent_file  # noqa: E402


def test_games_lists_every_game_with_every_agent(client):
    games = client.get("/api/games").json()
    assert list(games) == list(pirate_envs.ENV_IDS)
    for env_id, game in games.items():
        assert game["agents"] == agent_names(env_id)
        assert (f"ppo:{env_id}" in game["agents"]) == (env_id in shipped_checkpoints())  # the shipped agent
        assert game["players"][0] >= 2


@pytest.mark.parametrize("env_id", pirate_envs.ENV_IDS)
def test_a_whole_game_through_the_api(client, env_id):
    response = new_game(client, env_id, ("heuristic", "heuristic", "random"))
    assert response.status_code == 200, response.json()
    state = response.json()
    assert state["text"].splitlines()[0].endswith("you are player_0")
    final = play_out(client, state)
    assert final["done"] and final["moves"] == [] and final["events"][-1]["kind"] in ("game_over", "round_won")
    assert sorted(final["standings"]) == [0, 1, 2, 3]
    scores = final["scores"]
    assert [scores[s] for s in final["standings"]] == sorted(scores, reverse=True)
    record = client.get(f"/api/sessions/{state['id']}/record").json()
    assert record["actions"] and record["env_kwargs"]["num_players"] == 4 and record["scores"] == scores


def test_moves_by_command_and_bad_moves_leave_the_game_as_it_was(client):
    state = new_game(client, "piraten_kapern_v0", ("heuristic",)).json()
    sid, steps = state["id"], state["steps"]
    move = f"/api/sessions/{sid}/move"
    bad = [
        ({"action": 99999}, "is not legal now"),
        ({"action": "3"}, "must be an integer"),
        ({"action": True}, "must be an integer"),
        ({"action": 0, "command": "stop"}, "send"),
        ({}, "send"),
        ({"command": "reroll 9 parrot"}, "not that many free parrot"),
        ({"command": "dance"}, "is not a face"),
        ({"command": 5}, "command must be a text"),
    ]
    for body, message in bad:
        response = client.post(move, json=body)
        assert response.status_code == 400 and message in response.json()["error"], (body, response.json())
    for raw in (b"not json", b"[1, 2]", b"\xff\xfe"):
        response = client.post(move, content=raw, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, raw
    again = client.get(f"/api/sessions/{sid}").json()
    assert again["steps"] == steps and again["your_turn"] and again["text"] == state["text"]
    free = again["dice"]["free"]
    faces = ["coin", "diamond", "monkey", "parrot", "sabre"]
    two = [f"1 {faces[f]}" for f in range(5) for _ in range(free[f])][:2]
    if len(two) == 2:
        response = client.post(move, json={"command": "reroll " + " ".join(two)})
        assert response.status_code == 200, response.json()
        assert any(e["kind"] == "move" and e["text"].startswith("player_0 re-rolls") for e in response.json()["events"])
    final = play_out(client, client.get(f"/api/sessions/{sid}").json(), pick=lambda moves: moves[0]["action"])
    response = client.post(move, json={"action": 0})
    assert response.status_code == 409 and "over" in response.json()["error"]
    assert final["done"]


def test_piratenpoker_bid_by_command(client):
    state = new_game(client, "piratenpoker_v0", ("random", "random")).json()
    assert state["your_turn"]
    response = client.post(f"/api/sessions/{state['id']}/move", json={"command": "pass"})
    assert response.status_code == 200
    assert any(e["kind"] == "bid" and e["seat"] == 0 for e in response.json()["events"])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"env_id": "chess_v0", "opponents": ["random"]}, "unknown game"),
        ({"env_id": 5, "opponents": ["random"]}, "unknown game"),
        ({"env_id": "skull_king_v0", "opponents": []}, "opponents must be"),
        ({"env_id": "skull_king_v0", "opponents": "random"}, "opponents must be"),
        ({"env_id": "piratenpoker_v0", "opponents": ["random"]}, "plays 3-5 players"),
        ({"env_id": "skull_king_v0", "opponents": ["random"], "seat": 2}, "seat 2 must be"),
        ({"env_id": "skull_king_v0", "opponents": ["random"], "seed": -1}, "seed -1"),
        ({"env_id": "skull_king_v0", "opponents": ["random"], "options": {"num_hands": 11}}, "num_hands"),
        ({"env_id": "skull_king_v0", "opponents": ["random"], "options": {"first_dealer": 1}}, "not settable"),
        ({"env_id": "skull_king_v0", "opponents": ["random"], "options": {"num_hands": "2"}}, "an integer"),
        ({"env_id": "skull_king_v0", "opponents": ["heuristc"]}, "unknown agent 'heuristc'"),
    ],
)
def test_bad_new_games_are_refused_with_a_message(client, body, message):
    response = client.post("/api/sessions", json=body)
    assert response.status_code == 400 and message in response.json()["error"], response.json()


@pytest.mark.parametrize(
    "name",
    [
        "ppo:/etc/passwd",
        "ppo:../agents/pretrained/skull_king_v0.npz",
        "ppo:x.npz",
        "file:../skull_king_v0.npz",
        "ppo:skull_king_v0.npz",
        "mcts:999999",
    ],
)
def test_no_request_names_a_checkpoint_path(client, monkeypatch, name):
    built = []
    monkeypatch.setattr(sessions_module, "make_agent", lambda *args, **kw: built.append(args))
    response = client.post("/api/sessions", json={"env_id": "skull_king_v0", "opponents": [name]})
    assert response.status_code == 400 and "unknown agent" in response.json()["error"]
    assert built == []


def test_agents_dir_files_are_offered_and_load(tmp_path):
    shutil.copy(PRETRAINED_DIR / "skull_king_v0.npz", tmp_path / "mine.npz")
    (tmp_path / "notes.txt").write_text("not an agent")
    with table_client(create_app(tmp_path)) as client:
        assert "file:mine.npz" in client.get("/api/games").json()["skull_king_v0"]["agents"]
        assert "file:notes.txt" not in client.get("/api/games").json()["skull_king_v0"]["agents"]
        body = {"env_id": "skull_king_v0", "opponents": ["file:mine.npz"] * 3, "options": {"num_hands": 1}}
        response = client.post("/api/sessions", json=body)
        assert response.status_code == 200, response.json()
        assert response.json()["players"] == ["you", "file:mine.npz", "file:mine.npz", "file:mine.npz"]


def test_an_agent_file_at_a_table_it_does_not_play_is_refused(tmp_path):
    one_table_agent_file(tmp_path / "four.npz", "skull_king_v0", 4)
    with table_client(create_app(tmp_path)) as client:
        body = {"env_id": "skull_king_v0", "opponents": ["file:four.npz"] * 2}
        response = client.post("/api/sessions", json=body)
        assert response.status_code == 400 and "plays 4 players" in response.json()["error"], response.json()


def test_sessions_are_separate_and_freed(client):
    a = new_game(client).json()
    b = new_game(client).json()
    assert a["id"] != b["id"] and len(a["id"]) >= 16
    assert client.delete(f"/api/sessions/{a['id']}", headers=JSON).json() == {"freed": True}
    assert client.get(f"/api/sessions/{a['id']}").status_code == 404
    assert client.post(f"/api/sessions/{a['id']}/move", json={"action": 0}).status_code == 404
    assert client.get(f"/api/sessions/{b['id']}").status_code == 200
    assert client.get("/api/sessions/..%2Fetc").status_code == 404


def test_capacity_and_timeouts_free_sessions():
    now = [0.0]
    store = SessionStore(capacity=2, idle_ttl=100.0, finished_ttl=10.0, clock=lambda: now[0])
    with table_client(create_app(store=store)) as client:
        first = new_game(client).json()
        new_game(client)
        full = new_game(client)
        assert full.status_code == 503 and "full" in full.json()["error"]
        now[0] = 101.0  # both idle too long
        assert new_game(client).status_code == 200 and len(store) == 1
        assert client.get(f"/api/sessions/{first['id']}").status_code == 404
        done = play_out(client, new_game(client).json())
        now[0] += 11.0  # a finished game is freed sooner
        assert client.get(f"/api/sessions/{done['id']}").status_code == 404


def test_replay_of_a_saved_record_step_by_step(client):
    state = play_out(client, new_game(client).json())
    record = client.get(f"/api/sessions/{state['id']}/record").json()
    replay = client.post("/api/replays", json=record)
    assert replay.status_code == 200, replay.json()
    replay = replay.json()
    n = len(record["actions"])
    assert replay["step"] == n and replay["done"] and replay["scores"] == state["scores"]
    goto = f"/api/replays/{replay['id']}/goto"
    start = client.post(goto, json={"step": 0}).json()
    assert start["step"] == 0 and start["last_move"] is None and not start["done"]
    one = client.post(goto, json={"step": 1}).json()
    assert one["last_move"] == pirate_envs.make("skull_king_v0", raw=True).action_to_string(record["actions"][0])
    assert client.post(goto, json={"step": n + 1}).status_code == 400
    bad = dict(record, actions=[*record["actions"][:-1], 10**6])
    response = client.post("/api/replays", json=bad)
    assert response.status_code == 400 and "is not legal there" in response.json()["error"]
    response = client.post("/api/replays", json=dict(record, actions=record["actions"][:3]))
    assert response.status_code == 400 and "not a finished game" in response.json()["error"]
    response = client.post("/api/replays", json=dict(record, env_kwargs={"num_players": 9}))
    assert response.status_code == 400 and "num_players" in response.json()["error"]


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text and "http" not in page.text.split("<body>")[1]
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


def test_the_page_has_a_favicon_of_its_own(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.content.startswith(b"<svg") and client.get("/static/favicon.svg").content == icon.content
    assert 'rel="icon" href="/static/favicon.svg"' in client.get("/").text


def test_the_games_list_gives_the_faces_of_special_cards(client):
    games = client.get("/api/games").json()
    faces = games["skull_king_v0"]["card_faces"]
    assert faces["pirate"]["symbol"] == "\u2620" and faces["scary_mary:escape"]["kind"] == "scary_mary"
    assert "red-7" not in faces and games["piraten_kapern_v0"]["card_faces"] == {}
