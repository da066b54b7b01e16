"""The record store in PostgreSQL (psycopg 3), for a ``postgresql://`` URL: a league's venues
share one database, read by whoever needs the hands while the recorder writes.

What SQLite's file gives the embedded store, this one does in the database:
- **Schema version.** ``pokertable_schema`` holds each kind's version; older layouts are
  migrated in one transaction at open, a newer one is refused, a database whose ``records``
  table is not ours is refused.
- **Single instance.** The recorder holds a session-level advisory lock (`LOCK_KEY`) for as
  long as it is connected: a second recorder on the same database is refused in one line naming
  the first (its ``application_name``, host and start). The server releases it when the
  session ends, however it ends. Readers take no lock and cannot write.
- **Exactly once.** (venue, id) is unique: a record is inserted with ``ON CONFLICT DO NOTHING``
  in a transaction with its players, and `add` answers only after the commit. A connection lost
  is opened again (the lock taken again) and the operation tried once more; an insert that did
  commit before the loss is then found and answered as a duplicate, which is what it is.
- **Backups** are PostgreSQL's own (``pg_dump``, base backups): `pokertable backup` copies
  SQLite files only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from controller.engine.records import HandRecord
from controller.errors import ConfigError
from controller.history.query import HandQuery
from controller.mqtt.messages import EventMessage, SecureRecordMessage
from controller.room.recorder.search import (
    POSTGRES,
    STREAM_BATCH,
    VENUES_SQL,
    players_of,
    search_sql,
)
from controller.room.recorder.store import KeptHand, StoreUnavailable
from controller.session.outputs import PublicEvent

T = TypeVar("T")

KIND = "record store"
# With the schema's hash, the advisory lock's key: one recorder per (database, schema). The
# SQLite store's application id.
LOCK_KEY = 0x50540003

# Migration k takes the database from version k to k + 1.
MIGRATIONS: tuple[str, ...] = ("""
CREATE TABLE records (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue TEXT NOT NULL,
    id TEXT NOT NULL,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    started DOUBLE PRECISION,
    received DOUBLE PRECISION NOT NULL,
    sent DOUBLE PRECISION,
    record TEXT NOT NULL,
    UNIQUE (venue, id)
);
CREATE INDEX records_by_table ON records (table_id, hand);
CREATE INDEX records_by_start ON records (started NULLS FIRST, seq);
CREATE TABLE hand_players (
    player TEXT NOT NULL,
    started DOUBLE PRECISION,
    seq BIGINT NOT NULL
);
CREATE INDEX hand_players_by_player ON hand_players (player, started NULLS FIRST, seq);
CREATE TABLE events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue TEXT NOT NULL,
    id TEXT NOT NULL,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    received DOUBLE PRECISION NOT NULL,
    event TEXT NOT NULL,
    UNIQUE (venue, id)
);
""",)
VERSION = len(MIGRATIONS)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise ConfigError("a postgresql:// record store needs psycopg: pip install "
                          "'pokertable-rfid[postgresql]'") from None
    return psycopg


def shown(url: str) -> str:
    """The URL without its password (log lines, refusals)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:  # psycopg's ProgrammingError: a malformed URL
        return "postgresql://(a malformed URL)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    where = f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"
    path = str(parts.get("options", "")).removeprefix("-c").removeprefix("search_path=")
    return where + (f" (schema {path})" if "options" in parts else "")


class PostgresRecordStore:
    def __init__(self, url: str, *, readonly: bool = False) -> None:
        self._psycopg = _psycopg()
        self.url = url
        self.readonly = readonly
        self._lock = threading.Lock()
        self._conn: Any = None
        try:
            self._conn = self._connect()
        except self._psycopg.Error as exc:
            raise ConfigError(f"cannot open the record store {self.where}: "
                              f"{_first_line(exc)}") from None

    @property
    def where(self) -> str:
        return shown(self.url)

    # ---------------------------------------------------------------- the connection

    def _connect(self) -> Any:
        who = "reader" if self.readonly else "recorder"
        conn = self._psycopg.connect(
            self.url, autocommit=True, connect_timeout=10,
            application_name=f"pokertable {who} (pid {os.getpid()} on "
                             f"{socket.gethostname()})"[:63])
        try:
            if self.readonly:  # a reader cannot write, whatever it is asked
                conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            else:
                self._take_lock(conn)
            self._bring_up_to_date(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _take_lock(self, conn: Any) -> None:
        if conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(current_schema()))",
                        (LOCK_KEY,)).fetchone()[0]:
            return
        row = conn.execute(
            "SELECT a.pid, a.application_name, coalesce(host(a.client_addr), 'a local socket'),"
            " a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
            "AND l.classid::int8 = %s "
            "AND l.objid::int8 = (hashtext(current_schema())::int8 & 4294967295) "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            (LOCK_KEY,)).fetchone()
        who = (f"server process {row[0]} ({row[1] or 'no name'}, from {row[2]}, since "
               f"{row[3]:%Y-%m-%dT%H:%M:%S%z})" if row else "another session")
        raise ConfigError(f"{self.where} is in use by {who}: stop that recorder first (one "
                          "recorder per store)")

    def _bring_up_to_date(self, conn: Any) -> None:
        tables = {row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
        version = 0
        if "pokertable_schema" in tables:
            found = conn.execute("SELECT version FROM pokertable_schema WHERE kind = %s",
                                 (KIND,)).fetchone()
            version = int(found[0]) if found else 0
        if version == 0 and "records" in tables:
            raise ConfigError(f"{self.where} holds a table 'records' that is not a pokertable "
                              "record store's: give the recorder a database of its own")
        if version > VERSION:
            raise ConfigError(f"{self.where}: a {KIND} of schema version {version}, newer than "
                              f"this pokertable knows ({VERSION}): upgrade pokertable or "
                              "restore a backup")
        if version == VERSION:
            return
        if self.readonly:
            raise ConfigError(f"{self.where} holds no {KIND} of this version yet (version "
                              f"{version}): start the recorder on it once")
        with conn.transaction():
            conn.execute("CREATE TABLE IF NOT EXISTS pokertable_schema (kind TEXT PRIMARY KEY, "
                         "version INTEGER NOT NULL)")
            for script in MIGRATIONS[version:]:
                conn.execute(script)
            conn.execute("INSERT INTO pokertable_schema (kind, version) VALUES (%s, %s) "
                         "ON CONFLICT (kind) DO UPDATE SET version = EXCLUDED.version",
                         (KIND, VERSION))

    def _run(self, work: Callable[[Any], T]) -> T:
        """``work(connection)``; a connection found lost is opened again and ``work`` tried
        once more; still failing: `StoreUnavailable` (nothing was kept). A connection opened
        here that fails is not tried again: a server that does not answer costs one
        ``connect_timeout`` (10 s), not two, so the recorder's healer and message handling
        stay within the watchdog's half time (15 s; controller/service/manager.py)."""
        lost = self._psycopg.OperationalError, self._psycopg.InterfaceError
        with self._lock:
            for attempt in (1, 2):
                fresh = self._conn is None or self._conn.closed
                try:
                    if fresh:
                        self._conn = self._connect()
                    return work(self._conn)
                except ConfigError as exc:  # reconnected, and another recorder has the lock
                    self._drop()
                    raise StoreUnavailable(str(exc)) from exc
                except lost as exc:
                    still_there = self._conn is not None and not self._conn.broken
                    if still_there or fresh or attempt == 2:
                        if not still_there:
                            self._drop()
                        raise StoreUnavailable(f"{self.where}: {_first_line(exc)}") from exc
                    self._drop()
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):  # a broken connection: nothing to lose
                self._conn.close()
        self._conn = None

    # ---------------------------------------------------------------- writing

    def add(self, message: SecureRecordMessage, received: float, venue: str = "") -> bool:
        record = message.record
        text = record.model_dump_json()

        def insert(conn: Any) -> bool:
            with conn.transaction():
                row = conn.execute(
                    "INSERT INTO records (venue, id, table_id, hand, started, received, sent, "
                    "record) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (venue, id) DO NOTHING RETURNING seq",
                    (venue, message.id, message.table, message.hand, record.started, received,
                     message.sent, text)).fetchone()
                if row is None:
                    return False
                conn.execute("INSERT INTO hand_players (player, started, seq) "
                             "SELECT unnest(%s::text[]), %s, %s",
                             (players_of(record.players), record.started, row[0]))
                return True
        return self._run(insert)

    def add_event(self, message: EventMessage, received: float, venue: str = "") -> bool:
        assert message.id is not None
        params = (venue, message.id, message.table, message.event.hand, received,
                  message.event.model_dump_json())
        return self._run(lambda conn: conn.execute(
            "INSERT INTO events (venue, id, table_id, hand, received, event) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (venue, id) DO NOTHING RETURNING seq",
            params).fetchone() is not None)

    def adopt(self, venue: str) -> int:
        def name(conn: Any) -> int:
            with conn.transaction():
                named = conn.execute("UPDATE records SET venue = %s WHERE venue = ''",
                                     (venue,)).rowcount
                conn.execute("UPDATE events SET venue = %s WHERE venue = ''", (venue,))
                return int(named)
        return self._run(name)

    # ---------------------------------------------------------------- reading

    def _rows(self, sql: str, params: tuple[object, ...] | list[object] = ()) -> list[Any]:
        return self._run(lambda conn: list(conn.execute(sql, params).fetchall()))

    def records(self, table: str | None = None) -> list[HandRecord]:
        rows = self._rows("SELECT record FROM records WHERE %s::text IS NULL OR table_id = %s "
                          "ORDER BY table_id, hand, received", (table, table))
        return [HandRecord.model_validate_json(row[0]) for row in rows]

    def events(self, table: str | None = None) -> list[PublicEvent]:
        rows = self._rows("SELECT event FROM events WHERE %s::text IS NULL OR table_id = %s "
                          "ORDER BY seq", (table, table))
        return [PublicEvent.model_validate_json(row[0]) for row in rows]

    def search(self, query: HandQuery, venue: str | None = None) -> list[HandRecord]:
        return [hand.record for hand in self.hands(query, venue)]

    def hands(self, query: HandQuery, venue: str | None = None) -> list[KeptHand]:
        sql, params = search_sql(query, venue, POSTGRES)
        return [KeptHand(venue=v, id=i, received=r, sent=s,
                         record=HandRecord.model_validate_json(text))
                for v, i, r, s, text in self._rows(sql, params)]

    def stream(self, query: HandQuery, venue: str | None = None) -> Iterator[KeptHand]:
        sql, params = search_sql(query, venue, POSTGRES)
        lost = self._psycopg.OperationalError, self._psycopg.InterfaceError
        with self._lock:
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = self._connect()
                conn = self._conn
                # a server-side cursor: the rows come over in batches as they are read
                with conn.transaction(), conn.cursor(name="pokertable_stream") as cursor:
                    cursor.itersize = STREAM_BATCH
                    cursor.execute(sql, params)
                    for v, i, r, s, text in cursor:
                        yield KeptHand(venue=v, id=i, received=r, sent=s,
                                       record=HandRecord.model_validate_json(text))
            except lost as exc:
                raise StoreUnavailable(f"{self.where}: {_first_line(exc)}") from exc

    def venues(self) -> list[str]:
        return [str(row[0]) for row in self._rows(VENUES_SQL)]

    def arrivals(self) -> list[tuple[str, str, int, float]]:
        rows = self._rows("SELECT id, table_id, hand, received FROM records ORDER BY seq")
        return [(str(i), str(t), int(h), float(r)) for i, t, h, r in rows]

    def sent_times(self) -> dict[int, float]:
        rows = self._rows("SELECT hand, sent FROM records WHERE sent IS NOT NULL")
        return {int(hand): float(sent) for hand, sent in rows}

    def ids(self) -> list[str]:
        return [str(row[0]) for row in self._rows("SELECT id FROM records ORDER BY seq")]

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM records")[0][0])

    def ping(self) -> None:
        self._rows("SELECT 1")

    def close(self) -> None:
        with self._lock:
            self._drop()  # the advisory lock goes with the session


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


__all__ = ["KIND", "LOCK_KEY", "MIGRATIONS", "VERSION", "PostgresRecordStore", "shown"]
