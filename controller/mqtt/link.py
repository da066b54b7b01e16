"""The table's MQTT side: a `Sink` that publishes the table to the venue's broker, and the
command topics that reach the table.

Out: ``status`` (retained ``online``; ``offline`` as Last Will and on a clean stop), ``state``
(retained, every change), ``event`` (public events), ``record`` (public part of each hand) and
``secure/record`` (the full hand, for the recorder). Records, irregularities and eliminations go
through the durable `Outbox`: the full record and the durable events leave it only when the
recorder says it stored them (``ack``), and go out again at every reconnect until it does;
the public record leaves at the broker's PUBACK. Everything else is live and simply not sent
while the broker is away (the retained state catches a reconnecting display up at once). The
table never waits for the broker.

In: ``cmd/<name>`` (validated `CommandRequest`, a known command, then the table's own rules
decide; the answer goes to ``reply`` with the request's correlation data; a retained command is
ignored, and a command id the table has applied before is answered without acting again) and
the clock's ``state`` (a new level, applied from the next hand, PVB 14(2)). Commands are never
queued for a table that is offline (clean start): a floor decision is taken on what the floor
sees now.
Hardware events (cards, chips, the shuffle button, the dealer's keys) have no command topic:
nobody on the network can deal a card.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode
from pydantic import ValidationError

from controller.engine.records import HandRecord
from controller.errors import first_error
from controller.events import CommandEvent, LevelEvent, SeatEvent, TableEvent
from controller.mqtt.client import (
    BrokerAddress,
    Login,
    connect,
    disconnect,
    new_client,
    publish_reply,
)
from controller.mqtt.messages import (
    BadMessage,
    ClockState,
    CommandReply,
    CommandRequest,
    EventMessage,
    KeptMessage,
    RecordMessage,
    SecureRecordMessage,
    ServiceStatus,
    StateMessage,
    StatusMessage,
    TimeReply,
    TimeRequest,
    decode,
    encode,
)
from controller.mqtt.outbox import Outbox
from controller.mqtt.routes import Router
from controller.mqtt.topics import Topics
from controller.session import FLOOR_COMMANDS, Step
from controller.session.outputs import PublicEvent, TableState, hand_id

log = logging.getLogger(__name__)

SYNC_SAMPLES = 16  # the exchanges the time sync keeps; the smallest round trip among them wins
SYNC_SECONDS = 2.0  # between exchanges once the first samples are in (a 32 s window)

# Besides the floor's decisions: seating a player and the clock's level.
TABLE_COMMANDS = FLOOR_COMMANDS | {"seat", "level"}

Submit = Callable[[TableEvent, Callable[[Step], None]], None]


class TableLink:
    """One table's connection to the broker. Sink methods are called from the table loop;
    paho calls the ``_on_*`` methods from its network thread."""

    def __init__(self, address: BrokerAddress, login: Login, table_id: str, outbox: Outbox,
                 *, clock: Callable[[], float] = time.time) -> None:
        self.address = address
        self.table_id = table_id
        self.outbox = outbox
        self.topics = Topics(address.venue)
        self._clock = clock
        self._submit: Submit | None = None
        self.connected = threading.Event()
        self.listening = threading.Event()  # the broker confirmed the command subscriptions
        self._closing = False
        self.clock_offset: float | None = None  # the clock's time minus ours, seconds
        self.clock_rtt: float | None = None  # the round trip of the sample it comes from
        self._samples: collections.deque[tuple[float, float]] = collections.deque(
            maxlen=SYNC_SAMPLES)  # (round trip, offset) of the latest exchanges
        self._level_ends_at: float | None = None
        self._level_paused_left: float | None = None  # the clock is paused with this much left
        self._sync_stop = threading.Event()
        self._sync_thread: threading.Thread | None = None
        self._seq = 0
        self._latest_state: bytes | None = None
        self._state: TableState | None = None
        self._flush_lock = threading.Lock()
        self._ack_lock = threading.Lock()
        self._inflight: dict[int, int] = {}  # paho mid -> outbox seq
        self._early_acks: set[int] = set()
        self.dropped_live = 0  # live messages not sent while the broker was away
        self.kept = 0  # outbox messages the recorder confirmed
        self._client = new_client(
            login.username, login, address,  # the broker makes a client id its login anyway
            will=(self._topic("status"), StatusMessage(table=table_id, status="offline")))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        self._client.on_subscribe = lambda *_: self.listening.set()
        self.routes = self._routed()

    def _routed(self) -> Router:
        """What the table hears, in one table (controller/mqtt/routes.py): the floor's commands
        (kept retained as published, so that one left retained is never taken as live), the
        recorder's acknowledgements, the recorder's status, the clock's state and the clock's
        answers to this table's time requests (QoS 0: a late answer is worth nothing)."""
        routes = Router()
        routes.on_raw(self._topic("cmd/+"), self._command, qos=1, commands=True)
        routes.on(self._topic("ack"), KeptMessage, self._kept, qos=1)
        routes.on(self.topics.service("recorder", "status"), ServiceStatus,
                  lambda _, status: self._recorder_status(status), qos=1)
        routes.on(self.topics.clock("state"), ClockState,
                  lambda _, clock: self._clock_state(clock), qos=1)
        routes.on(self.topics.clock(f"time/{self.table_id}"), TimeReply,
                  lambda _, reply: self._time_reply(reply))
        return routes

    def _topic(self, leaf: str) -> str:
        return self.topics.table(self.table_id, leaf)

    # ---------------------------------------------------------------- life cycle

    def start(self, submit: Submit | None = None) -> TableLink:
        """Connect in the background; ``submit`` hands commands to the table service."""
        self._submit = submit
        connect(self._client, self.address)
        self._sync_thread = threading.Thread(target=self._sync, name="clock-sync", daemon=True)
        self._sync_thread.start()
        return self

    def wait_delivered(self, timeout: float) -> bool:
        """Block until the outbox holds nothing unconfirmed (a clean stop lets the last records
        reach the recorder); False if ``timeout`` passed first (they stay, and go next time)."""
        deadline = time.monotonic() + timeout
        while self.outbox.count_pending():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Say ``offline`` (retained) if connected, then disconnect."""
        self._closing = True
        self._sync_stop.set()
        if self.connected.is_set():
            info = self._client.publish(self._topic("status"),
                                        encode(StatusMessage(table=self.table_id,
                                                             status="offline")),
                                        qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):  # gone meanwhile: the Will says it
                info.wait_for_publish(timeout)
        disconnect(self._client)

    # ---------------------------------------------------------------- Sink (table loop)

    def state(self, state: TableState) -> None:
        self._state = state
        self._seq += 1
        now = self._clock()
        remaining = self._level_paused_left
        if self._level_ends_at is not None and self.clock_offset is not None:
            remaining = max(0.0, self._level_ends_at - (now + self.clock_offset))
        payload = encode(StateMessage(table=self.table_id, seq=self._seq, sent=now, state=state,
                                      clock_offset=self.clock_offset, clock_rtt=self.clock_rtt,
                                      level_ends_at=self._level_ends_at,
                                      level_remaining=remaining))
        self._latest_state = payload
        self._live(self._topic("state"), payload, retain=True)
        # Give up the GIL for a moment: paho's network thread writes the state now rather than
        # after the rest of the step (bench/mqtt.py: about 0.2 ms off the p50).
        time.sleep(0)

    def event(self, event: PublicEvent) -> None:
        message = EventMessage(table=self.table_id, id=event.id, sent=self._clock(),
                               event=event)
        if event.id is not None:  # an irregularity, a decision, an elimination: durable
            self.outbox.put([(event.id, self._topic("event"), encode(message), True)])
            self.flush()
        else:
            self._live(self._topic("event"), encode(message))

    def recovered(self, events: list[PublicEvent]) -> None:
        new = self.outbox.put([
            (e.id, self._topic("event"),
             encode(EventMessage(table=self.table_id, id=e.id, sent=self._clock(), event=e)),
             True)
            for e in events if e.id is not None
        ])
        if new:
            log.warning("table %s: %d irregularities from before the restart were not yet in "
                        "the outbox; they go out now", self.table_id, new)
        self.flush()

    def record(self, record: HandRecord) -> None:
        key = hand_id(record.table, record.hand, record.started)
        now = self._clock()
        public = RecordMessage(id=key, table=record.table, hand=record.hand, sent=now,
                               record=record.public())
        full = SecureRecordMessage(id=key, table=record.table, hand=record.hand, sent=now,
                                   record=record)
        # The full record waits for the recorder's word; the public copy is done at PUBACK.
        self.outbox.put([(key, self._topic("record"), encode(public), False),
                         (key, self._topic("secure/record"), encode(full), True)])
        self.flush()

    def _live(self, topic: str, payload: bytes, retain: bool = False) -> None:
        if not self.connected.is_set():
            self.dropped_live += 1
            return
        self._client.publish(topic, payload, qos=1, retain=retain)

    # ---------------------------------------------------------------- the outbox

    def flush(self) -> None:
        """Send what the outbox holds and the broker has not acknowledged, oldest first."""
        if not self.connected.is_set():
            return
        with self._flush_lock:
            with self._ack_lock:
                inflight = set(self._inflight.values())
            for item in self.outbox.pending():
                if item.seq in inflight:
                    continue
                info = self._client.publish(item.topic, item.payload, qos=1)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    break  # the connection dropped: on_connect flushes again
                with self._ack_lock:
                    if info.mid in self._early_acks:  # acknowledged before we noted it
                        self._early_acks.discard(info.mid)
                        self.outbox.mark_sent(item.seq)
                    else:
                        self._inflight[info.mid] = item.seq

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:  # the ACL: its diagnosis says so (client.py), once a minute
            with self._ack_lock:
                self._inflight.pop(mid, None)
            return
        with self._ack_lock:  # popped and marked at once, or a flush in between sends it again
            seq = self._inflight.pop(mid, None)
            if seq is None:
                self._early_acks.add(mid)
            else:
                self.outbox.mark_sent(seq)

    # ---------------------------------------------------------------- connection

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:  # its diagnosis says why (client.py)
            return
        with self._ack_lock:  # whatever was in flight goes again (receivers drop duplicates)
            self._inflight.clear()
            self._early_acks.clear()
        client.subscribe(self.routes.subscriptions())
        # What the broker took before but the recorder never confirmed goes out again: the
        # broker may have lost it (the recorder drops what it already has).
        self.outbox.resend_unkept()
        client.publish(self._topic("status"),
                       encode(StatusMessage(table=self.table_id, status="online")),
                       qos=1, retain=True)
        self.connected.set()
        if self._latest_state is not None:
            client.publish(self._topic("state"), self._latest_state, qos=1, retain=True)
        log.info("table %s: connected to the broker; %d messages waiting in the outbox",
                 self.table_id, self.outbox.count_pending())
        self.flush()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any,
                       reason: ReasonCode, properties: Any) -> None:
        self.listening.clear()
        if self.connected.is_set() and not self._closing:
            log.warning("table %s: lost the broker (%s); playing on, reconnecting",
                        self.table_id, reason)
        self.connected.clear()

    # ---------------------------------------------------------------- commands and clock

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            self.routes.dispatch(message)
        except BadMessage as exc:
            log.warning("table %s: ignored a message on %s: %s", self.table_id, message.topic,
                        exc)
        except Exception:  # a bad message never stops the network thread
            log.exception("table %s: a message on %s could not be handled", self.table_id,
                          message.topic)

    # ---------------------------------------------------------------- time sync

    def _sync(self) -> None:
        """Ask the clock for its time: a few quick exchanges after start-up, then every
        ``SYNC_SECONDS``; a Pi's wall clock may be minutes wrong, the time it shows must not."""
        asked = 0
        while not self._sync_stop.wait(0.2 if asked < SYNC_SAMPLES else SYNC_SECONDS):
            if self.connected.is_set():
                self._client.publish(self._topic("time"), encode(TimeRequest(t0=self._clock())),
                                     qos=0)
                asked += 1

    def _time_reply(self, reply: TimeReply) -> None:
        """NTP's estimate: the sample with the smallest round trip among the recent ones is
        the one least disturbed by a one-way delay."""
        arrived = self._clock()
        rtt = (arrived - reply.t0) - (reply.sent - reply.received)
        if rtt < 0 or rtt > 10:
            return  # not an answer to a request of ours in this run
        offset = ((reply.received - reply.t0) + (reply.sent - arrived)) / 2
        self._samples.append((rtt, offset))
        self.clock_rtt, self.clock_offset = min(self._samples)

    def _recorder_status(self, status: ServiceStatus) -> None:
        """The recorder is (back) online: what it never confirmed may be lost on the broker's
        side (a crash, persistence gone), so it goes again; the recorder drops what it has."""
        if status.status == "online" and self.outbox.resend_unkept():
            self.flush()

    def _kept(self, message: mqtt.MQTTMessage, kept: KeptMessage) -> None:
        self.kept += self.outbox.mark_kept(kept.ids)

    def _clock_state(self, clock: ClockState) -> None:
        self._level_ends_at = clock.ends_at
        self._level_paused_left = clock.remaining if clock.ends_at is None else None
        state = self._state
        if state is not None and (
                state.pending_level == clock.level or (
                    state.pending_level is None and state.level == clock.level
                    and (state.blinds.sb, state.blinds.bb, state.blinds.ante,
                         state.blinds.bb_ante) == (clock.sb, clock.bb, clock.ante,
                                                   clock.bb_ante))):
            return  # the table has this level already, or from its next hand
        # A level number alone is not enough: a table configured with level 1 at 50/100 takes
        # the clock's level 1 at 25/50 (it kept its own before).
        if self._submit is not None:
            self._submit(LevelEvent(level=clock.level, sb=clock.sb, bb=clock.bb, ante=clock.ante,
                                    bb_ante=clock.bb_ante, smallest_chip=clock.smallest_chip,
                                    ts=self._clock()), lambda step: None)

    def _command(self, message: mqtt.MQTTMessage) -> None:
        name = message.topic.removeprefix(self._topic("cmd/"))
        if message.retain:
            # A command left retained on the broker would run again at every subscribe (after
            # a restart, a reconnect): a decision is taken once, on what the floor sees now.
            log.warning("table %s: ignored a retained command on %s: commands are never "
                        "retained", self.table_id, message.topic)
            return
        correlation = getattr(message.properties, "CorrelationData", None)
        try:
            request = decode(CommandRequest, message.payload)
        except BadMessage as exc:
            self._reply(name, None, correlation, "error", f"malformed command: {exc}")
            return
        if name not in TABLE_COMMANDS:
            known = ", ".join(sorted(TABLE_COMMANDS))
            self._reply(name, request.id, correlation, "error",
                        f"unknown command {name!r}; the table knows: {known}")
            return
        try:
            event = self._event_for(name, request)
        except ValidationError as exc:
            self._reply(name, request.id, correlation, "error",
                        f"invalid arguments for {name}: {first_error(exc, 'args')}")
            return
        if self._submit is None:
            self._reply(name, request.id, correlation, "error", "the table is starting")
            return

        def answer(step: Step) -> None:
            refused = next((e for e in step.events if e.kind == "refused"), None)
            if refused is not None:
                self._reply(name, request.id, correlation, "error", refused.text, refused.rule)
            else:
                said = "; ".join(e.text for e in step.events) or (
                    "done" if step.changed else "nothing to change")
                self._reply(name, request.id, correlation, "ok", said)

        self._submit(event, answer)

    def _event_for(self, name: str, request: CommandRequest) -> TableEvent:
        now = self._clock()
        if name == "seat":
            return SeatEvent.model_validate({**request.args, "ts": now,
                                             "command_id": request.id})
        if name == "level":
            return LevelEvent.model_validate({**request.args, "ts": now,
                                              "command_id": request.id})
        return CommandEvent(name=name, args=request.args, by=request.by, ts=now,
                            command_id=request.id)

    def _reply(self, command: str, request_id: str | None, correlation: bytes | None,
               status: str, reason: str, rule: str | None = None) -> None:
        reply = CommandReply(table=self.table_id, command=command[:80], id=request_id,
                             status="ok" if status == "ok" else "error", reason=reason, rule=rule)
        if status != "ok":
            log.warning("table %s: command %r refused: %s", self.table_id, command[:80], reason)
        publish_reply(self._client, self._topic("reply"), reply, correlation)


__all__ = ["TABLE_COMMANDS", "TableLink"]
