"""A slow hint never starves a table: it is computed on a copy, outside the table's lock, in threads of its own.

A catalog agent whose move waits on an event stands for a search on a cold cache. While as many of
its hints as the server runs game threads are asked, a state read and a move at the same table and
at another table answer at once; hints past the hints' own threads are refused (503); the held
hints answer once released, with the version they were computed for.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tests.web.conftest import require_module, table_client
from tests.web.tables_helpers import WAIT_S, open_table, seat_headers, settled

require_module("starlette", "web")
require_module("httpx", "web")

from experiments.web.server import GAME_THREADS, HINT_THREADS, create_app  # noqa: E402

TABLE = {"env_id": "skull_king_v0", "seats": ["you", "heuristic"], "options": {"num_hands": 3}, "seed": 2}


class SlowAgent:
    """An agent whose every move waits for ``gate`` (counting its callers in ``entered``)."""

    name = "slow"

    def __init__(self, gate: threading.Event, entered: threading.Semaphore):
        self.gate, self.entered = gate, entered

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation, view) -> int:
        self.entered.release()
        assert self.gate.wait(WAIT_S), "the test never released the slow agent"
        return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.fixture
def slow():
    """The app, with the agent ``slow`` in its catalog; its gate (set at the end) and its callers' count."""
    app = create_app()
    catalog, gate, entered = app.state.catalog, threading.Event(), threading.Semaphore(0)
    names, build = catalog.names, catalog.build
    catalog.names = lambda env_id: [*names(env_id), "slow"]
    catalog.build = lambda name, env_id, seed, env: (
        SlowAgent(gate, entered) if name == "slow" else build(name, env_id, seed, env)
    )
    try:
        yield app, gate, entered
    finally:
        gate.set()


def test_a_slow_hint_blocks_no_read_and_no_move_here_or_at_another_table(slow):
    app, gate, entered = slow
    with table_client(app) as client:
        try:
            check_slow_hints(client, gate, entered)
        finally:
            gate.set()  # the held hints end before the client closes


def check_slow_hints(client, gate: threading.Event, entered: threading.Semaphore) -> None:
    tables = [open_table(client, TABLE) for _ in range(2)]
    (here, [host]), (there, [other]) = tables
    before = {tid: settled(client, tid, token) for tid, [token] in tables}
    answers: list = []

    def ask_hint() -> None:
        answers.append(client.get(f"/api/tables/{here}/hint?agent=slow", headers=seat_headers(host)))

    hints = [threading.Thread(target=ask_hint, daemon=True) for _ in range(GAME_THREADS)]
    for thread in hints:
        thread.start()
    # every hint is in before the probes move the table (one arriving after the move would be answered
    # "not your turn"): the hints' own threads are all held, and every hint past them is refused at once
    for _ in range(HINT_THREADS):
        assert entered.acquire(timeout=WAIT_S), "a hint never reached its agent"
    deadline = time.monotonic() + WAIT_S
    while len(answers) < GAME_THREADS - HINT_THREADS and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(a.status_code for a in answers) == [503] * (GAME_THREADS - HINT_THREADS)
    assert all("hints are being computed" in answer.json()["error"] for answer in answers)
    probes: dict = {}

    def probe(tid: str, token: str, kind: str) -> None:
        headers = seat_headers(token)
        if kind == "read":
            probes[tid, kind] = client.get(f"/api/tables/{tid}", headers=headers)
        else:
            body = {"action": before[tid]["moves"][0]["action"], "version": before[tid]["version"]}
            probes[tid, kind] = client.post(f"/api/tables/{tid}/move", json=body, headers=headers)

    probers = [
        threading.Thread(target=probe, args=(tid, token, kind), daemon=True)
        for tid, token in ((here, host), (there, other))
        for kind in ("read", "move")
    ]
    for prober in probers:
        prober.start()
    deadline = time.monotonic() + WAIT_S / 2  # milliseconds of work; generous for a loaded machine
    for prober in probers:
        prober.join(max(0.0, deadline - time.monotonic()))
    done = dict(probes)
    names = {here: "here", there: "there"}
    assert len(done) == 4, f"reads and moves waited for the slow hint; answered: {[(names[t], k) for t, k in done]}"
    assert all(answer.status_code == 200 for answer in done.values()), {k: a.text[:200] for k, a in done.items()}
    for tid in (here, there):
        assert done[tid, "move"].json()["version"] == before[tid]["version"] + 1
    gate.set()
    for thread in hints:
        thread.join(WAIT_S)
    computed = [answer for answer in answers if answer.status_code == 200]
    assert len(computed) == HINT_THREADS and len(answers) == GAME_THREADS
    for answer in computed:  # computed for the position it was asked on, moved on since
        assert answer.json()["version"] == before[here]["version"]
