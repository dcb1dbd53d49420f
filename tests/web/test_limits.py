"""The table stays up: slow game work runs off the event loop, bodies and options are bounded, bad input is a 4xx."""

from __future__ import annotations

import threading
import zipfile
from collections.abc import Iterator

import pytest

from tests.game_data import by_version
from tests.web.conftest import JSON, require_module, table_client
from tests.web.tables_helpers import in_thread

require_module("starlette", "web")
require_module("httpx", "web")

import anyio  # noqa: E402

import experiments.web.server as server_module  # noqa: E402
import experiments.web.sessions as sessions_module  # noqa: E402
import pirate_envs  # noqa: E402
from agents.policy.agent import PRETRAINED_DIR  # noqa: E402
from experiments.web.server import create_app  # noqa: E402
from experiments.web.sessions import MAX_RECORD_ACTIONS  # noqa: E402

#: Seconds a test waits for an answer that comes at once when the table works (10x margin and more).
ANSWER_WITHIN = 30.0
#: Seconds slow work waits to be released: longer than ANSWER_WITHIN, so a stalled loop shows.
SLOW_FOR = 3 * ANSWER_WITHIN


def test_slow_game_work_does_not_stall_other_requests(monkeypatch):
    entered, release = threading.Event(), threading.Event()
    real_make_agent = sessions_module.make_agent

    def slow_make_agent(name, *args, **kwargs):
        if name == "heuristic":  # only the slow game's agents
            entered.set()
            release.wait(SLOW_FOR)
        return real_make_agent(name, *args, **kwargs)

    monkeypatch.setattr(sessions_module, "make_agent", slow_make_agent)
    with table_client(create_app()) as client:
        other = client.post("/api/sessions", json={"env_id": "skull_king_v0", "opponents": ["random"]}).json()
        slow_body = {"env_id": "skull_king_v0", "opponents": ["heuristic"]}
        slow_done, slow_result = in_thread(lambda: client.post("/api/sessions", json=slow_body))
        try:
            assert entered.wait(ANSWER_WITHIN)
            games_done, games = in_thread(lambda: client.get("/api/games"))
            assert games_done.wait(ANSWER_WITHIN), "GET /api/games waited for another table's slow work"
            assert games[0].status_code == 200
            move = {"action": other["moves"][0]["action"]}
            move_done, moved = in_thread(lambda: client.post(f"/api/sessions/{other['id']}/move", json=move))
            assert move_done.wait(ANSWER_WITHIN), "a move at another table waited for the slow work"
            assert moved[0].status_code == 200
            assert not slow_done.is_set()
        finally:
            release.set()
        assert slow_done.wait(ANSWER_WITHIN) and slow_result[0].status_code == 200


def test_a_game_busy_with_a_request_answers_409_to_the_next(monkeypatch):
    armed, entered, release = threading.Event(), threading.Event(), threading.Event()
    real_make_agent = sessions_module.make_agent

    class SlowAgent:
        """An agent that, once armed, waits for ``release`` before it moves."""

        def __init__(self, agent):
            self.agent = agent

        def act(self, obs, view):
            if armed.is_set():
                entered.set()
                release.wait(SLOW_FOR)
            return self.agent.act(obs, view)

    monkeypatch.setattr(sessions_module, "make_agent", lambda *a, **kw: SlowAgent(real_make_agent(*a, **kw)))
    with table_client(create_app()) as client:
        body = {"env_id": "skull_king_v0", "opponents": ["random"], "seat": 0, "options": {"num_hands": 2}}
        state = client.post("/api/sessions", json=body).json()
        armed.set()
        move = {"action": state["moves"][0]["action"]}
        moving_done, moved = in_thread(lambda: client.post(f"/api/sessions/{state['id']}/move", json=move))
        try:
            assert entered.wait(ANSWER_WITHIN)  # the agent is thinking
            for busy in (
                client.get(f"/api/sessions/{state['id']}"),
                client.post(f"/api/sessions/{state['id']}/move", json=move),
            ):
                assert busy.status_code == 409 and "busy" in busy.json()["error"]
        finally:
            release.set()
        assert moving_done.wait(ANSWER_WITHIN) and moved[0].status_code == 200
        assert client.get(f"/api/sessions/{state['id']}").status_code == 200


# the values by version: each game's ``web_out_of_range`` in tests/<game>/short_games.json
@pytest.mark.parametrize(
    ("env_id", "option", "value"),
    [
        (env_id, option, value)
        for env_id, options in by_version("web_out_of_range").items()
        for option, values in options.items()
        for value in values
    ],
)
def test_options_out_of_their_ranges_are_refused(client, env_id, option, value):
    opponents = ["random"] * (pirate_envs.game_spec(env_id).min_players - 1)  # the smallest table
    body = {"env_id": env_id, "opponents": opponents, "options": {option: value}}
    response = client.post("/api/sessions", json=body)
    low, high = pirate_envs.game_spec(env_id).option_ranges[option]
    assert response.status_code == 400, response.json()
    assert f"{option}={value}" in response.json()["error"] and f"{low}..{high}" in response.json()["error"]
    high_ok = client.post("/api/sessions", json={**body, "options": {option: high}})
    assert high_ok.status_code == 200, high_ok.json()


@pytest.mark.parametrize(
    ("env_kwargs", "message"),
    [
        ({"num_players": 2, "target_score": 10**8}, "target_score=100000000"),
        ({"num_players": 2, "max_turns": 10**6}, "max_turns=1000000"),
    ],
)
def test_a_replay_may_not_set_a_long_game(client, env_kwargs, message):
    record = {"env_id": "piraten_kapern_v0", "env_kwargs": env_kwargs, "seed": 1, "actions": [0] * 10}
    response = client.post("/api/replays", json=record)
    assert response.status_code == 400 and message in response.json()["error"], response.json()


def test_a_replay_longer_than_any_capped_game_is_refused_before_it_is_played(client, monkeypatch):
    played = []
    monkeypatch.setattr(sessions_module, "make_env", lambda *args: played.append(args))
    record = {"env_id": "lucky_pirate_v0", "env_kwargs": {}, "seed": 1, "actions": [0] * (MAX_RECORD_ACTIONS + 1)}
    response = client.post("/api/replays", json=record)
    assert response.status_code == 400 and f"at most {MAX_RECORD_ACTIONS}" in response.json()["error"]
    assert played == [] and MAX_RECORD_ACTIONS <= 20_000


def call_app(app, method: str, path: str, headers: dict[str, str], chunks: Iterator[bytes]) -> tuple[int, int]:
    """Send one request straight to the ASGI ``app``, its body from ``chunks``; (status, body bytes it pulled)."""
    pulled, sent = [0], []

    async def receive() -> dict:
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled[0] += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost"), *((k.lower().encode(), v.encode()) for k, v in headers.items())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    anyio.run(app, scope, receive, send)
    return next(m["status"] for m in sent if m["type"] == "http.response.start"), pulled[0]


def megabytes(n: int, chunk: int = 64 * 1024) -> Iterator[bytes]:
    """``n`` MiB of body in chunks."""
    for _ in range(n * 1024 * 1024 // chunk):
        yield b" " * chunk


def test_a_body_over_the_limit_is_refused_as_it_streams_in():
    # chunked: no Content-Length; the server stops reading just past the limit
    status, pulled = call_app(create_app(), "POST", "/api/replays", dict(JSON), megabytes(16))
    assert status == 413 and pulled <= server_module.MAX_BODY + 64 * 1024


def test_a_body_whose_length_is_over_the_limit_is_refused_before_it_is_read():
    headers = {**JSON, "Content-Length": str(200 * 1024 * 1024)}
    status, pulled = call_app(create_app(), "POST", "/api/sessions", headers, megabytes(16))
    assert status == 413 and pulled == 0
    status, pulled = call_app(create_app(), "POST", "/api/sessions", {**JSON, "Content-Length": "lots"}, megabytes(1))
    assert status == 400 and pulled == 0


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000, b'{"a":' * 50_000, b"9" * 5000, b'{"env_id": "skull_king_v0", "seed": ' + b"9" * 5000 + b"}"],
)
def test_json_too_deep_or_too_long_is_a_400(client, body):
    for path in ("/api/sessions", "/api/replays"):
        response = client.post(path, content=body, headers=JSON)
        assert response.status_code == 400 and "JSON" in response.json()["error"], response.text[:200]


def test_bad_agent_files_are_a_400_naming_the_file(tmp_path):
    good = (PRETRAINED_DIR / "skull_king_v0.npz").read_bytes()
    (tmp_path / "garbage.npz").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "truncated.npz").write_bytes(good[: len(good) // 2])
    (tmp_path / "empty.npz").write_bytes(b"")
    with zipfile.ZipFile(tmp_path / "raw.npz", "w") as archive:  # a member that is not a .npy array
        archive.writestr("header", b"{}")
    with table_client(create_app(tmp_path)) as client:
        for name in ("garbage.npz", "truncated.npz", "empty.npz", "raw.npz"):
            body = {"env_id": "skull_king_v0", "opponents": [f"file:{name}"], "options": {"num_hands": 1}}
            response = client.post("/api/sessions", json=body)
            assert response.status_code == 400, (name, response.text)
            error = response.json()["error"]
            assert error.startswith(f"agent file 'file:{name}' cannot be used: ") and str(tmp_path) not in error
