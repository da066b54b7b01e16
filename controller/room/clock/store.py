"""The clock's journal: where it stands and every command it carried out, in SQLite (WAL,
fsync): a clock killed and restarted resumes the same level with the same end instant and the
same hand-for-hand round, and answers a command it already carried out without doing it again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.room.clock.rules import ClockPosition
from controller.sqlite_store import StoreKind, open_store, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS position (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    by TEXT,
    at REAL NOT NULL,
    said TEXT NOT NULL
);
"""

# Schema versions (controller/sqlite_store.py). 1: the layout before versions were counted.
KIND = StoreKind("clock store", 0x50540004, (statements(SCHEMA),),
                 tables=frozenset({"position", "commands"}))


class ClockStore:
    """The clock's journal: its position and every command it carried out (WAL, fsync)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._store = open_store(self.path, KIND)  # one clock per store
        self._db = self._store.db

    def position(self) -> ClockPosition | None:
        row = self._db.execute("SELECT state FROM position WHERE id = 1").fetchone()
        return ClockPosition.model_validate_json(row[0]) if row else None

    def said(self, command_id: str) -> tuple[str, str] | None:
        """The command applied under this id, and what the clock said of it."""
        row = self._db.execute("SELECT name, said FROM commands WHERE id = ?",
                               (command_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def save(self, position: ClockPosition, command: tuple[str, str, dict[str, Any], str | None,
                                                            float, str] | None = None,
             *, durable: bool = True) -> None:
        """``durable=False`` for what a restart can rebuild (which tables of a round have
        finished: their retained states say it again): no fsync of its own."""
        db = self._db
        db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT OR REPLACE INTO position (id, state) VALUES (1, ?)",
                       (position.model_dump_json(),))
            if command is not None:
                command_id, name, args, by, at, said = command
                db.execute("INSERT INTO commands (id, name, args, by, at, said) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           (command_id, name, json.dumps(args), by, at, said))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._store.close()


__all__ = ["ClockStore"]
