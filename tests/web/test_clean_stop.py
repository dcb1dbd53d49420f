"""Ctrl-C stops the web table within `STREAM_CLOSE_S` seconds, pages open or not, with no traceback."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.web.conftest import require_module
from tests.web.tables_helpers import TABLE, _free_port, listen, next_state, seat_headers

require_module("uvicorn", "web")
require_module("httpx", "web")

import httpx  # noqa: E402

from experiments.web.__main__ import STREAM_CLOSE_S  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: Generous bound on the server's start (imports, a loaded machine).
START_S = 120.0


def _serve(tmp_path: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "experiments.web", "--port", str(port), "--data-dir", str(tmp_path)]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + START_S
    while True:
        try:
            httpx.get(f"{url}/api/lobby", timeout=5).raise_for_status()
            return process, url
        except httpx.TransportError:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.2)


def test_ctrl_c_stops_the_server_with_pages_open_in_time_and_without_a_traceback(tmp_path):
    process, url = _serve(tmp_path)
    stop = threading.Event()
    try:
        opened = httpx.post(f"{url}/api/tables", json={**TABLE, "seats": ["you", "person", "random"]}, timeout=60)
        tid, host = opened.json()["id"], opened.json()["token"]
        pages = [queue.Queue() for _ in range(3)]
        for out in pages:  # three open pages, each following the table
            args = (f"{url}/api/tables/{tid}/stream", host, out, stop)
            threading.Thread(target=listen, args=args, daemon=True).start()
            assert out.get(timeout=60) == 200 and next_state(out, lambda s: True)["table_status"] == "waiting"
        assert httpx.get(f"{url}/api/tables/{tid}", headers=seat_headers(host), timeout=60).status_code == 200
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        took = time.monotonic() - started
        for out in pages:  # each page's stream was ended by the server, not cut
            assert next_state(out, lambda s: s == "ended") == "ended"
    finally:
        stop.set()
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in err and "CancelledError" not in err and "graceful shutdown exceeded" not in err, err
    assert process.returncode == 0, err
    assert took < STREAM_CLOSE_S, f"stopping took {took:.1f} s"
