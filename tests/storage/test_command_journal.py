"""The journal the clock, tournament and cash services share (controller/storage/
command_journal.py): the state and the command carried out land together or not at all, a
command is found again by its id, and the journal outlives the process."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.storage.command_journal import CommandJournal
from controller.storage.sqlite_store import StoreKind, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, args TEXT NOT NULL, by TEXT, at REAL NOT NULL,
    said TEXT NOT NULL
);
"""
# An application id of the test's own (not one of the product's stores).
KIND = StoreKind("test journal", 0x5054_7E57, (statements(SCHEMA),),
                 tables=frozenset({"state", "commands"}))


class Journal(CommandJournal):
    def __init__(self, path: Path) -> None:
        super().__init__(path, KIND, "state")

    def state(self) -> str | None:
        return self._state()

    def save(self, state: str, command: tuple[str, str, dict[str, object], str | None, float,
                                              str] | None = None, *, fail: bool = False) -> None:
        def more(db: sqlite3.Connection) -> None:
            if fail:
                raise RuntimeError("the disk is full")

        self._save(state, command, more)  # type: ignore[arg-type]


def test_the_state_and_its_command_are_kept_and_found_again(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    journal.save('{"level": 1}')
    journal.save('{"level": 2}', ("c-1", "set_level", {"level": 2}, "anna", 10.0, "level 2"))
    assert journal.said("c-1") == ("set_level", "level 2")
    assert journal.said("c-2") is None
    journal.close()
    again = Journal(tmp_path / "j.db")
    assert again.state() == '{"level": 2}'
    assert [c["id"] for c in again.commands()] == ["c-1"]
    assert again.commands()[0]["args"] == {"level": 2}
    again.close()


def test_a_failure_in_the_same_transaction_keeps_neither(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    journal.save('{"level": 1}')
    with pytest.raises(RuntimeError):
        journal.save('{"level": 2}', ("c-1", "set_level", {}, None, 1.0, "x"), fail=True)
    assert journal.state() == '{"level": 1}' and journal.said("c-1") is None
    journal.close()


def test_a_command_id_is_applied_once(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    journal.save("{}", ("c-1", "start", {}, None, 1.0, "started"))
    with pytest.raises(sqlite3.IntegrityError):
        journal.save("{}", ("c-1", "start", {}, None, 2.0, "started"))
    assert len(journal.commands()) == 1
    journal.close()


def test_a_second_process_on_the_same_journal_is_refused_in_one_line(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    other = subprocess.run(
        [sys.executable, "-c", "import sys\n"
         "from controller.errors import ConfigError\n"
         "from controller.storage.command_journal import CommandJournal\n"
         "from tests.storage.test_command_journal import KIND\n"
         "try:\n    CommandJournal(sys.argv[1], KIND, 'state')\n"
         "except ConfigError as exc:\n    print(exc)\n", str(tmp_path / "j.db")],
        capture_output=True, text=True, timeout=30, check=True)
    assert "is in use by" in other.stdout and "one process per store" in other.stdout
    journal.close()
