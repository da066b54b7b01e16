"""controller/storage/sqlite_store.py: schema versions and migrations, and the single-instance lock
between real processes (SIGKILL included)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.room.clock.store import ClockStore
from controller.room.recorder import SqliteRecordStore
from controller.storage.sqlite_store import StoreKind, lock_path, open_store, statements
from controller.table.journal import Journal

ROOT = Path(__file__).resolve().parents[2]


def kind(*migrations: str) -> StoreKind:
    return StoreKind("test store", 0x50549999, tuple(statements(m) for m in migrations),
                     tables=frozenset({"a", "b"}))


V1 = "CREATE TABLE a (x INTEGER);"
V2 = "ALTER TABLE a ADD COLUMN y TEXT DEFAULT 'new';\nCREATE TABLE b (z INTEGER);"
V3 = "INSERT INTO b (z) SELECT x FROM a;"


def version_1_with_a_row(path: Path) -> Path:
    """A store written by an older pokertable: version 1, with one row (x = 7)."""
    store = open_store(path, kind(V1))
    store.db.execute("INSERT INTO a (x) VALUES (7)")
    store.close()
    return path


def test_a_new_store_is_made_at_the_newest_version_private(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db", kind(V1, V2, V3))
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == 3
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert (tmp_path / "s.db").stat().st_mode & 0o777 == 0o600
    finally:
        store.close()


def test_an_older_store_is_migrated_in_order_and_keeps_its_data(tmp_path: Path) -> None:
    path = version_1_with_a_row(tmp_path / "s.db")
    store = open_store(path, kind(V1, V2, V3))
    try:
        assert store.migrated_from == 1
        assert store.db.execute("SELECT x, y FROM a").fetchall() == [(7, "new")]
        assert store.db.execute("SELECT z FROM b").fetchall() == [(7,)]  # V3 ran after V2
    finally:
        store.close()


def test_a_failing_migration_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = version_1_with_a_row(tmp_path / "s.db")
    broken = kind(V1, V2, "INSERT INTO nowhere VALUES (1);")
    with pytest.raises(ConfigError, match=r"s\.db: cannot be opened as a test store"):
        open_store(path, broken)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert [r[1] for r in db.execute("PRAGMA table_info(a)")] == ["x"]  # V2 rolled back too
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'b'").fetchall() == []
    db.close()
    assert open_store(path, kind(V1)).db.execute("SELECT x FROM a").fetchall() == [(7,)]


def test_a_store_from_a_newer_version_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    open_store(path, kind(V1, V2, V3)).close()
    with pytest.raises(ConfigError) as refused:
        open_store(path, kind(V1))
    assert str(refused.value) == (f"{path}: a test store of schema version 3, newer than this "
                                  "pokertable knows (1): upgrade pokertable or restore a backup")
    assert "\n" not in str(refused.value)
    # Nothing was held or changed: the newer code still opens it.
    open_store(path, kind(V1, V2, V3)).close()


def test_another_kind_of_store_is_refused(tmp_path: Path) -> None:
    clock = ClockStore(tmp_path / "clock.db")
    clock.close()
    with pytest.raises(ConfigError, match=r"clock\.db is a clock store, not a table journal"):
        Journal(tmp_path / "clock.db")
    db = sqlite3.connect(tmp_path / "old.db")  # a version-0 file of another kind
    db.execute("CREATE TABLE position (id INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(ConfigError, match=r"is not a record store .*position"):
        SqliteRecordStore(tmp_path / "old.db")
    (tmp_path / "junk.db").write_bytes(b"not a database, " * 100)
    with pytest.raises(ConfigError, match=r"junk\.db: cannot be opened as a clock store"):
        ClockStore(tmp_path / "junk.db")


def test_a_reader_takes_no_lock_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    writer = open_store(path, kind(V1))
    writer.db.execute("INSERT INTO a (x) VALUES (1)")
    try:
        reader = open_store(path, kind(V1, V2), readonly=True)  # an older file: not migrated
        assert reader.db.execute("SELECT x FROM a").fetchall() == [(1,)]
        assert reader.db.execute("PRAGMA user_version").fetchone()[0] == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.db.execute("INSERT INTO a (x) VALUES (2)")
        reader.close()
    finally:
        writer.close()


# ------------------------------------------------------------------ one instance per store

OPEN_CLOCK = """
import sys, time
from controller.room.clock.store import ClockStore
store = ClockStore(sys.argv[1])
print("open", flush=True)
time.sleep(60)
"""

OPEN_RECORDS = OPEN_CLOCK.replace("from controller.room.clock.store import ClockStore",
                                  "from controller.room.recorder import SqliteRecordStore as "
                                  "ClockStore")

OPEN_ONCE = """
import sys
from controller.errors import ConfigError
from controller.room.clock.store import ClockStore
try:
    ClockStore(sys.argv[1]).close()
except ConfigError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
print("opened")
"""


def holding(db: Path, script: str = OPEN_CLOCK) -> subprocess.Popen[str]:
    """Another process holding the store ``db`` open (``script``: a clock store's unless
    named), once it says so."""
    first = subprocess.Popen([sys.executable, "-c", script, str(db)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)
    assert first.stdout is not None and first.stdout.readline() == "open\n"
    return first


def second(db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", OPEN_ONCE, str(db)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGKILL])
def test_a_second_process_refuses_while_the_first_runs_and_starts_after(
        tmp_path: Path, ending: signal.Signals) -> None:
    db = tmp_path / "clock.db"
    first = holding(db)
    try:
        refused = second(db)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.splitlines()  # one line, no traceback
        assert line.startswith(f"{db} is in use by pid {first.pid} (")
        assert "-c" in line and "since " in line and "stop that one first" in line
        info = json.loads(lock_path(db).read_text())
        assert info["pid"] == first.pid
    finally:
        first.send_signal(ending)
        first.wait(10)
    after = second(db)  # the kernel released the lock, even after SIGKILL
    assert after.returncode == 0 and after.stdout == "opened\n", after.stderr


def test_the_service_command_says_the_first_instance_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "records.db"
    first = holding(db, OPEN_RECORDS)
    try:
        credentials = tmp_path / "credentials.json"
        credentials.write_text(json.dumps({"recorder": {"username": "recorder",
                                                        "password": "x"}}))
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "controller.cli", "recorder", "--venue",
                               "v", "--broker-port", "1", "--credentials", str(credentials),
                               "--store", str(db)], cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
        assert time.monotonic() - started < 30
        assert done.returncode == 2
        assert done.stderr.splitlines()[-1] == (
            f"pokertable recorder: {db} is in use by pid {first.pid} "
            f"({json.loads(lock_path(db).read_text())['command']}, since "
            f"{json.loads(lock_path(db).read_text())['since']}): stop that one first "
            "(one process per store)")
        assert "Traceback" not in done.stderr
    finally:
        first.kill()
        first.wait(10)


def test_within_one_process_a_store_may_be_opened_again(tmp_path: Path) -> None:
    """A restart in place (and the tests' simulated power cuts) open a store again before the
    first handle is closed: counted, the lock goes with the last."""
    first = ClockStore(tmp_path / "clock.db")
    again = ClockStore(tmp_path / "clock.db")
    first.close()
    assert second(tmp_path / "clock.db").returncode == 2  # still held by ``again``
    again.close()
    assert second(tmp_path / "clock.db").returncode == 0
    assert os.path.getsize(lock_path(tmp_path / "clock.db")) == 0  # names no one now


def test_a_reader_beside_a_running_recorder_needs_no_lock(tmp_path: Path) -> None:
    db = tmp_path / "records.db"
    first = holding(db, OPEN_RECORDS)
    try:
        with pytest.raises(ConfigError, match="in use by pid"):
            SqliteRecordStore(db)
        reader = SqliteRecordStore(db, readonly=True)
        assert reader.ids() == []
        reader.close()
    finally:
        first.kill()
        first.wait(10)
