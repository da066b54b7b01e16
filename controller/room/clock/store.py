"""The clock's journal: where it stands and every command it carried out, in SQLite (WAL,
fsync): a clock killed and restarted resumes the same level with the same end instant and the
same hand-for-hand round, and answers a command it already carried out without doing it again.
"""

from __future__ import annotations

from pathlib import Path

from controller.room.clock.rules import ClockPosition
from controller.storage.command_journal import Command, CommandJournal
from controller.storage.sqlite_store import StoreKind, statements

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

# Schema versions (controller/storage/sqlite_store.py). 1: the layout before versions were counted.
KIND = StoreKind("clock store", 0x50540004, (statements(SCHEMA),),
                 tables=frozenset({"position", "commands"}))


class ClockStore(CommandJournal):
    """The clock's journal: its position and every command it carried out (WAL, fsync)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, KIND, "position")  # one clock per store

    def position(self) -> ClockPosition | None:
        state = self._state()
        return ClockPosition.model_validate_json(state) if state else None

    def save(self, position: ClockPosition, command: Command | None = None,
             *, durable: bool = True) -> None:
        """``durable=False`` for what a restart can rebuild (which tables of a round have
        finished: their retained states say it again): no fsync of its own."""
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._save(position.model_dump_json(), command)


__all__ = ["ClockStore"]
