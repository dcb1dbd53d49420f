"""A move that waits for a busy table: answered 409 when the game ended meanwhile, and never waiting in one of the
shared worker threads (a busy table holds up no other table)."""

from __future__ import annotations

import time
from typing import Any

from tests.web.conftest import require_module
from tests.web.tables_helpers import TABLE, in_thread, open_table, seat_headers, settled

require_module("starlette", "web")
require_module("httpx", "web")

from experiments.web.server import GAME_THREADS  # noqa: E402

#: Seconds a test waits for what happens at once when the table works (the busy table's lock wait is 30 s).
ANSWER_WITHIN = 20.0


class CountingLock:
    """A table's lock that counts the tries to take it (a request has reached it)."""

    def __init__(self, inner: Any):
        self.inner, self.tries = inner, 0

    def acquire(self, *args: Any, **kwargs: Any) -> bool:
        self.tries += 1
        return self.inner.acquire(*args, **kwargs)

    def release(self) -> None:
        self.inner.release()

    __enter__ = acquire

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + ANSWER_WITHIN
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _busy_table(app, client, seats: list[str]) -> tuple[str, str, Any, CountingLock]:
    """A table at the host's turn whose lock the test holds: its id, the host's token, the table, the lock."""
    tid, tokens = open_table(client, {**TABLE, "seats": seats})
    settled(client, tid, tokens[0])
    table = app.state.tables.get(tid)
    table.lock = CountingLock(table.lock)
    table.lock.acquire()
    return tid, tokens[0], table, table.lock


def test_a_move_waiting_for_the_table_when_the_game_ends_is_answered_409(app, client):
    tid, host, table, lock = _busy_table(app, client, ["you", "random", "random"])
    now = client.get(f"/api/tables/{tid}", headers=seat_headers(host)).json()
    assert now["your_turn"]
    body = {"action": now["moves"][0]["action"], "version": now["version"]}
    done, answer = in_thread(lambda: client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(host)))
    _until(lambda: lock.tries >= 2, "the move did not reach the table's lock")
    table.status, table.game = "finished", None  # the game ends (an agent's last move) while the move waits
    lock.release()
    assert done.wait(ANSWER_WITHIN)
    assert answer[0].status_code == 409 and answer[0].json()["error"] == "the game is over"


def test_requests_waiting_for_a_busy_table_hold_no_worker_thread(app, client):
    tid, host, _, lock = _busy_table(app, client, ["you", "random", "random"])
    other, other_tokens = open_table(client, {**TABLE, "seats": ["you", "person", "random"]})
    body = {"action": 0, "version": 999_999}  # a stale move: 409 once it gets the table
    waiting = [
        in_thread(lambda: client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(host)))
        for _ in range(2 * GAME_THREADS)
    ]
    _until(lambda: lock.tries >= 1 + GAME_THREADS, "the moves did not reach the busy table's lock")
    # another table answers while the busy one is still held (a worker thread is free for it)
    joined, answer = in_thread(
        lambda: client.post(f"/api/tables/{other}/join", json={}, headers=seat_headers(other_tokens[1]))
    )
    try:
        assert joined.wait(ANSWER_WITHIN), "a request at another table waited for the busy table"
        assert answer[0].status_code == 200
    finally:
        lock.release()
    for done, answers in waiting:
        assert done.wait(ANSWER_WITHIN) and answers[0].status_code == 409
