"""The hand-history recorder's MQTT service: takes every table's full hand records and durable
events (alerts, floor decisions, eliminations) off the broker and keeps each exactly once.

It logs in as ``recorder`` (the only client the ACL lets read ``secure/record``), with a
persistent session (clean start off, a week's session expiry): records published while it is
away wait on the broker. A record is committed to the store (store.py) before paho sends the
PUBACK, and before the recorder tells the table on ``table/<id>/ack`` that it has it: only then
does the table let it go from its outbox (end to end: the broker losing a message cannot lose a
hand). An id it already has is dropped and acknowledged again, so the tables' at-least-once
delivery becomes exactly once here.

It follows one venue, or several (a league's recorder on the league broker, docs/league.md):
its own status is under its own venue (``address.venue``); the records of each venue it
follows are kept under that venue, and acknowledged on that venue's topics. A recorder that is
not the venue's keeper (``keeper=False``: a venue's own copy while a league's recorder keeps
the hands) keeps what it hears and says nothing: no acknowledgement, no status.

A store that fails (a database server restarting) keeps nothing and acknowledges nothing: the
tables keep those records. Once it answers again the recorder says ``online`` again, which
makes every table send what was never confirmed (link.py).

It is a `RoomService` (controller/room/room_service.py): the skeleton's ticker is its store
healer, and systemd's watchdog follows both the healer and its message callbacks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.inputs.json_input import BadJson, loads_bounded
from controller.mqtt.client import BrokerAddress, Login, diagnosis_of
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
from controller.mqtt.topics import ROOT, Topics
from controller.room.recorder.store import RecordStore, StoreUnavailable
from controller.room.room_service import RoomService
from controller.service.manager import Loop

log = logging.getLogger(__name__)

SESSION_EXPIRY = 7 * 24 * 3600
HEAL_SECONDS = 2.0  # how often a failed store is asked whether it is back


class Recorder(RoomService):
    def __init__(self, address: BrokerAddress, login: Login, store: RecordStore,
                 *, client_id: str | None = None, follow: Sequence[str] | None = None,
                 keeper: bool = True) -> None:
        """``follow``: the venues whose records it keeps (default: ``address.venue``);
        ``keeper``: it acknowledges (the tables let a record go on its word alone)."""
        # Its persistent session is kept under its client id, which the broker ties to the
        # login (use_username_as_clientid): no other login can take it over or wipe it. A copy
        # (not the keeper) has no status: no Last Will, no online, no offline.
        super().__init__("recorder", address, login, status=(
            (lambda s: ServiceStatus(service="recorder", status=s)) if keeper else None),
            tick_seconds=HEAL_SECONDS, log=log, client_id=client_id, clean_start=False,
            session_expiry=SESSION_EXPIRY, ready_on_subscribe=False)
        self.store = store
        self.venues = tuple(dict.fromkeys(follow or [address.venue]))
        self.keeper = keeper
        self.received = 0
        self.duplicates = 0
        self.rejected = 0
        self.store_failures = 0
        self._stored = threading.Condition()
        self._healing = threading.Event()  # set while the store has failed
        if len(self.venues) == 1:  # a store from before venues were kept served this one
            named = store.adopt(self.venues[0])
            if named:
                log.info("recorder: the %d records stored before venues were named are venue "
                         "%s's", named, self.venues[0])
        # A venue's broker bridged to a league says so on bridge/status (retained); the ACL of
        # a bridged venue lets its recorder read it, and write no acknowledgement.
        self._bridge_status = self.topics.service("bridge", "status")
        self._bridged = False
        diagnosis_of(self._client).explain_refusal = self._why_refused
        # Mosquitto grants a subscription its ACL refuses, and delivers nothing: a recorder
        # with the wrong venue would keep nothing, quietly. Its silence is said instead.
        self._subscriptions = tuple(topic for venue in self.venues for topic in (
            Topics(venue).table("+", "secure/record"), Topics(venue).table("+", "event")))
        diagnosis_of(self._client).watch(self._subscriptions, address.quiet)
        for venue in self.venues:
            self.routes.on_raw(Topics(venue).table("+", "secure/record"), self._record, qos=1)
            self.routes.on_raw(Topics(venue).table("+", "event"), self._event, qos=1)
        if keeper:
            self.routes.on_raw(self._bridge_status, self._bridge, qos=1)
        # systemd's watchdog: a record write that never returns stops the pings (as does a
        # store healer stuck in its ping: the skeleton's ticker, `self.loop`).
        self.callbacks = Loop("recorder's MQTT callbacks", beats=False)

    def loops(self) -> list[Loop]:
        return [self.loop, self.callbacks]

    def wait_for(self, count: int, timeout: float = 10.0) -> bool:
        """Block until the store holds ``count`` records (tests, the demo)."""
        def enough() -> bool:
            try:
                return self.store.count() >= count
            except StoreUnavailable:
                return False

        with self._stored:
            return self._stored.wait_for(enough, timeout)

    def _said_online(self) -> None:
        # The skeleton subscribed first (the broker keeps one client's packets in order), then
        # said online: the tables answer it by sending again whatever the recorder has not
        # confirmed, which a broker that lost its persistence no longer holds. (And a bridged
        # venue's retained bridge status has come before the broker refuses that online:
        # `_why_refused`.) `connected` is set after this.
        try:
            kept = f"{self.store.count()} records kept so far"
        except StoreUnavailable as exc:
            kept = f"the store does not answer ({exc})"
            self._store_failed()
        log.info("recorder: connected to %s:%d (%s), following %s; %s", self.address.host,
                 self.address.port, "the keeper" if self.keeper else "a copy, not the keeper",
                 ", ".join(self.venues), kept)

    def _why_refused(self, reason: ReasonCode) -> str | None:
        """A keeper refused at a venue bridged to a league: the league's recorder is the keeper
        there (said once a minute by the client's diagnosis while it lasts). Anywhere else a
        refusal means a wrong venue, which the diagnosis says itself."""
        if not (self.keeper and self._bridged):
            return None
        return (f"the broker refused this recorder's acknowledgement or status ({reason}): "
                "this venue is bridged to a league, whose recorder is the keeper "
                "(docs/league.md). The tables keep their records; run this one as a copy: "
                "keeper = false in recorder.toml (--copy)")

    def _store_failed(self) -> None:
        self.store_failures += 1
        self._healing.set()

    def _tick(self) -> None:
        """Every HEAL_SECONDS while the store fails, ask it; back: say online again, and every
        table sends what it still holds (the recorder drops what it has)."""
        if not self._healing.is_set():
            return
        try:
            self.store.ping()
        except StoreUnavailable:
            return
        self._healing.clear()
        log.warning("recorder: the store %s answers again; the tables send again what it "
                    "did not confirm", self.store.where)
        if self.connected.is_set():
            self._say("online")

    def _handle(self, message: mqtt.MQTTMessage) -> None:
        # Its own guard (the skeleton's sees nothing): a store that fails is counted apart
        # from a message that is wrong.
        with self.callbacks.busy():
            try:
                self.routes.dispatch(message)
            except StoreUnavailable as exc:  # not acknowledged: the table keeps it
                self._store_failed()
                log.error("recorder: could not keep the message on %s: %s; its table keeps "
                          "it and sends it again when the store answers", message.topic, exc)
            except Exception:  # one bad message never stops the recorder
                self.rejected += 1
                log.exception("recorder: a message on %s could not be kept", message.topic)

    def _bridge(self, message: mqtt.MQTTMessage) -> None:
        self._bridged = True  # "1" or "0": the bridge is configured, up or not

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
        venue = None if record is None else self._venue_of(message.topic, record.table,
                                                           "secure/record")
        if record is None or venue is None:
            return
        if self.store.add(record, time.time(), venue):
            log.info("recorder: kept %s table %s hand %d (%s)", venue, record.table,
                     record.hand, record.id)
        else:
            self.duplicates += 1
            log.info("recorder: %s of %s again: a duplicate, dropped", record.id, venue)
        self._acknowledge(venue, record.table, record.id)
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
        venue = self._venue_of(message.topic, event.table, "event")
        if venue is None:
            return
        if not self.store.add_event(event, time.time(), venue):
            self.duplicates += 1
        self._acknowledge(venue, event.table, event.id)

    def _venue_of(self, topic: str, table: str, leaf: str) -> str | None:
        """The venue of a message from ``table`` on ``topic``; None (counted, logged) unless
        the topic is that table's own, in a venue followed."""
        venue = topic.removeprefix(ROOT + "/").split("/", 1)[0]
        if venue in self.venues and topic == Topics(venue).table(table, leaf):
            return venue
        # The ACL lets a table write only its own subtree: the topic vouches for the table.
        self.rejected += 1
        log.warning("recorder: a message of table %s arrived on %s: ignored", table, topic)
        return None

    def _acknowledge(self, venue: str, table: str, message_id: str) -> None:
        """Committed to the store: the table may let it go (if this recorder is its keeper)."""
        if self.keeper:
            self._client.publish(Topics(venue).table(table, "ack"),
                                 encode(KeptMessage(table=table, ids=[message_id])), qos=1)


__all__ = ["Recorder"]
