"""The one way a pokertable store (SQLite) is opened: the journal, the outbox, the recorder's,
the clock's and the floor's stores all come through `open_store`.

It makes the file private before SQLite touches it (`private_file`), takes the store's
single-instance lock, sets WAL and the store's ``synchronous`` level, and brings the schema to
the code's version:

- **Schema version.** ``PRAGMA user_version`` counts the migrations a file has had; every store
  made before versions existed is 0 (the first migration of each kind creates the tables of
  that time if missing, and adds the columns older files lack). An older file is migrated in one
  transaction at open, so a crash half-way leaves it as it was. A file from a newer version is
  refused: its layout is unknown here. ``PRAGMA application_id`` says which kind of store a file
  is, so a clock's store given as a journal is refused rather than filled with new tables.
- **Single instance.** ``<db>.lock`` is held with ``flock`` for as long as the store is open:
  a second process refuses to start with one line naming the first (the lock file holds its
  pid, command line and start time as one JSON line). The kernel releases the lock when the
  holder exits, even on SIGKILL, so a stale lock file never blocks anything. Within a process
  the lock is counted, not refused: a test (or a restart in place) may open a store again
  before the first handle is closed. Reading (`readonly=True`, the backups) takes no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from controller.errors import ConfigError
from controller.storage.private_files import private_file

Migration = Callable[[sqlite3.Connection], None]

# PRAGMA application_id of each kind of store ("PT" and a number), and its name in messages.
KINDS: dict[int, str] = {
    0x50540001: "table journal",
    0x50540002: "MQTT outbox",
    0x50540003: "record store",
    0x50540004: "clock store",
    0x50540005: "floor store",
    0x50540006: "tournament store",
    0x50540007: "cash store",
}


@dataclass(frozen=True)
class StoreKind:
    """One kind of store: its name, its id, and its migrations in order (migration ``k`` takes
    a file from version ``k`` to ``k + 1``; the newest version is their number)."""

    name: str
    application_id: int
    migrations: tuple[Migration, ...]
    tables: frozenset[str]  # a version-0 file holding none of these is another kind's
    synchronous: str = "FULL"
    mode: int = 0o600  # hole cards are in most stores: the owner's alone

    @property
    def version(self) -> int:
        return len(self.migrations)


def statements(script: str) -> Migration:
    """A migration that runs a script of SQL statements inside the open transaction
    (``executescript`` would commit first)."""
    parts: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            parts.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"an incomplete SQL statement: {pending.strip()[:60]}")

    def run(db: sqlite3.Connection) -> None:
        for sql in parts:
            db.execute(sql)
    return run


def add_columns(table: str, columns: Iterable[tuple[str, str]]) -> Migration:
    """Add ``(name, declaration)`` columns that a file does not have yet (the ad-hoc additions
    of the versions before schema versions: some version-0 files have them, some do not)."""
    wanted = list(columns)

    def run(db: sqlite3.Connection) -> None:
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for name, declaration in wanted:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")
    return run


def chain(*steps: Migration) -> Migration:
    def run(db: sqlite3.Connection) -> None:
        for step in steps:
            step(db)
    return run


# ---------------------------------------------------------------------------- the lock


@dataclass
class _Held:
    fd: int
    count: int = 1


_HELD: dict[str, _Held] = {}
_HELD_GUARD = threading.Lock()


def lock_path(db: Path) -> Path:
    return Path(f"{db}.lock")


def _command_line() -> str:
    try:
        raw = Path("/proc/self/cmdline").read_bytes()
        words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    except OSError:  # not Linux
        words = [sys.executable, *sys.argv]
    line = " ".join(" ".join(words).split())  # one line, whatever the arguments hold
    return line if len(line) <= 300 else line[:297] + "..."


def holder(db: Path) -> str:
    """Who holds the store's lock, as the lock file says: ``pid 1234 (pokertable clock ...,
    since 2025-01-01T12:00:00Z)``."""
    try:
        raw = lock_path(db).read_text(encoding="utf-8")
        info = json.loads(raw)
        return f"pid {int(info['pid'])} ({info['command']}, since {info['since']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process (its lock file says no more)"


class StoreLock:
    """The store's ``<db>.lock``, held with ``flock`` until `release`."""

    def __init__(self, db: Path, *, reentrant: bool = True) -> None:
        self.db = db
        path = lock_path(db)
        self._key = os.path.realpath(path)
        self._released = False
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is not None:
                if not reentrant:
                    raise ConfigError(f"{db} is open in this process")
                held.count += 1
                return
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise ConfigError(f"{db} is in use by {holder(db)}: stop that one first "
                                  "(one process per store)") from None
            except BaseException:
                os.close(fd)
                raise
            since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            line = json.dumps({"pid": os.getpid(), "command": _command_line(), "since": since})
            os.ftruncate(fd, 0)
            os.pwrite(fd, (line + "\n").encode(), 0)
            _HELD[self._key] = _Held(fd)

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is None:
                return
            held.count -= 1
            if held.count:
                return
            del _HELD[self._key]
            with contextlib.suppress(OSError):
                os.ftruncate(held.fd, 0)  # nobody holds it now: it names no one
            os.close(held.fd)  # closing the last descriptor releases the flock


# ---------------------------------------------------------------------------- opening


@dataclass
class Store:
    """An open store: its connection (autocommit; transactions are explicit) and its lock."""

    path: Path
    kind: StoreKind
    db: sqlite3.Connection
    lock: StoreLock | None = None
    migrated_from: int | None = field(default=None)  # the version it had, if it was migrated

    def close(self) -> None:
        try:
            self.db.close()
        finally:
            if self.lock is not None:
                self.lock.release()


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write (backups, readers); no lock needed beside a service."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such store")
    return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True,
                           isolation_level=None, check_same_thread=False)


def open_store(path: str | Path, kind: StoreKind, *, readonly: bool = False) -> Store:
    """Open ``path`` as a ``kind`` store at the code's schema version (see the module's doc).
    Every refusal is a `ConfigError` of one line naming the file."""
    path = Path(path)
    lock: StoreLock | None = None
    if readonly:
        db = connect_readonly(path)
    else:
        private_file(path, kind.mode)  # before SQLite makes it (and its -wal) with the umask
        lock = StoreLock(path)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        store = Store(path, kind, db, lock)
        if not readonly:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={kind.synchronous}")
        store.migrated_from = _bring_up_to_date(store, readonly)
        return store
    except sqlite3.DatabaseError as exc:
        db.close()
        if lock is not None:
            lock.release()
        raise ConfigError(f"{path}: cannot be opened as a {kind.name}: {exc}") from None
    except BaseException:
        db.close()
        if lock is not None:
            lock.release()
        raise


def versions(db: sqlite3.Connection) -> tuple[int, int]:
    """(user_version, application_id) of an open file."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    application = int(db.execute("PRAGMA application_id").fetchone()[0])
    return version, application


def _bring_up_to_date(store: Store, readonly: bool) -> int | None:
    db, kind, path = store.db, store.kind, store.path
    version, application = versions(db)
    if application not in (0, kind.application_id):
        other = KINDS.get(application, f"application id {application:#x}")
        raise ConfigError(f"{path} is a {other}, not a {kind.name}")
    if version > kind.version:
        raise ConfigError(f"{path}: a {kind.name} of schema version {version}, newer than this "
                          f"pokertable knows ({kind.version}): upgrade pokertable or restore a "
                          "backup")
    if version == 0 and application == 0:
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        if tables and not tables & kind.tables:
            raise ConfigError(f"{path} is not a {kind.name} (it holds the tables "
                              f"{', '.join(sorted(tables))})")
    if version == kind.version or readonly:
        return None  # a reader reads what is there: only the service migrates
    db.execute("BEGIN IMMEDIATE")
    try:
        for migration in kind.migrations[version:]:
            migration(db)
        db.execute(f"PRAGMA application_id = {kind.application_id}")
        db.execute(f"PRAGMA user_version = {kind.version}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return version


__all__ = ["KINDS", "Migration", "Store", "StoreKind", "StoreLock", "add_columns", "chain",
           "connect_readonly", "holder", "lock_path", "open_store", "statements", "versions"]
