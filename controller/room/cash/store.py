"""The cash floor's journal, in SQLite (WAL, fsync): its ledger after every change, and every
command it carried out (the floor's and its own ``tick``), in the same transaction. Killed and
restarted, the cash floor resumes from the last ledger, every list in its order; a command
delivered again is found here by its id and not carried out twice; and the commands, replayed
(`core.replay`), make that same ledger again.
"""

from __future__ import annotations

from pathlib import Path

from controller.room.cash.core import Journaled
from controller.room.cash.ledger import Ledger
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
"""

# The next application id after the tournament store's (controller/storage/sqlite_store.py
# KINDS names every store, so that one opened as another is refused by name).
KIND = StoreKind("cash store", 0x50540007, (statements(SCHEMA),),
                 tables=frozenset({"ledger", "commands"}))


class CashStore(CommandJournal):
    def __init__(self, path: str | Path) -> None:
        super().__init__(path, KIND, "ledger")  # one cash floor per store

    def ledger(self) -> Ledger | None:
        state = self._state()
        return Ledger.model_validate_json(state) if state else None

    def journal(self) -> list[Journaled]:
        """The commands carried out, in order, as `core.replay` takes them."""
        return [(c["name"], c["args"], c["by"], c["at"]) for c in self.commands()]

    def save(self, ledger: Ledger, command: Command | None = None) -> None:
        self._save(ledger.model_dump_json(), command)


__all__ = ["KIND", "CashStore"]
