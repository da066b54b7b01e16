"""The tournament's journal, in SQLite (WAL, fsync): its ledger after every change, and every
floor command it carried out and every durable table message it took (an elimination's id), in
the same transaction. Killed and restarted, the tournament resumes from the last ledger; a
command or an elimination delivered again is found here and not applied twice.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.room.tournament.ledger import Ledger
from controller.storage.command_journal import Command, CommandJournal
from controller.storage.sqlite_store import StoreKind, statements

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

class TournamentStore(CommandJournal):
    def __init__(self, path: str | Path) -> None:
        super().__init__(path, KIND, "ledger")  # one tournament per store

    def ledger(self) -> Ledger | None:
        state = self._state()
        return Ledger.model_validate_json(state) if state else None

    def heard(self, message_id: str) -> bool:
        """Whether a durable table message (an elimination) with this id was taken."""
        return self._db.execute("SELECT 1 FROM heard WHERE id = ?",
                                (message_id,)).fetchone() is not None

    def save(self, ledger: Ledger, command: Command | None = None,
             heard: tuple[str, str, float] | None = None) -> None:
        def take(db: sqlite3.Connection) -> None:
            if heard is not None:
                db.execute("INSERT OR IGNORE INTO heard (id, kind, at) VALUES (?, ?, ?)", heard)

        self._save(ledger.model_dump_json(), command, take)


__all__ = ["KIND", "Command", "TournamentStore"]
