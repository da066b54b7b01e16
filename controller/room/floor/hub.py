"""The floor server's one dispatcher: MQTT in, browser pushes out.

One MQTT client (the ``floor`` login) for the whole server. Its network thread hands every
message to the web server's event loop, which alone owns the room model: decoded, applied,
turned into updates, each serialized once into the Server-Sent Event it goes out as, and those
bytes queued to every screen that wants it (nothing is encoded per screen). A screen too slow
to keep up is dropped; its browser reconnects and starts again from a snapshot.
Commands from the page go out with a unique id and their correlation data; the answer comes
back on the table's or the clock's ``reply`` topic and is handed to the request that waits.

It follows one venue (its own, ``address.venue``), or several (``follow``: a floor on a league's
host, docs/league.md), each venue's messages to that venue's room. A floor that follows any
venue but its own only watches: the league's broker lets its login send no command, and the
decisions are each venue's own floor's, so it sends none and says why.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.engine.records import HandRecord
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
    ClockState,
    ClockTime,
    CommandReply,
    CommandRequest,
    EventMessage,
    RecordMessage,
    ServiceStatus,
    StateMessage,
    StatusMessage,
    TournamentState,
    decode,
    encode,
)
from controller.mqtt.routes import Router
from controller.mqtt.topics import ROOT, Topics
from controller.room.cash.view import CashContacts, CashState, CashStatus
from controller.room.floor.league import League
from controller.room.floor.model import Room, RoomUpdate
from controller.room.floor.store import FloorStore
from controller.service.manager import Loop

log = logging.getLogger(__name__)

# A route's handler on the loop: (topic, payload, when it came, its correlation data)
Heard = Callable[[str, bytes, float, bytes | None], None]

MAX_SCREENS = 500  # open push streams: a room's screens, far from what a hostile client may try
# ... from one address: a laptop's tabs or a TV wall's windows, never all of them, so that one
# client cannot starve the room's TVs (behind a local TLS proxy, uvicorn takes the address
# from X-Forwarded-For)
MAX_SCREENS_PER_ADDRESS = 20
QUEUE_LIMIT = 2000  # pushes a screen may fall behind before it is dropped (it reconnects)
REPLY_SECONDS = 5.0  # how long a command from the page waits for its answer
CLOCK_SAMPLES = 16  # the clock's time announcements the server's offset estimate keeps
TICK_AFTER = 2.0  # seconds after a (re)connect before the room's time runs (retained first)


def sse_frame(kind: str, data: str) -> bytes:
    """One Server-Sent Event as it goes on the wire (what sse-starlette makes of ``{"event":
    kind, "data": data}``, made once for all screens): ``data`` is JSON, one line (a line break
    in a string is escaped), so it is one ``data:`` line."""
    return f"event: {kind}\r\ndata: {data}\r\n\r\n".encode()


@dataclass(eq=False)
class Screen:
    """One browser's push stream: what it wants and what waits to go to it."""

    kinds: frozenset[str]
    table: str | None = None
    address: str = ""
    venue: str | None = None  # with ``table``, on a floor following several venues
    queue: asyncio.Queue[bytes | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))

    def end(self) -> None:
        """What waits is dropped; the stream ends at its next read."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

    def wants(self, update: RoomUpdate) -> bool:
        if update.kind not in self.kinds:
            return False
        if self.table is None:
            return True
        if update.kind == "table":
            return update.table is not None and update.table.table == self.table and (
                update.table.venue == self.venue)
        if update.kind == "event":
            return update.event_table == self.table and update.venue == self.venue
        return True


class Hub:
    def __init__(self, address: BrokerAddress, login: Login, store: FloorStore, *,
                 now: Callable[[], float] = time.time, keep_hands_days: int = 30,
                 follow: Sequence[str] | None = None) -> None:
        """``follow``: the venues it shows (default: ``address.venue``, its own); the
        recorder's status is read under ``address.venue`` (a league's name on its host)."""
        self.address = address
        self.topics = Topics(address.venue)
        self.venues = tuple(dict.fromkeys(follow or [address.venue]))
        self.read_only = self.venues != (address.venue,)
        self.store = store
        self.room: Room | League
        if len(self.venues) == 1:
            self.room = Room()
            self.rooms = {self.venues[0]: self.room}
            named = store.adopt(self.venues[0])  # hands kept before the store knew venues
            if named:
                log.info("floor: the %d hands kept before venues were named are venue %s's",
                         named, self.venues[0])
        else:
            self.room = League(self.venues)
            self.rooms = self.room.rooms
        self.room.restore_alerts(store.open_alerts(), {a for a, _, _ in store.acknowledged()})
        self.screens: set[Screen] = set()
        self.max_screens = MAX_SCREENS
        self.max_screens_per_address = MAX_SCREENS_PER_ADDRESS
        self._now = now
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: dict[bytes, asyncio.Future[CommandReply]] = {}
        self._clock_samples: collections.deque[float] = collections.deque(maxlen=CLOCK_SAMPLES)
        self._client = new_client(login.username, login, address)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        # Set once the broker has granted the subscriptions: from then on nothing published
        # to the room passes the floor by.
        self.subscribed = threading.Event()
        self._client.on_subscribe = lambda *_: self.subscribed.set()
        self._client.on_message = self._on_message
        self.routes = self._routed()
        # What is wrong with the broker connection goes to the log and to the pages; a floor
        # with the wrong venue hears nothing (Mosquitto grants what its ACL never delivers).
        diagnosis = diagnosis_of(self._client)
        diagnosis.watch(tuple(Topics(v).table("+", leaf) for v in self.venues
                              for leaf in ("status", "state")), address.quiet)
        diagnosis.on_problem = lambda text: self._to_loop(self._broker_problem, text)
        self.received = 0  # MQTT messages taken (for the benchmark and the health page)
        self.keep_hands_days = keep_hands_days
        self._hands_added = 0
        # systemd's watchdog: pages are served and pushed from this one event loop.
        self.web_loop = Loop("floor's web event loop")
        self._beating: asyncio.Task[None] | None = None
        self._connected_at = 0.0
        # The tournament's retained state as it came (its pages fetch it: tournament_pages.py)
        self.tournament: bytes | None = None
        self.tournament_online: bool | None = None
        # The cash floor's retained state and contacts as they came (cash_pages.py)
        self.cash: bytes | None = None
        self.cash_contacts: bytes | None = None
        self.cash_online: bool | None = None  # its status (None: never heard)
        # Told of each public record kept, on the loop (the players' pages: player_pages.py)
        self.on_hand: list[Callable[[str, HandRecord], None]] = []
        # ... and of each public event as it comes (the broadcast feed times actions by it)
        self.on_event: list[Callable[[str, EventMessage], None]] = []

    # ---------------------------------------------------------------- lifecycle

    @property
    def read_only_reason(self) -> str:
        return (f"this floor follows {', '.join(self.venues)} from the league's host and only "
                "watches: decisions are taken on each venue's own floor (the league's broker "
                "lets this floor send no command)")

    async def start(self) -> None:
        if self.read_only:
            log.info("floor: following %s, read-only (the venues' own floors decide)",
                     ", ".join(self.venues))
        self._loop = asyncio.get_running_loop()
        self._forget_old_hands()
        self._beating = asyncio.create_task(self._beat())
        connect(self._client, self.address)

    async def _beat(self) -> None:
        while True:
            self.web_loop.beat()
            try:  # the time passes for the room too: a player who has waited too long (once
                # the retained states after a connect are in: the clock's may pause the room)
                if self.room.broker and time.monotonic() - self._connected_at > TICK_AFTER:
                    self._push(self.room.tick(self.clock_now()))
            except Exception:  # a bug of ours must not stop the watchdog's heartbeat
                log.exception("floor: the room's tick failed")
            await asyncio.sleep(1)

    def _forget_old_hands(self) -> None:
        if self.keep_hands_days:
            gone = self.store.forget_hands(self._now() - self.keep_hands_days * 86400)
            if gone:
                log.info("floor: %d hands older than %d days left the hands screen (the "
                         "recorder keeps them)", gone, self.keep_hands_days)

    async def close(self) -> None:
        if self._beating is not None:
            self._beating.cancel()
        self._end_screens()
        await asyncio.to_thread(self._stop_client)

    def end_screens(self) -> None:
        """From any thread: every push stream ends (the server stops; browsers reconnect)."""
        self._to_loop(self._end_screens)

    def _end_screens(self) -> None:
        for screen in list(self.screens):
            self.screens.discard(screen)
            screen.end()

    def _stop_client(self) -> None:
        disconnect(self._client)

    # ---------------------------------------------------------------- MQTT (network thread)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:  # its diagnosis says why, in the log and on the pages
            return
        client.subscribe(self.routes.subscriptions())
        self._to_loop(self._broker, True)

    def _routed(self) -> Router:
        """Each venue's public tree; the answers to commands and the clock's time only where
        this floor decides (a league's broker carries neither); a venue's link to the league
        where it follows another venue than its own. Routed on the network thread, handled on
        the loop (`_take`), in the order they came."""
        routes = Router()

        def on(pattern: str, handle: Heard, qos: int = 1) -> None:
            routes.on_raw(pattern, lambda message: self._to_loop(
                self._take, handle, message.topic, bytes(message.payload), self._now(),
                getattr(message.properties, "CorrelationData", None)), qos=qos)

        for venue in self.venues:
            t, room = Topics(venue), self.rooms[venue]
            on(t.table("+", "status"), partial(self._table_status, room))
            on(t.table("+", "state"), partial(self._table_state, room))
            on(t.table("+", "event"), partial(self._table_event, room, venue))
            on(t.table("+", "record"), partial(self._table_record, venue))
            if not self.read_only:
                on(t.table("+", "reply"), self._command_reply)
            on(t.clock("state"), partial(self._clock_state, room))
            on(t.service("clock", "status"), partial(self._clock_status, room))
            on(t.service("tournament", "state"), partial(self._tournament_state, room, venue))
            if self.read_only:
                on(t.service("bridge", "status"), partial(self._bridge_status, room))
            else:
                on(t.clock("reply"), self._command_reply)
                on(t.clock("time"), self._clock_time, qos=0)
                on(t.service("tournament", "reply"), self._command_reply)
                on(t.service("tournament", "status"), self._tournament_status)
                on(t.service("cash", "state"), self._cash_state)
                on(t.service("cash", "contacts"), self._cash_contacts)
                on(t.service("cash", "reply"), self._command_reply)
                on(t.service("cash", "status"), partial(self._cash_status, room))
        on(self.topics.service("recorder", "status"), self._recorder_status)
        return routes

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any,
                       reason: ReasonCode, properties: Any) -> None:
        self.subscribed.clear()
        self._to_loop(self._broker, False)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if not self.routes.dispatch(message):
            log.warning("floor: a message on %s no route takes: ignored", message.topic[:200])

    def _to_loop(self, function: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing: nothing to show
                loop.call_soon_threadsafe(function, *args)

    # ---------------------------------------------------------------- the loop: dispatch

    def _broker(self, connected: bool) -> None:
        if connected:
            self._connected_at = time.monotonic()
        if connected != self.room.broker:
            log.info("floor: broker %s", "connected" if connected else "gone")
            self._push(self.room.take_broker(connected))

    def _broker_problem(self, text: str | None) -> None:
        self._push(self.room.take_broker_problem(text))

    def _take(self, handle: Heard, topic: str, payload: bytes, now: float,
              correlation: bytes | None) -> None:
        self.received += 1
        try:
            handle(topic, payload, now, correlation)
        except BadMessage as exc:
            if not payload:  # a retained message cleared (a table taken out): nothing said
                log.debug("floor: %s cleared", topic[:200])
                return
            log.warning("floor: ignored a bad message on %s: %s", topic[:200], exc)
        except Exception:  # a bug of ours must not stop the screens' one dispatcher
            log.exception("floor: a message on %s could not be taken", topic[:200])

    def _room_time(self, now: float) -> float:
        """Times shown on the screens are the clock's (the room's one time)."""
        return now + self._clock_offset()

    # Each route's handler: (topic, payload, when it came, correlation data).

    def _clock_time(self, topic: str, payload: bytes, now: float, _: bytes | None) -> None:
        self._clock_samples.append(decode(ClockTime, payload).now - now)

    def _recorder_status(self, topic: str, payload: bytes, now: float, _: bytes | None) -> None:
        online = decode(ServiceStatus, payload).status == "online"
        self._push(self.room.take_recorder_status(online, self._room_time(now)))

    def _table_state(self, room: Room, topic: str, payload: bytes, now: float,
                     _: bytes | None) -> None:
        message = decode(StateMessage, payload)
        self._check_table(message.table, topic)
        self._push(room.take_state(message, self._room_time(now)))

    def _table_event(self, room: Room, venue: str, topic: str, payload: bytes, now: float,
                     _: bytes | None) -> None:
        event = decode(EventMessage, payload)
        self._check_table(event.table, topic)
        self._push(room.take_event(event, self._room_time(now)))
        for heard in self.on_event:
            heard(venue, event)

    def _table_status(self, room: Room, topic: str, payload: bytes, now: float,
                      _: bytes | None) -> None:
        status = decode(StatusMessage, payload)
        self._check_table(status.table, topic)
        self._push(room.take_status(status.table, status.status == "online",
                                    self._room_time(now)))

    def _table_record(self, venue: str, topic: str, payload: bytes, now: float,
                      _: bytes | None) -> None:
        record = decode(RecordMessage, payload)
        self._check_table(record.table, topic)
        if self.store.add_hand(record.id, record.record, venue):
            self._hands_added += 1
            if self._hands_added % 1000 == 0:
                self._forget_old_hands()
            for listener in self.on_hand:
                listener(venue, record.record)

    def _command_reply(self, topic: str, payload: bytes, now: float,
                       correlation: bytes | None) -> None:
        self._reply(decode(CommandReply, payload), correlation)

    def _clock_state(self, room: Room, topic: str, payload: bytes, now: float,
                     _: bytes | None) -> None:
        # (an empty retained message clears it: the room has no clock any more)
        clock = decode(ClockState, payload) if payload else None
        self._push(room.take_clock(clock, self._room_time(now)))

    def _clock_status(self, room: Room, topic: str, payload: bytes, now: float,
                      _: bytes | None) -> None:
        online = decode(ServiceStatus, payload).status == "online"
        self._push(room.take_clock_status(online, self._room_time(now)))

    def _tournament_state(self, room: Room, venue: str, topic: str, payload: bytes,
                          now: float, _: bytes | None) -> None:
        # The latest state, as the tournament publishes it (its fields beyond the TV clock's
        # go to the pages as they are); an empty retained message clears it.
        tournament = decode(TournamentState, payload) if payload else None
        if venue == self.topics.venue:  # the tournament's own pages (tournament_pages.py)
            self.tournament = payload or None
        self._push(room.take_tournament(tournament))

    def _tournament_status(self, topic: str, payload: bytes, now: float,
                           _: bytes | None) -> None:
        self.tournament_online = decode(ServiceStatus, payload).status == "online"

    def _bridge_status(self, room: Room, topic: str, payload: bytes, now: float,
                       _: bytes | None) -> None:
        # Mosquitto's own word on the venue's bridge to the league: "1" or "0"
        if payload.strip() not in (b"0", b"1"):
            raise BadMessage("a bridge status is 0 or 1")
        self._push(room.take_bridge(payload.strip() == b"1", self._room_time(now)))

    # The cash floor's retained state and contacts, kept once checked against its models (a
    # page gets them or none); an empty retained message clears them.

    def _cash_state(self, topic: str, payload: bytes, now: float, _: bytes | None) -> None:
        self.cash = encode(decode(CashState, payload)) if payload else None

    def _cash_status(self, room: Room, topic: str, payload: bytes, now: float,
                     _: bytes | None) -> None:
        online = decode(CashStatus, payload).status == "online"
        self.cash_online = online
        self._push(room.take_cash_status(online, self._room_time(now)))

    def _cash_contacts(self, topic: str, payload: bytes, now: float, _: bytes | None) -> None:
        self.cash_contacts = encode(decode(CashContacts, payload)) if payload else None

    @staticmethod
    def _check_table(said: str, topic: str) -> None:
        """The ACL lets a table write only its own subtree: the topic vouches for the table."""
        table = topic.removeprefix(ROOT + "/").split("/")[2]  # <venue>/table/<id>/...
        if said != table:
            raise BadMessage(f"a message for table {said!r} on table {table!r}'s topic")

    def _push(self, updates: list[RoomUpdate]) -> None:
        for update in updates:
            if update.kind == "alert" and update.alert is not None and (
                    update.alert.acknowledged_by is None):
                self.store.add_alert(update.alert)
            frame = sse_frame(update.kind, update.model_dump_json(exclude_none=True))
            for screen in list(self.screens):
                if not screen.wants(update):
                    continue
                try:
                    screen.queue.put_nowait(frame)
                except asyncio.QueueFull:
                    log.warning("floor: a screen fell %d pushes behind: dropped (it reconnects)",
                                QUEUE_LIMIT)
                    self.screens.discard(screen)
                    screen.end()  # its browser reconnects and starts from a snapshot

    def _reply(self, reply: CommandReply, correlation: bytes | None) -> None:
        waiting = self._waiting.pop(correlation, None) if correlation else None
        if waiting is not None and not waiting.done():
            waiting.set_result(reply)

    # ---------------------------------------------------------------- for the web side

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def attach(self, kinds: frozenset[str], table: str | None = None, address: str = "",
               venue: str | None = None) -> Screen:
        screen = Screen(kinds=kinds, table=table, address=address, venue=venue)
        self.screens.add(screen)
        return screen

    def screens_from(self, address: str) -> int:
        return sum(1 for screen in self.screens if screen.address == address)

    def detach(self, screen: Screen) -> None:
        self.screens.discard(screen)

    def clock_now(self) -> float:
        """The clock's time as this server estimates it: its own time plus the offset of the
        least delayed of the clock's recent announcements (0 before the first)."""
        return self._now() + self._clock_offset()

    def _clock_offset(self) -> float:
        return max(self._clock_samples) if self._clock_samples else 0.0

    def acknowledge(self, alert_id: str, by: str) -> bool:
        now = self.clock_now()
        updates = self.room.acknowledge(alert_id, by, now)
        if not updates:
            return False
        self.store.acknowledge(alert_id, by, now)
        log.info("floor: alert %s acknowledged by %s", alert_id, by)
        self._push(updates)
        return True

    async def command(self, target: str, name: str, args: dict[str, Any], by: str
                      ) -> CommandReply:
        """Send a floor decision as the command the table, the clock, the tournament or the
        cash floor takes; wait for its answer. ``target`` is ``clock``, ``tournament``,
        ``cash`` or a table id."""
        request = CommandRequest(id=str(uuid.uuid4()), by=by, args=args)
        if self.read_only:
            log.warning("floor: %s's %s not sent: %s", by, name, self.read_only_reason)
            return CommandReply(table=target, command=name, id=request.id, status="error",
                                reason=self.read_only_reason)
        topic = (self.topics.clock(f"cmd/{name}") if target == "clock"
                 else self.topics.service(target, f"cmd/{name}")
                 if target in ("tournament", "cash") else self.topics.table(target, f"cmd/{name}"))
        correlation = request.id.encode()
        answer: asyncio.Future[CommandReply] = asyncio.get_running_loop().create_future()
        self._waiting[correlation] = answer
        properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        properties.CorrelationData = correlation
        # A decision the table did not take within the wait must not act minutes later when
        # an offline table comes back: the broker drops it unread after this.
        properties.MessageExpiryInterval = int(REPLY_SECONDS) + 1
        log.info("floor: %s sends %s to %s", by, name,
                 "the clock" if target == "clock" else f"table {target}")
        self._client.publish(topic, encode(request), qos=1, properties=properties)
        try:
            return await asyncio.wait_for(answer, REPLY_SECONDS)
        except TimeoutError:
            where = (f"the {target}" if target in ("clock", "tournament") else
                     "the cash floor" if target == "cash" else f"table {target}")
            return CommandReply(table=target, command=name, id=request.id, status="error",
                                reason=f"no answer from {where} within {REPLY_SECONDS:g} s: "
                                "is it online?")
        finally:
            self._waiting.pop(correlation, None)


__all__ = ["Hub", "Screen", "sse_frame"]
