"""What the clock's and the tournament's journals share: one row of state, rewritten after
every change, and every command carried out (id, name, arguments, who, when, what was said),
written in the same SQLite transaction, so that a command delivered again is found by its id
and answered without being carried out twice (docs/design.md, "Reliability")."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.storage.sqlite_store import StoreKind, open_store

Command = tuple[str, str, dict[str, Any], str | None, float, str]  # id, name, args, by, at, said

class CommandJournal:
    """A service's journal: ``state_table`` holds its one state row (id 1)."""

    def __init__(self, path: str | Path, kind: StoreKind, state_table: str) -> None:
        self.path = Path(path)
        self._store = open_store(self.path, kind)  # one service per store (its lock says so)
        self._db = self._store.db
        self._state_table = state_table

    def _state(self) -> str | None:
        row = self._db.execute(f"SELECT state FROM {self._state_table} WHERE id = 1").fetchone()
        return str(row[0]) if row else None

    def said(self, command_id: str) -> tuple[str, str] | None:
        """The command applied under this id, and what the service said of it."""
        row = self._db.execute("SELECT name, said FROM commands WHERE id = ?",
                               (command_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def commands(self) -> list[dict[str, Any]]:
        """Every command carried out, in order: the audit of who did what."""
        rows = self._db.execute("SELECT id, name, args, by, at, said FROM commands "
                                "ORDER BY rowid").fetchall()
        return [{"id": r[0], "name": r[1], "args": json.loads(r[2]), "by": r[3], "at": r[4],
                 "said": r[5]} for r in rows]

    def _save(self, state: str, command: Command | None,
              more: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """The state, the command and ``more`` in one transaction: all of them or none."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(f"INSERT OR REPLACE INTO {self._state_table} (id, state) VALUES (1, ?)",
                       (state,))
            if command is not None:
                command_id, name, args, by, at, said = command
                db.execute("INSERT INTO commands (id, name, args, by, at, said) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           (command_id, name, json.dumps(args), by, at, said))
            if more is not None:
                more(db)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._store.close()


__all__ = ["Command", "CommandJournal"]
