"""The hand-history recorder: takes every table's full hand records and durable events (alerts,
floor decisions, eliminations) off the broker and keeps each exactly once.

It logs in as ``recorder`` (the only client the ACL lets read ``secure/record``), with a
persistent session (clean start off, a week's session expiry): records published while it is
away wait on the broker. A record is on disk (SQLite, ``synchronous=FULL``) before paho sends the
PUBACK, and before the recorder tells the table on ``table/<id>/ack`` that it has it: only then
does the table let it go from its outbox (end to end: the broker losing a message cannot lose a
hand). An id it already has is dropped and acknowledged again, so the tables' at-least-once
delivery becomes exactly once here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.engine.records import HandRecord
from controller.json_input import BadJson, loads_bounded
from controller.mqtt.client import (
    BrokerAddress,
    Login,
    connect,
    diagnosis_of,
    disconnect,
    new_client,
)
from controller.mqtt.messages import (
    BadMessage,
    EventMessage,
    KeptMessage,
    M,
    SecureRecordMessage,
    ServiceStatus,
    decode,
    encode,
)
from controller.mqtt.topics import Topics
from controller.service_manager import Loop
from controller.session.outputs import PublicEvent
from controller.sqlite_store import StoreKind, add_columns, chain, open_store, statements

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
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    received REAL NOT NULL,
    event TEXT NOT NULL
);
"""

# Schema versions (controller/sqlite_store.py). 1: the layout before versions were counted; a
# store from before the table's send time was kept lacks records.sent.
KIND = StoreKind("record store", 0x50540003, (
    chain(statements(SCHEMA), add_columns("records", [("sent", "REAL")])),
), tables=frozenset({"records", "events"}))


class RecordStore:
    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """``readonly``: to read the hands while the recorder keeps writing (no lock)."""
        self.path = Path(path)
        self._lock = threading.Lock()
        # Every hole card is in here: 0600 from the start; one recorder per store.
        self._store = open_store(self.path, KIND, readonly=readonly)
        self._db = self._store.db

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

    def add_event(self, message: EventMessage, received: float) -> bool:
        """Keep a durable event; False if its id is already here."""
        assert message.id is not None
        with self._lock:
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO events (id, table_id, hand, received, event) "
                "VALUES (?, ?, ?, ?, ?)",
                (message.id, message.table, message.event.hand, received,
                 message.event.model_dump_json()))
            return cursor.rowcount == 1

    def events(self, table: str | None = None) -> list[PublicEvent]:
        """The durable events kept (irregularities, decisions, eliminations), in arrival order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT event FROM events WHERE ? IS NULL OR table_id = ? ORDER BY rowid",
                (table, table)).fetchall()
        return [PublicEvent.model_validate_json(row[0]) for row in rows]

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
            self._store.close()


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
        self._status = self.topics.service("recorder", "status")
        self._client = new_client(client_id or login.username, login, address, clean_start=False,
                                  session_expiry=SESSION_EXPIRY,
                                  will=(self._status, ServiceStatus(service="recorder",
                                                                    status="offline")))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *_: self.connected.clear()
        self._client.on_message = self._guarded
        # Mosquitto grants a subscription its ACL refuses, and delivers nothing: a recorder
        # with the wrong venue would keep nothing, quietly. Its silence is said instead.
        self._subscriptions = (self.topics.table("+", "secure/record"),
                               self.topics.table("+", "event"))
        diagnosis_of(self._client).watch(self._subscriptions, address.quiet)
        # systemd's watchdog: a record write that never returns stops the pings.
        self.loop = Loop("recorder's MQTT callbacks", beats=False)

    def loops(self) -> list[Loop]:
        return [self.loop]

    def _guarded(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.loop.busy():
            self._on_message(client, userdata, message)

    def start(self) -> Recorder:
        connect(self._client, self.address)
        return self

    def close(self) -> None:
        if self.connected.is_set():
            info = self._client.publish(
                self._status, encode(ServiceStatus(service="recorder", status="offline")),
                qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):  # gone: the Will says it
                info.wait_for_publish(2.0)
        disconnect(self._client)

    def wait_for(self, count: int, timeout: float = 10.0) -> bool:
        """Block until the store holds ``count`` records (tests, the demo)."""
        with self._stored:
            return self._stored.wait_for(lambda: len(self.store.ids()) >= count, timeout)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:  # its diagnosis says why (client.py)
            return
        client.subscribe([(topic, 1) for topic in self._subscriptions])
        # Subscribed first (the broker keeps one client's packets in order), then online: the
        # tables answer it by sending again whatever the recorder has not confirmed, which a
        # broker that lost its persistence no longer holds.
        client.publish(self._status, encode(ServiceStatus(service="recorder", status="online")),
                       qos=1, retain=True)
        log.info("recorder: connected to %s:%d, %d records kept so far", self.address.host,
                 self.address.port, len(self.store.ids()))
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            if message.topic.endswith("/secure/record"):
                self._record(message)
            elif message.topic.endswith("/event"):
                self._event(message)
        except Exception:  # one bad message never stops the recorder
            self.rejected += 1
            log.exception("recorder: a message on %s could not be kept", message.topic)

    def _decoded(self, model: type[M], message: mqtt.MQTTMessage) -> M | None:
        try:
            return decode(model, message.payload)
        except BadMessage as exc:
            self.rejected += 1
            log.warning("recorder: ignored a message on %s: %s", message.topic, exc)
            return None

    def _record(self, message: mqtt.MQTTMessage) -> None:
        self.received += 1
        record = self._decoded(SecureRecordMessage, message)
        if record is None or not self._from_its_table(message.topic, record.table,
                                                       "secure/record"):
            return
        if self.store.add(record, time.time()):
            log.info("recorder: kept table %s hand %d (%s)", record.table, record.hand,
                     record.id)
        else:
            self.duplicates += 1
            log.info("recorder: %s again: a duplicate, dropped", record.id)
        self._acknowledge(record.table, record.id)
        with self._stored:
            self._stored.notify_all()

    def _event(self, message: mqtt.MQTTMessage) -> None:
        # Most events are live (no id): a plain JSON look, far cheaper than the model, lets
        # them pass; only durable ones are validated and kept.
        try:
            if loads_bounded(message.payload).get("id") is None:
                return
        except (BadJson, AttributeError):
            pass  # not JSON, or not an object: decode below says what is wrong
        event = self._decoded(EventMessage, message)
        if event is None or event.id is None:
            return  # a live event: the tables' state tells it, nothing to keep
        self.received += 1
        if not self._from_its_table(message.topic, event.table, "event"):
            return
        if not self.store.add_event(event, time.time()):
            self.duplicates += 1
        self._acknowledge(event.table, event.id)

    def _from_its_table(self, topic: str, table: str, leaf: str) -> bool:
        if topic == self.topics.table(table, leaf):
            return True
        # The ACL lets a table write only its own subtree: the topic vouches for the table.
        self.rejected += 1
        log.warning("recorder: a message of table %s arrived on %s: ignored", table, topic)
        return False

    def _acknowledge(self, table: str, message_id: str) -> None:
        """Stored (and on disk): the table may let it go."""
        self._client.publish(self.topics.table(table, "ack"),
                             encode(KeptMessage(table=table, ids=[message_id])), qos=1)


__all__ = ["RecordStore", "Recorder"]
