"""The web table's memory: shared tables, their moves and finished game records in SQLite.

One file, ``tables.sqlite3``, in the data folder (``--data-dir``; created readable by its owner
only), or memory only (no folder: tests). Every change is one transaction, so a crash leaves a
table as it was before or after a move, never half-written. A table is stored as its setup (the
game, options, seats with their tokens, the secret seed) and its moves; a server restart rebuilds
every table in play from them. Nothing here is unpickled or evaluated: setups and records are JSON.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DB_NAME = "tables.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    record TEXT
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (table_id, idx)
);
"""


@dataclass
class StoredTable:
    """One table as stored: its setup, status, times (seconds since the epoch), moves and record."""

    id: str
    setup: dict[str, Any]
    status: str
    created: float
    updated: float
    actions: list[int]
    record: dict[str, Any] | None


class TableDB:
    """Tables and their moves in one SQLite file (``folder`` None: in memory); safe across threads."""

    def __init__(self, folder: str | Path | None = None):
        if folder is None:
            target = ":memory:"
        else:
            Path(folder).mkdir(mode=0o700, parents=True, exist_ok=True)
            target = str(Path(folder) / DB_NAME)
        self._conn = sqlite3.connect(target, check_same_thread=False)
        if folder is not None:
            os.chmod(target, 0o600)
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.executescript(SCHEMA)
        self._lock = threading.Lock()

    def _write(self, *statements: tuple[str, tuple[Any, ...]]) -> None:
        """Run ``statements`` in one transaction (all or none)."""
        with self._lock, self._conn:
            for sql, args in statements:
                self._conn.execute(sql, args)

    def save(self, tid: str, setup: dict[str, Any], status: str, created: float, now: float) -> None:
        """Store a table's setup and status (a new table, a seat taken, the game started)."""
        self._write(
            (
                "INSERT INTO tables (id, setup, status, created, updated) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET setup=excluded.setup, status=excluded.status, updated=excluded.updated",
                (tid, json.dumps(setup), status, created, now),
            )
        )

    def add_move(self, tid: str, index: int, action: int, now: float) -> None:
        """Store move ``index`` of a table."""
        self._write(
            ("INSERT INTO moves (table_id, idx, action) VALUES (?, ?, ?)", (tid, index, action)),
            ("UPDATE tables SET updated=? WHERE id=?", (now, tid)),
        )

    def finish(self, tid: str, record: dict[str, Any], now: float) -> None:
        """Mark a table finished with its game's record."""
        self._write(
            ("UPDATE tables SET status='finished', record=?, updated=? WHERE id=?", (json.dumps(record), now, tid))
        )

    def delete_idle(self, before: float, waiting_before: float | None = None, keep: Collection[str] = ()) -> list[str]:
        """Delete the unfinished tables last changed before ``before``, and the waiting ones (nobody joined yet)
        last changed before ``waiting_before``, but those in ``keep``; their ids."""
        waiting_before = before if waiting_before is None else max(before, waiting_before)
        with self._lock, self._conn:
            ids = [
                row[0]
                for row in self._conn.execute(
                    "SELECT id FROM tables WHERE (status != 'finished' AND updated < ?) "
                    "OR (status = 'waiting' AND updated < ?)",
                    (before, waiting_before),
                )
                if row[0] not in keep
            ]
            self._conn.executemany("DELETE FROM tables WHERE id=?", [(i,) for i in ids])
        return ids

    def delete(self, tid: str) -> None:
        """Delete a table and its moves (a table its host closed)."""
        self._write(("DELETE FROM tables WHERE id=?", (tid,)))

    def touch(self, ids: Collection[str], now: float) -> None:
        """Mark tables as changed at ``now`` (a waiting table whose page is open is not idle)."""
        with self._lock, self._conn:
            self._conn.executemany("UPDATE tables SET updated=? WHERE id=?", [(now, i) for i in ids])

    def load(self) -> list[StoredTable]:
        """Every stored table, oldest first, with its moves in order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, setup, status, created, updated, record FROM tables ORDER BY created"
            ).fetchall()
            moves: dict[str, list[int]] = {}
            for tid, action in self._conn.execute("SELECT table_id, action FROM moves ORDER BY table_id, idx"):
                moves.setdefault(tid, []).append(action)
        return [
            StoredTable(
                tid,
                json.loads(setup),
                status,
                created,
                updated,
                moves.get(tid, []),
                None if record is None else json.loads(record),
            )
            for tid, setup, status, created, updated, record in rows
        ]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


__all__ = ["DB_NAME", "StoredTable", "TableDB"]
