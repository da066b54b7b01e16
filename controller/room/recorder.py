"""The hand-history recorder: takes every table's full hand records off the broker and keeps
each hand exactly once.

It logs in as ``recorder`` (the only client the ACL lets read ``secure/record``), with a
persistent session (clean start off, a week's session expiry): records published while it is
away wait on the broker. A record is on disk (SQLite, ``synchronous=FULL``) before paho sends the
PUBACK, and a record id it already has is dropped, so the tables' at-least-once delivery becomes
exactly once here.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.engine.records import HandRecord
from controller.mqtt.client import BrokerAddress, Login, connect, new_client
from controller.mqtt.messages import BadMessage, SecureRecordMessage, decode
from controller.mqtt.topics import Topics
from controller.private_files import private_file

log = logging.getLogger(__name__)

SESSION_EXPIRY = 7 * 24 * 3600

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    received REAL NOT NULL,
    record TEXT NOT NULL,
    sent REAL
);
"""


class RecordStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        private_file(self.path)  # every hole card is in here: 0600 from the start
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(records)")}
        if "sent" not in columns:  # a store from before the table's send time was kept
            self._db.execute("ALTER TABLE records ADD COLUMN sent REAL")

    def add(self, message: SecureRecordMessage, received: float) -> bool:
        """Keep the record; False if its id is already here (a duplicate delivery)."""
        with self._lock:
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO records (id, table_id, hand, received, record, sent) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (message.id, message.table, message.hand, received,
                 message.record.model_dump_json(), message.sent))
            return cursor.rowcount == 1

    def records(self, table: str | None = None) -> list[HandRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT record FROM records WHERE ? IS NULL OR table_id = ? "
                "ORDER BY table_id, hand, received", (table, table)).fetchall()
        return [HandRecord.model_validate_json(row[0]) for row in rows]

    def arrivals(self) -> list[tuple[str, str, int, float]]:
        """(id, table, hand, received wall time) of every record, in arrival order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, table_id, hand, received FROM records ORDER BY rowid").fetchall()
        return [(str(i), str(t), int(h), float(r)) for i, t, h, r in rows]

    def sent_times(self) -> dict[int, float]:
        """Hand -> when its table sent the record (the table's clock), for every record that
        says so."""
        with self._lock:
            rows = self._db.execute(
                "SELECT hand, sent FROM records WHERE sent IS NOT NULL").fetchall()
        return {int(hand): float(sent) for hand, sent in rows}

    def ids(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT id FROM records ORDER BY rowid")]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class Recorder:
    def __init__(self, address: BrokerAddress, login: Login, store: RecordStore,
                 *, client_id: str | None = None) -> None:
        self.address = address
        self.store = store
        self.topics = Topics(address.venue)
        self.connected = threading.Event()
        self.received = 0
        self.duplicates = 0
        self.rejected = 0
        self._stored = threading.Condition()
        # Its persistent session is kept under its client id, which the broker ties to the
        # login (use_username_as_clientid): no other login can take it over or wipe it.
        self._client = new_client(client_id or login.username, login, address, clean_start=False,
                                  session_expiry=SESSION_EXPIRY)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *_: self.connected.clear()
        self._client.on_message = self._on_message

    def start(self) -> Recorder:
        connect(self._client, self.address)
        return self

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def wait_for(self, count: int, timeout: float = 10.0) -> bool:
        """Block until the store holds ``count`` records (tests, the demo)."""
        with self._stored:
            return self._stored.wait_for(lambda: len(self.store.ids()) >= count, timeout)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:
            log.error("recorder: the broker refused the connection: %s", reason)
            return
        client.subscribe(self.topics.table("+", "secure/record"), qos=1)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.received += 1
        try:
            record = decode(SecureRecordMessage, message.payload)
        except BadMessage as exc:
            self.rejected += 1
            log.warning("recorder: ignored a message on %s: %s", message.topic, exc)
            return
        if message.topic != self.topics.table(record.table, "secure/record"):
            # The ACL lets a table write only its own subtree: the topic vouches for the table.
            self.rejected += 1
            log.warning("recorder: a record of table %s arrived on %s: ignored", record.table,
                        message.topic)
            return
        if not self.store.add(record, time.time()):
            self.duplicates += 1
            log.info("recorder: %s again: a duplicate, dropped", record.id)
        with self._stored:
            self._stored.notify_all()


__all__ = ["RecordStore", "Recorder"]
