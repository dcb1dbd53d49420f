"""Helpers of the shared tables' tests: open a table, take its seats, wait for the agents."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from typing import Any

#: A short Skull King table: the host, one invited person, one agent.
TABLE = {"env_id": "skull_king_v0", "seats": ["you", "person", "heuristic"], "options": {"num_hands": 3}}
#: Generous bound on waiting for the agents' moves (they take milliseconds; a loaded machine is slow).
WAIT_S = 120.0


def unlimited() -> Any:
    """Limits on new tables no test reaches (a test's browser opens many tables from one address)."""
    from experiments.web.host_controls import OpenLimits

    return OpenLimits(10_000, 10_000, unfinished_per_client=10_000)


def seat_headers(token: str | None) -> dict[str, str]:
    return {} if token is None else {"X-Seat-Token": token}


def open_table(client: Any, body: dict[str, Any] = TABLE) -> tuple[str, list[str]]:
    """Open ``body``'s table and let every invited person join; its id and the tokens of its person seats."""
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 200, answer.json()
    opened = answer.json()
    tid, tokens = opened["id"], [opened["token"]]
    invites = client.get(f"/api/tables/{tid}/invites", headers=seat_headers(opened["token"])).json()["invites"]
    for invite in invites:
        joined = client.post(
            f"/api/tables/{tid}/join", json={"name": f"guest{invite['seat']}"}, headers=seat_headers(invite["token"])
        )
        assert joined.status_code == 200, joined.json()
        tokens.append(invite["token"])
    return tid, tokens


def state(client: Any, tid: str, token: str | None) -> dict[str, Any]:
    answer = client.get(f"/api/tables/{tid}", headers=seat_headers(token))
    assert answer.status_code == 200, answer.json()
    return answer.json()


def settled(client: Any, tid: str, token: str | None = None) -> dict[str, Any]:
    """The table's state once no agent is thinking (a person's turn or the end)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        now = state(client, tid, token)
        if (now.get("table_status") == "playing" and now["thinking"] is None) or now["done"]:
            return now
        assert time.monotonic() < deadline, "the agents did not move"
        time.sleep(0.01)


def play_table(client: Any, tid: str, tokens: list[str], pick=lambda s: s["moves"][0]["action"]) -> dict[str, Any]:
    """Play every person's first legal move until the game ends; the final state (host's view)."""
    for _ in range(5000):
        host = settled(client, tid, tokens[0])
        if host["done"]:
            return host
        mover = next(t for t in tokens if state(client, tid, t)["your_turn"])
        now = state(client, tid, mover)
        answer = client.post(
            f"/api/tables/{tid}/move",
            json={"action": pick(now), "version": now["version"]},
            headers=seat_headers(mover),
        )
        assert answer.status_code == 200, answer.json()
    raise AssertionError("game not over")


def listen(url: str, token: str | None, out: queue.Queue, stop: threading.Event) -> None:
    """Read the table's event stream; put its status and each pushed state on ``out``, then ``"ended"`` when the
    server ends it (a broken stream: its error, unless the test is over and stopped the server under it)."""
    import httpx

    try:
        with httpx.Client(timeout=120) as client, client.stream("GET", url, headers=seat_headers(token)) as answer:
            out.put(answer.status_code)
            for line in answer.iter_lines():
                if line.startswith("data: "):
                    out.put(json.loads(line[6:]))
                if stop.is_set():
                    return
        out.put("ended")
    except httpx.TransportError as error:
        if not stop.is_set():
            out.put(error)


def next_state(out: queue.Queue, until) -> dict:
    """The first pushed state that satisfies ``until``."""
    for _ in range(1000):
        state = out.get(timeout=120)
        if isinstance(state, Exception):
            raise AssertionError(f"the event stream broke: {state!r}")
        if until(state):
            return state
    raise AssertionError("no such state was pushed")


def in_thread(call) -> tuple[threading.Event, list]:
    """Run ``call()`` in a thread; an event set when it returned, and a list that gets its result."""
    done, result = threading.Event(), []

    def run() -> None:
        result.append(call())
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done, result


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TableServer:
    """The web table on 127.0.0.1 in a thread, on one port and data folder across restarts (a test's browser opens
    many tables: no limit on new tables to speak of)."""

    def __init__(self, data_dir):
        self.port, self.data_dir, self.instance, self.thread = _free_port(), data_dir, None, None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        import uvicorn

        from experiments.web.__main__ import STREAM_CLOSE_S
        from experiments.web.host_controls import OpeningGate
        from experiments.web.serve import WebServer
        from experiments.web.server import create_app

        config = uvicorn.Config(
            create_app(data_dir=self.data_dir, gate=OpeningGate(unlimited())),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            timeout_graceful_shutdown=STREAM_CLOSE_S,
        )
        self.instance = WebServer(config)
        self.thread = threading.Thread(target=self.instance.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.instance.started:
            assert time.monotonic() < deadline, "the web table did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.instance.should_exit = True
        self.thread.join(20)
        assert not self.thread.is_alive()
