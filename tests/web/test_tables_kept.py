"""Nothing lost: a server restart resumes every table in play from its seed and moves and keeps finished records."""

from __future__ import annotations

import sqlite3

import pytest

from tests.web.conftest import require_module, table_client
from tests.web.tables_helpers import TABLE, open_table, play_table, seat_headers, settled, state

require_module("starlette", "web")
require_module("httpx", "web")

from experiments.web.server import create_app  # noqa: E402
from experiments.web.storage import DB_NAME, TableDB  # noqa: E402


def _one_move(client, tid, tokens) -> dict:
    settled(client, tid, tokens[0])
    mover = next(t for t in tokens if state(client, tid, t)["your_turn"])
    now = state(client, tid, mover)
    body = {"action": now["moves"][0]["action"], "version": now["version"]}
    answer = client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(mover))
    assert answer.status_code == 200, answer.json()
    return settled(client, tid, tokens[0])


def test_a_restart_resumes_the_tables_in_play_and_keeps_the_finished_ones(tmp_path):
    app = create_app(data_dir=tmp_path)
    with table_client(app) as client:
        done_id, done_tokens = open_table(client)
        finished = play_table(client, done_id, done_tokens)
        assert app.state.tables.get(done_id).game is None  # a finished game's engine and agents are freed
        record = client.get(f"/api/tables/{done_id}/record").json()
        tid, tokens = open_table(client)
        for _ in range(3):
            before = _one_move(client, tid, tokens)
        seen = {token: state(client, tid, token) for token in tokens}
        waiting = client.post("/api/tables", json=TABLE).json()
    assert (tmp_path / DB_NAME).stat().st_mode & 0o077 == 0  # the owner's only

    app = create_app(data_dir=tmp_path)
    with table_client(app) as client:  # a new server on the same folder
        assert app.state.tables.get(done_id).game is None  # a finished game is rebuilt only when asked for
        for token, old in seen.items():
            new = state(client, tid, token)
            for key in ("version", "table", "events", "scores", "your_turn", "players", "text"):
                assert new[key] == old[key], key
        assert before["version"] == seen[tokens[0]]["version"]
        assert client.get(f"/api/tables/{done_id}/record").json() == record
        shown = state(client, done_id, done_tokens[0])
        assert shown["scores"] == finished["scores"] and shown["table"] == finished["table"] and shown["done"]
        assert app.state.tables.get(done_id).game is None
        assert state(client, waiting["id"], waiting["token"])["table_status"] == "waiting"
        lobby = client.get("/api/lobby").json()
        assert {t["id"] for t in lobby["open"]} == {tid, waiting["id"]}
        assert [t["id"] for t in lobby["finished"]] == [done_id]
        assert play_table(client, tid, tokens)["done"]


def test_idle_unfinished_tables_are_deleted_and_finished_records_kept(tmp_path):
    db = TableDB(tmp_path)
    db.save("idle", {"x": 1}, "playing", 0.0, 100.0)
    db.save("fresh", {"x": 1}, "playing", 0.0, 10_000.0)
    db.save("over", {"x": 1}, "playing", 0.0, 100.0)
    db.add_move("idle", 0, 5, 100.0)
    db.finish("over", {"scores": [1, 2]}, 100.0)
    assert db.delete_idle(before=5_000.0) == ["idle"]
    kept = {t.id: t for t in db.load()}
    assert set(kept) == {"fresh", "over"} and kept["over"].record == {"scores": [1, 2]}
    db.close()


def test_a_move_is_stored_whole_or_not_at_all(tmp_path):
    db = TableDB(tmp_path)
    db.save("t", {"x": 1}, "playing", 0.0, 1.0)
    db.add_move("t", 0, 7, 2.0)
    with pytest.raises(sqlite3.IntegrityError):  # the same move index twice: the transaction is rolled back
        db.add_move("t", 0, 9, 3.0)
    stored = db.load()[0]
    assert stored.actions == [7] and stored.updated == 2.0
    db.close()
