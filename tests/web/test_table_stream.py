"""Every open tab of a seat follows the table live: the server pushes each change as a server-sent event."""

from __future__ import annotations

import queue
import threading

from tests.web.conftest import require_module
from tests.web.tables_helpers import TABLE, TableServer, listen, next_state, seat_headers

require_module("uvicorn", "web")
require_module("httpx", "web")

import httpx  # noqa: E402


def test_two_tabs_of_a_seat_and_a_spectator_follow_every_move(tmp_path):
    server = TableServer(tmp_path)
    server.start()
    stop = threading.Event()
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            opened = client.post("/api/tables", json={**TABLE, "seats": ["you", "person", "person"]}).json()
            tid, host = opened["id"], opened["token"]
            invites = client.get(f"/api/tables/{tid}/invites", headers=seat_headers(host)).json()["invites"]
            guests = [invite["token"] for invite in invites]
            tabs = {name: queue.Queue() for name in ("host-1", "host-2", "spectator")}
            tokens = {"host-1": host, "host-2": host, "spectator": None}
            for name, out in tabs.items():
                url = f"{server.url}/api/tables/{tid}/stream"
                threading.Thread(target=listen, args=(url, tokens[name], out, stop), daemon=True).start()
                assert out.get(timeout=60) == 200
                assert next_state(out, lambda s: True)["table_status"] == "waiting"
            for token in guests:
                assert client.post(f"/api/tables/{tid}/join", json={}, headers=seat_headers(token)).status_code == 200
            started = {name: next_state(out, lambda s: s["table_status"] == "playing") for name, out in tabs.items()}
            assert started["host-1"]["seat"] == started["host-2"]["seat"] == 0 and started["spectator"]["seat"] is None
            mover = next(
                t
                for t in [host, *guests]
                if client.get(f"/api/tables/{tid}", headers=seat_headers(t)).json()["your_turn"]
            )
            now = client.get(f"/api/tables/{tid}", headers=seat_headers(mover)).json()
            body = {"action": now["moves"][0]["action"], "version": now["version"]}
            assert client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(mover)).status_code == 200
            for name, out in tabs.items():
                pushed = next_state(out, lambda s, v=now["version"]: s["version"] == v + 1)
                assert pushed["events"][-1]["kind"] == "bid", name
                if name == "spectator":
                    assert pushed["table"]["hand"] == []
    finally:
        stop.set()
        server.stop()
