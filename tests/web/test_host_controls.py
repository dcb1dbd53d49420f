"""A host's controls: new tables limited per client and in all (429, Retry-After), tables nobody joined expire in
minutes, the host closes a table, a host password, and a flood that never fills the server."""

from __future__ import annotations

import asyncio
import queue
import threading
import time

import pytest

from tests.web.conftest import require_module, table_client
from tests.web.tables_helpers import TABLE, WAIT_S, TableServer, listen, next_state, open_table, seat_headers

require_module("starlette", "web")
require_module("httpx", "web")
require_module("uvicorn", "web")

import httpx  # noqa: E402

from experiments.web.__main__ import read_password  # noqa: E402
from experiments.web.host_controls import OpeningGate, OpenLimits  # noqa: E402
from experiments.web.server import create_app  # noqa: E402
from experiments.web.sessions import AgentCatalog, RequestError  # noqa: E402
from experiments.web.storage import TableDB  # noqa: E402
from experiments.web.tables import MAX_TABLES, TableHall  # noqa: E402

#: A table that waits for an invited person (it is not started when opened).
WAITING = {**TABLE, "seats": ["you", "person", "random"]}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_gate_limits_each_client_and_all_of_them_and_says_when_to_come_back():
    clock = Clock()
    gate = OpeningGate(OpenLimits(per_client=2, in_all=3, window_s=60), clock=clock)
    gate.admit("a", None)
    clock.now += 10
    gate.admit("a", None)
    with pytest.raises(RequestError) as refused:
        gate.admit("a", None)
    assert refused.value.status == 429 and refused.value.headers == {"Retry-After": "50"}
    take_back = gate.admit("b", None)
    with pytest.raises(RequestError) as full:
        gate.admit("c", None)
    assert full.value.status == 429 and "in all" in str(full.value)
    take_back()  # b's table was refused for its body: not counted
    gate.admit("c", None)
    clock.now += 51  # a's first table left the window
    gate.admit("a", None)
    with pytest.raises(ValueError, match="per_client 0"):
        OpenLimits(per_client=0)


def test_a_flood_from_one_client_is_answered_429_and_never_fills_the_server():
    app = create_app()
    with table_client(app, client=("203.0.113.7", 4000)) as flooder:
        answers = [flooder.post("/api/tables", json=WAITING) for _ in range(300)]
    opened = [a for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code != 200]
    assert 1 <= len(opened) <= 10 and {a.status_code for a in refused} == {429}
    assert all(int(a.headers["Retry-After"]) > 0 for a in refused)
    assert len(app.state.tables.tables) == len(opened) < MAX_TABLES
    with table_client(app, client=("198.51.100.2", 4000)) as host:  # anyone else still opens a table
        assert host.post("/api/tables", json=WAITING).status_code == 200


def test_many_clients_are_limited_in_all():
    app = create_app(gate=OpeningGate(OpenLimits(per_client=5, in_all=12, window_s=600)))
    statuses = []
    for client in range(10):
        with table_client(app, client=(f"192.0.2.{client}", 4000)) as c:
            statuses += [c.post("/api/tables", json=WAITING).status_code for _ in range(3)]
    assert statuses.count(200) == 12 and statuses.count(429) == 18


def test_a_host_password_is_asked_and_a_wrong_one_counts_as_a_table():
    app = create_app(gate=OpeningGate(OpenLimits(per_client=6), password="sesame"))
    with table_client(app) as client:
        assert client.get("/api/lobby").json()["password_required"] is True
        for headers in ({}, {"X-Host-Password": "open"}, {"X-Host-Password": ""}, *[{}] * 2):
            answer = client.post("/api/tables", json=WAITING, headers=headers)
            assert answer.status_code == 401 and "password" in answer.json()["error"]
        right = {"X-Host-Password": "sesame"}
        assert client.post("/api/tables", json=WAITING, headers=right).status_code == 200
        assert client.post("/api/tables", json=WAITING, headers=right).status_code == 429  # guessing is as slow
    with table_client(create_app()) as client:  # the default (loopback) table asks for no password
        assert client.get("/api/lobby").json()["password_required"] is False


def test_a_refused_body_gives_its_count_back():
    app = create_app(gate=OpeningGate(OpenLimits(per_client=2)))
    with table_client(app) as client:
        for _ in range(5):
            assert client.post("/api/tables", json={**WAITING, "env_id": "chess"}).status_code == 400
        assert [client.post("/api/tables", json=WAITING).status_code for _ in range(3)] == [200, 200, 429]


def test_one_client_keeps_a_few_tables_unfinished_at_once():
    hall = TableHall(AgentCatalog(None), TableDB(), open_per_client=2)
    hall.open(WAITING, "a")
    hall.open(WAITING, "a")
    with pytest.raises(RequestError) as refused:
        hall.open(WAITING, "a")
    assert refused.value.status == 429 and "Retry-After" in refused.value.headers
    hall.open(WAITING, "b")
    hall.close()


def test_tables_nobody_joined_expire_in_minutes_and_idle_ones_in_hours(tmp_path):
    clock = Clock()
    hall = TableHall(AgentCatalog(None), TableDB(tmp_path), clock=clock, waiting_minutes=10, idle_hours=24)
    waiting, _ = hall.open(WAITING, "a")
    watched, _ = hall.open(WAITING, "a")
    playing, _ = hall.open({**TABLE, "seats": ["you", "random", "random"]}, "a")
    assert playing.status == "playing"
    deadline = time.monotonic() + WAIT_S
    while playing.running:  # the agents' moves are made (and stored) before the clock moves on
        assert time.monotonic() < deadline, "the agents did not move"
        time.sleep(0.01)
    listener = (asyncio.new_event_loop(), asyncio.Event())
    watched.listen(listener)  # its page is open: the host waits for friends
    clock.now += 11 * 60
    hall.lobby()
    assert waiting.id not in hall.tables and watched.id in hall.tables and playing.id in hall.tables
    assert waiting.id not in {t.id for t in hall.db.load()}
    watched.unlisten(listener)
    clock.now += 11 * 60  # ten minutes after the page closed
    hall.lobby()
    assert watched.id not in hall.tables
    clock.now += 23 * 3600
    hall.lobby()
    assert playing.id in hall.tables
    clock.now += 2 * 3600
    hall.lobby()
    assert playing.id not in hall.tables and hall.db.load() == []
    hall.close()
    with pytest.raises(ValueError, match="waiting_minutes 0"):
        TableHall(AgentCatalog(None), TableDB(), waiting_minutes=0)


def test_a_restart_does_not_bring_back_tables_nobody_joined(tmp_path):
    clock = Clock()
    hall = TableHall(AgentCatalog(None), TableDB(tmp_path), clock=clock)
    for _ in range(5):
        hall.open(WAITING, "a")
    hall.close()
    clock.now += 11 * 60
    again = TableHall(AgentCatalog(None), TableDB(tmp_path), clock=clock)
    assert again.tables == {} and again.db.load() == []
    again.close()


def test_the_host_closes_a_table_and_every_page_is_told(tmp_path):
    server = TableServer(tmp_path)
    server.start()
    stop = threading.Event()
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            opened = client.post("/api/tables", json=WAITING).json()
            tid, host = opened["id"], opened["token"]
            invite = client.get(f"/api/tables/{tid}/invites", headers=seat_headers(host)).json()["invites"][0]
            tokens = [host, invite["token"]]
            guest = seat_headers(tokens[1])
            assert client.post(f"/api/tables/{tid}/close", json={}, headers=guest).status_code == 403
            assert client.post(f"/api/tables/{tid}/close", json={}).status_code == 403
            out: queue.Queue = queue.Queue()
            url = f"{server.url}/api/tables/{tid}/stream"
            threading.Thread(target=listen, args=(url, tokens[1], out, stop), daemon=True).start()
            assert out.get(timeout=60) == 200 and next_state(out, lambda s: True)["table_status"] == "waiting"
            closed = client.post(f"/api/tables/{tid}/close", json={}, headers=seat_headers(tokens[0]))
            assert closed.status_code == 200 and closed.json() == {"closed": True}
            assert next_state(out, lambda s: True)["table_status"] == "closed"
            assert out.get(timeout=60) == "ended"  # the stream ends after the closed state
            assert client.get(f"/api/tables/{tid}", headers=guest).status_code == 404
            assert tid not in {t["id"] for t in client.get("/api/lobby").json()["open"]}
    finally:
        stop.set()
        server.stop()
    assert TableDB(tmp_path).load() == []


def test_a_finished_table_is_not_closed():
    from tests.web.tables_helpers import play_table

    with table_client(create_app()) as client:
        tid, tokens = open_table(client)
        play_table(client, tid, tokens)
        answer = client.post(f"/api/tables/{tid}/close", json={}, headers=seat_headers(tokens[0]))
        assert answer.status_code == 409 and "record is kept" in answer.json()["error"]


def test_the_password_file_is_read_and_a_bad_one_named(tmp_path):
    good, empty = tmp_path / "pw", tmp_path / "empty"
    good.write_text("s3cret word\nignored\n")
    empty.write_text("\n")
    assert read_password(str(good)) == "s3cret word"
    with pytest.raises(ValueError, match="empty"):
        read_password(str(empty))
    with pytest.raises(ValueError, match="missing"):
        read_password(str(tmp_path / "missing"))
