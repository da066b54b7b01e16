"""`pokertable clock`: the tournament clock as a service of the central host.

It logs in as ``clock``, keeps where it stands in its journal (`ClockStore`: every command with
the position it led to, in one transaction, before anything is published), publishes its
retained ``clock/state`` on every change, and answers the floor's ``clock/cmd/<name>`` on
``clock/reply`` with the request's correlation data. A command id is applied at most once, and
a retained command is ignored, as at the tables.

Breaks and hand-for-hand reach the tables through `RoomHolds`: on every change of the clock,
every table's state and every tick, the commands each table still needs go out (and again,
until its state shows them), so a lost command, a restart or a table joining late all end the
same way.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt

from controller.mqtt.client import BrokerAddress, Login
from controller.mqtt.messages import (
    ClockState,
    ClockTime,
    CommandRequest,
    ServiceStatus,
    StateMessage,
    StatusMessage,
    TimeReply,
    TimeRequest,
    TournamentState,
    encode,
)
from controller.room.clock.core import ClockCore
from controller.room.clock.room_holds import ANSWER_SECONDS, Ask
from controller.room.clock.rules import Clock, ClockRefused
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import Structure
from controller.room.commands import incoming, repeated, reply
from controller.room.refusals import RefusalLog
from controller.room.room_service import RoomService

log = logging.getLogger(__name__)

TICK_SECONDS = 0.25
TIME_EVERY = 20  # ticks between the clock's time announcements (5 s) for the room's screens


class ClockService(RoomService):
    def __init__(self, address: BrokerAddress, login: Login, structure: Structure,
                 store: ClockStore, *, now: Callable[[], float] = time.time,
                 answer_seconds: float = ANSWER_SECONDS) -> None:
        # (`connected` once its subscriptions are confirmed, as the other services': a floor's
        # command sent on its CONNACK alone could reach the broker before its subscription
        # did, and be dropped unanswered: a test's "start" under load)
        super().__init__("clock", address, login, tick_seconds=TICK_SECONDS, log=log,
                         status=lambda s: ServiceStatus(service="clock", status=s))
        self.store = store
        self._now = now
        self._lock = threading.Lock()
        self.core = ClockCore(structure, store.position(), now(), answer_seconds)
        self._sent = 0
        self._refusals = RefusalLog(log, "clock")
        self._ticks = 0
        self._received = 0.0  # when the message being handled came (the time sync's start)
        t = self.topics
        self.routes.on_raw(t.clock("cmd/+"), self._command, qos=1, commands=True)
        self.routes.on(t.table("+", "status"), StatusMessage, self._table_status, qos=1)
        self.routes.on(t.table("+", "state"), StateMessage, self._table_state, qos=1)
        self.routes.on(t.table("+", "time"), TimeRequest, self._time)
        self.routes.on(t.service("tournament", "state"), TournamentState, self._tournament)

    @property
    def clock(self) -> Clock:
        return self.core.clock

    @property
    def online(self) -> set[str]:
        """The tables whose status says online."""
        with self._lock:
            return set(self.core.online())

    # ---------------------------------------------------------------- life cycle

    def _last_state(self) -> None:
        with self._lock:
            self._publish_state()

    # ---------------------------------------------------------------- the state

    def state(self) -> ClockState:
        """The retained ``clock/state`` as it stands (`ClockCore.state`)."""
        with self._lock:
            return self.core.state(self._now())

    def _publish_state(self) -> mqtt.MQTTMessageInfo:
        return self._client.publish(self.topics.clock("state"),
                                    encode(self.core.state(self._now())), qos=1, retain=True)

    def _tick(self) -> None:
        self._ticks += 1
        if self._ticks % TIME_EVERY == 1 and self.connected.is_set():
            # The floor server sets its screens' time by it (the tables sync NTP-style).
            self._client.publish(self.topics.clock("time"),
                                 encode(ClockTime(now=self._now())), qos=0)
        with self._lock:
            if self.core.advance(self._now()):
                self.store.save(self.core.position)
                log.info("clock: %s, level %d", self.core.position.status,
                         self.clock.level_slot().level)
                self._publish_state()
            if self.connected.is_set():
                self._reconcile()

    def _reconcile(self, table: str | None = None) -> None:
        """What the room's holds need now goes out (under the lock; ``table``: only its state
        changed)."""
        now = self._now()
        outcome = self.core.reconcile(now, table)
        position = self.core.position
        if outcome.save:
            self.store.save(position, durable=outcome.durable)
        if outcome.released is not None:
            log.info("clock: hand-for-hand round %d released at %d tables: %s",
                     outcome.released, len(position.playing), ", ".join(position.playing))
        for name in outcome.late:
            seen = self.core.holds.tables.get(name)
            ago = f"{now - seen.heard:.0f} s ago" if seen and seen.heard else "never"
            log.warning("clock: table %s holds hand-for-hand round %d and does not answer (last "
                        "heard %s); the floor can let the round go on without it "
                        "(release_table)", name, position.round, ago)
        for ask in outcome.asks:
            self._table_command(ask)
        if outcome.publish:
            self._publish_state()

    def _table_command(self, ask: Ask) -> None:
        self._sent += 1
        request = CommandRequest(args=ask.args, by="clock",
                                 id=f"clock:{ask.command}:{ask.key}:{ask.table}:{self._sent}:"
                                    f"{int(self._now() * 1000)}")
        self._client.publish(self.topics.table(ask.table, f"cmd/{ask.command}"),
                             encode(request), qos=1)

    # ---------------------------------------------------------------- MQTT

    def _on_connected(self) -> None:
        with self._lock:
            self.core.connected(self._now())  # the room's retained messages first
            self._publish_state()
        if not self.connected.is_set():
            clock = self.core.clock
            log.info("clock: connected to %s:%d; level %d, %s", self.address.host,
                     self.address.port, clock.level_slot().level,
                     clock.position.status.replace("_", " "))

    def _handle(self, message: mqtt.MQTTMessage) -> None:
        self._received = self._now()  # first: the time sync measures from here
        self.routes.dispatch(message)

    def _time(self, message: mqtt.MQTTMessage, request: TimeRequest) -> None:
        """A table's time request: answered on its own topic with when the clock received it
        and when it answers, both in the clock's time."""
        table = message.topic.removeprefix(self.topics.root + "/table/").removesuffix("/time")
        received = self._received
        reply = TimeReply(table=table, t0=request.t0, received=received, sent=self._now())
        self._client.publish(self.topics.clock(f"time/{table}"), encode(reply), qos=0)
        with self._lock:
            self.core.heard(table, received)

    def _table_status(self, message: mqtt.MQTTMessage, status: StatusMessage) -> None:
        with self._lock:
            self.core.table_status(status.table, status.status == "online", self._now())
            self._reconcile()

    def _table_state(self, message: mqtt.MQTTMessage, state_message: StateMessage) -> None:
        state = state_message.state
        with self._lock:
            self.core.table_state(state, self._now())
            self._reconcile(state.table)

    def _tournament(self, message: mqtt.MQTTMessage, state: TournamentState) -> None:
        """The tournament's state: once it names the winner, the clock pauses (the levels of
        a tournament that is over mean nothing; a pause, so that the floor can resume it if the
        last bust is taken back). Once for a winner: journaled like a command, so the state
        published again, or a restart, does not pause a clock the floor has resumed since."""
        winner = state.winner
        if winner is None:
            return
        # (the draw's seed tells one tournament from the next on the same clock journal)
        seed = (state.model_extra or {}).get("seed")
        key = f"tournament:winner:{state.name}:{seed}:{winner}"
        with self._lock:
            if self.store.said(key) is not None:
                return
            now = self._now()
            running = self.core.position.status in ("running", "on_break")
            said = (self.core.command("pause", {}, now) if running
                    else "nothing to pause") + f": the tournament is over, {winner} has every chip"
            self.store.save(self.core.position, (key, "pause", {}, "tournament", now, said))
            log.info("clock: %s (the floor may resume it)", said)
            if running:
                self._publish_state()

    def _command(self, message: mqtt.MQTTMessage) -> None:
        command = incoming(message, self.topics.clock("cmd/"), log, "clock")
        if command is None:
            return
        name, request = command.name, command.request
        if request is None:
            why = command.error or "malformed"
            self._refusals.refused(name, None, why)
            self._reply(name, None, command.correlation, False, why)
            return
        with self._lock:
            again = repeated(name, request.id, self.store.said(request.id))
            if again is not None:  # a retry is answered, not redone; another command refused
                self._reply(name, request.id, command.correlation, *again)
                return
            now = self._now()
            try:
                said = self.core.command(name, request.args, now)
            except ClockRefused as exc:
                self._refusals.refused(name, request.id, exc.reason, exc.rule)
                self._reply(name, request.id, command.correlation, False, exc.reason, exc.rule)
                return
            self.store.save(self.core.position,
                            (request.id, name, request.args, request.by, now, said))
            log.info("clock: %s by %s: %s", name, request.by or "floor", said)
            self._publish_state()
            self._reconcile()
        self._reply(name, request.id, command.correlation, True, said)

    def _reply(self, command: str, request_id: str | None, correlation: bytes | None,
               ok: bool, reason: str, rule: str | None = None) -> None:
        reply(self._client, self.topics.clock("reply"), "clock", command, request_id,
              correlation, ok, reason, rule)


__all__ = ["ClockService", "ClockStore"]
