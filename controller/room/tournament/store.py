"""The tournament's journal, in SQLite (WAL, fsync): its ledger after every change, and every
floor command it carried out and every durable table message it took (an elimination's id), in
the same transaction. Killed and restarted, the tournament resumes from the last ledger; a
command or an elimination delivered again is found here and not applied twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.room.tournament.ledger import Ledger
from controller.sqlite_store import StoreKind, open_store, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    by TEXT,
    at REAL NOT NULL,
    said TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS heard (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    at REAL NOT NULL
);
"""

KIND = StoreKind("tournament store", 0x50540006, (statements(SCHEMA),),
                 tables=frozenset({"ledger", "commands", "heard"}))

Command = tuple[str, str, dict[str, Any], str | None, float, str]  # id, name, args, by, at, said


class TournamentStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._store = open_store(self.path, KIND)  # one tournament per store
        self._db = self._store.db

    def ledger(self) -> Ledger | None:
        row = self._db.execute("SELECT state FROM ledger WHERE id = 1").fetchone()
        return Ledger.model_validate_json(row[0]) if row else None

    def said(self, command_id: str) -> tuple[str, str] | None:
        """The command applied under this id, and what the tournament said of it."""
        row = self._db.execute("SELECT name, said FROM commands WHERE id = ?",
                               (command_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def heard(self, message_id: str) -> bool:
        """Whether a durable table message (an elimination) with this id was taken."""
        return self._db.execute("SELECT 1 FROM heard WHERE id = ?",
                                (message_id,)).fetchone() is not None

    def commands(self) -> list[dict[str, Any]]:
        """Every command carried out, in order: the audit of who did what."""
        rows = self._db.execute("SELECT id, name, args, by, at, said FROM commands "
                                "ORDER BY rowid").fetchall()
        return [{"id": r[0], "name": r[1], "args": json.loads(r[2]), "by": r[3], "at": r[4],
                 "said": r[5]} for r in rows]

    def save(self, ledger: Ledger, command: Command | None = None,
             heard: tuple[str, str, float] | None = None) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT OR REPLACE INTO ledger (id, state) VALUES (1, ?)",
                       (ledger.model_dump_json(),))
            if command is not None:
                command_id, name, args, by, at, said = command
                db.execute("INSERT INTO commands (id, name, args, by, at, said) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           (command_id, name, json.dumps(args), by, at, said))
            if heard is not None:
                db.execute("INSERT OR IGNORE INTO heard (id, kind, at) VALUES (?, ?, ?)", heard)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._store.close()


__all__ = ["KIND", "TournamentStore"]
