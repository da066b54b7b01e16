"""The record store in one SQLite file (the embedded default): opened, locked, backed up and
migrated as every pokertable store is (controller/storage/sqlite_store.py),
``synchronous=FULL``, 0600 (every hole card is in it); 0640 with ``group_read``, where the
recorder's group is the floor's service alone (an installed host: docs/install.md)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.engine.records import HandRecord
from controller.history.query import HandQuery
from controller.mqtt.messages import EventMessage, SecureRecordMessage
from controller.room.recorder.search import (
    SQLITE,
    STREAM_BATCH,
    VENUES_SQL,
    players_of,
    search_sql,
)
from controller.room.recorder.store import KeptHand, StoreUnavailable
from controller.session.outputs import PublicEvent
from controller.storage.private_files import private_file
from controller.storage.sqlite_store import StoreKind, add_columns, chain, open_store, statements

GROUP_READ = 0o640

# Version 1: the layout before versions were counted (a store from before the table's send
# time was kept lacks records.sent).
LAYOUT_1 = """
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    received REAL NOT NULL,
    record TEXT NOT NULL,
    sent REAL
);
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    received REAL NOT NULL,
    event TEXT NOT NULL
);
"""

# Version 2: the venue (a league's store holds several), ids unique per venue, the shuffle's
# time as a column and a side table of (player, hand) for searches. The arrival order (rowid)
# becomes ``seq``, kept as it was; records kept so far are of venue "" (see store.py, adopt).
LAYOUT_2 = """
CREATE TABLE records_2 (
    seq INTEGER PRIMARY KEY,
    venue TEXT NOT NULL,
    id TEXT NOT NULL,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    started REAL,
    received REAL NOT NULL,
    sent REAL,
    record TEXT NOT NULL,
    UNIQUE (venue, id)
);
INSERT INTO records_2 (seq, venue, id, table_id, hand, started, received, sent, record)
    SELECT rowid, '', id, table_id, hand, json_extract(record, '$.started'), received, sent,
           record FROM records ORDER BY rowid;
DROP TABLE records;
ALTER TABLE records_2 RENAME TO records;
CREATE INDEX records_by_table ON records (table_id, hand);
CREATE INDEX records_by_start ON records (started, seq);
CREATE TABLE hand_players (
    player TEXT NOT NULL,
    started REAL,
    seq INTEGER NOT NULL
);
INSERT INTO hand_players (player, started, seq)
    SELECT DISTINCT p.value, r.started, r.seq FROM records r, json_each(r.record, '$.players') p;
CREATE INDEX hand_players_by_player ON hand_players (player, started, seq);
CREATE TABLE events_2 (
    seq INTEGER PRIMARY KEY,
    venue TEXT NOT NULL,
    id TEXT NOT NULL,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    received REAL NOT NULL,
    event TEXT NOT NULL,
    UNIQUE (venue, id)
);
INSERT INTO events_2 (seq, venue, id, table_id, hand, received, event)
    SELECT rowid, '', id, table_id, hand, received, event FROM events ORDER BY rowid;
DROP TABLE events;
ALTER TABLE events_2 RENAME TO events;
"""

KIND = StoreKind("record store", 0x50540003, (
    chain(statements(LAYOUT_1), add_columns("records", [("sent", "REAL")])),
    statements(LAYOUT_2),
), tables=frozenset({"records", "events"}))


class SqliteRecordStore:
    def __init__(self, path: str | Path, *, readonly: bool = False,
                 group_read: bool = False) -> None:
        """``readonly``: to read the hands while the recorder keeps writing (no lock).
        ``group_read``: the files 0640 (the recorder's group reads them), else 0600."""
        self.path = Path(path)
        self._lock = threading.Lock()
        # Every hole card is in here: 0600 from the start (0640 for the group that may read
        # them); one recorder per store.
        kind = KIND
        if not readonly:
            kind = replace(KIND, mode=GROUP_READ) if group_read else KIND
            private_file(self.path, kind.mode)  # (made through the umask: set below)
            _set_mode(self.path, kind.mode)
        self._store = open_store(self.path, kind, readonly=readonly)
        self._db = self._store.db

    @property
    def where(self) -> str:
        return str(self.path)

    def add(self, message: SecureRecordMessage, received: float, venue: str = "") -> bool:
        record = message.record
        with self._lock, self._writing():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO records (venue, id, table_id, hand, started, received, "
                "sent, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (venue, message.id, message.table, message.hand, record.started, received,
                 message.sent, record.model_dump_json()))
            if cursor.rowcount != 1:
                return False
            seq = cursor.lastrowid
            self._db.executemany(
                "INSERT INTO hand_players (player, started, seq) VALUES (?, ?, ?)",
                [(name, record.started, seq) for name in players_of(record.players)])
            return True

    def add_event(self, message: EventMessage, received: float, venue: str = "") -> bool:
        assert message.id is not None
        with self._lock, self._writing():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO events (venue, id, table_id, hand, received, event) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (venue, message.id, message.table, message.event.hand, received,
                 message.event.model_dump_json()))
            return cursor.rowcount == 1

    def _writing(self) -> _Transaction:
        return _Transaction(self._db)

    def records(self, table: str | None = None) -> list[HandRecord]:
        rows = self._read("SELECT record FROM records WHERE ? IS NULL OR table_id = ? "
                          "ORDER BY table_id, hand, received", (table, table))
        return [HandRecord.model_validate_json(row[0]) for row in rows]

    def events(self, table: str | None = None) -> list[PublicEvent]:
        rows = self._read("SELECT event FROM events WHERE ? IS NULL OR table_id = ? "
                          "ORDER BY seq", (table, table))
        return [PublicEvent.model_validate_json(row[0]) for row in rows]

    def search(self, query: HandQuery, venue: str | None = None) -> list[HandRecord]:
        return [hand.record for hand in self.hands(query, venue)]

    def hands(self, query: HandQuery, venue: str | None = None) -> list[KeptHand]:
        sql, params = search_sql(query, venue, SQLITE)
        return [KeptHand(venue=v, id=i, received=r, sent=s,
                         record=HandRecord.model_validate_json(text))
                for v, i, r, s, text in self._read(sql, tuple(params))]

    def stream(self, query: HandQuery, venue: str | None = None) -> Iterator[KeptHand]:
        sql, params = search_sql(query, venue, SQLITE)
        with self._lock:
            try:
                cursor = self._db.execute(sql, tuple(params))
                while rows := cursor.fetchmany(STREAM_BATCH):
                    for v, i, r, s, text in rows:
                        yield KeptHand(venue=v, id=i, received=r, sent=s,
                                       record=HandRecord.model_validate_json(text))
            except sqlite3.OperationalError as exc:
                raise StoreUnavailable(f"{self.path}: {exc}") from exc

    def venues(self) -> list[str]:
        return [str(row[0]) for row in self._read(VENUES_SQL)]

    def arrivals(self) -> list[tuple[str, str, int, float]]:
        rows = self._read("SELECT id, table_id, hand, received FROM records ORDER BY seq")
        return [(str(i), str(t), int(h), float(r)) for i, t, h, r in rows]

    def sent_times(self) -> dict[int, float]:
        rows = self._read("SELECT hand, sent FROM records WHERE sent IS NOT NULL")
        return {int(hand): float(sent) for hand, sent in rows}

    def ids(self) -> list[str]:
        return [str(row[0]) for row in self._read("SELECT id FROM records ORDER BY seq")]

    def count(self) -> int:
        return int(self._read("SELECT count(*) FROM records")[0][0])

    def adopt(self, venue: str) -> int:
        with self._lock, self._writing():
            named = self._db.execute("UPDATE records SET venue = ? WHERE venue = ''",
                                     (venue,)).rowcount
            self._db.execute("UPDATE events SET venue = ? WHERE venue = ''", (venue,))
            return int(named)

    def ping(self) -> None:
        self._read("SELECT 1")

    def _read(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return list(self._db.execute(sql, params).fetchall())
            except sqlite3.OperationalError as exc:
                raise StoreUnavailable(f"{self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._store.close()


def _set_mode(path: Path, mode: int) -> None:
    """The store's files at ``mode`` before SQLite opens them. SQLite gives a new ``-wal`` and
    ``-shm`` the database's mode; ones a crash left keep theirs, so they are set too: a reader
    in the group (mode=ro, unable to write the directory) needs all three readable."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            if os.stat(name).st_mode & 0o777 != mode:
                os.chmod(name, mode)
        except FileNotFoundError:
            continue


class _Transaction:
    """One write transaction; a failure rolls it back and is `StoreUnavailable` (a disk full,
    a file gone): nothing was kept."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"the record store: {exc}") from exc

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if kind is None:
            self._db.execute("COMMIT")
            return
        self._db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.OperationalError):
            raise StoreUnavailable(f"the record store: {exc}") from exc


__all__ = ["KIND", "SqliteRecordStore"]
