"""`pokertable clock`: the tournament clock as a service of the central host.

It logs in as ``clock``, keeps where it stands in SQLite (every command is journaled with the
position it led to, in one transaction, before anything is published: a clock killed and
restarted resumes the same level with the same end instant), publishes its retained
``clock/state`` on every change, and answers the floor's ``clock/cmd/<name>`` on
``clock/reply`` with the request's correlation data. A command id is applied at most once, and
a retained command is ignored, as at the tables.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.mqtt.client import (
    BrokerAddress,
    Login,
    command_subscription,
    connect,
    new_client,
    publish_reply,
    subscription,
)
from controller.mqtt.messages import (
    BadMessage,
    ClockState,
    ClockTime,
    CommandReply,
    CommandRequest,
    ServiceStatus,
    StateMessage,
    StatusMessage,
    TimeReply,
    TimeRequest,
    decode,
    encode,
)
from controller.mqtt.topics import Topics
from controller.private_files import private_file
from controller.room.clock import Clock, ClockPosition, ClockRefused
from controller.room.structure import Structure

log = logging.getLogger(__name__)

TICK_SECONDS = 0.25
TIME_EVERY = 20  # ticks between the clock's time announcements (5 s) for the room's screens

SCHEMA = """
CREATE TABLE IF NOT EXISTS position (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    by TEXT,
    at REAL NOT NULL,
    said TEXT NOT NULL
);
"""


class ClockStore:
    """The clock's journal: its position and every command it carried out (WAL, fsync)."""

    def __init__(self, path: str | Path) -> None:
        self.path = private_file(Path(path))
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def position(self) -> ClockPosition | None:
        row = self._db.execute("SELECT state FROM position WHERE id = 1").fetchone()
        return ClockPosition.model_validate_json(row[0]) if row else None

    def said(self, command_id: str) -> tuple[str, str] | None:
        """The command applied under this id, and what the clock said of it."""
        row = self._db.execute("SELECT name, said FROM commands WHERE id = ?",
                               (command_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def save(self, position: ClockPosition, command: tuple[str, str, dict[str, Any], str | None,
                                                            float, str] | None = None,
             *, durable: bool = True) -> None:
        """``durable=False`` for what a restart can rebuild (which tables of a round have
        finished: their retained states say it again): no fsync of its own."""
        db = self._db
        db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT OR REPLACE INTO position (id, state) VALUES (1, ?)",
                       (position.model_dump_json(),))
            if command is not None:
                command_id, name, args, by, at, said = command
                db.execute("INSERT INTO commands (id, name, args, by, at, said) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           (command_id, name, json.dumps(args), by, at, said))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()


class ClockService:
    def __init__(self, address: BrokerAddress, login: Login, structure: Structure,
                 store: ClockStore, *, now: Callable[[], float] = time.time) -> None:
        self.address = address
        self.topics = Topics(address.venue)
        self.store = store
        self._now = now
        self._lock = threading.Lock()
        self.clock = Clock(structure, store.position())
        self.clock.advance(now())  # levels that ended while the clock was down have ended
        self.connected = threading.Event()
        self.online: set[str] = set()  # tables whose retained status says online
        self._unstuck: set[str] = set()  # tables released from a hold that was over
        self.hands: dict[str, int] = {}  # each table's hand number, from its state
        self.round_start: dict[str, int] = {}  # hand-for-hand: hand numbers at the release
        self._sent = 0
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._status = self.topics.service("clock", "status")
        # Killed or cut off, the broker says so for it: the floor must know the levels stopped.
        self._client = new_client(login.username, login, address, will=(
            self._status, ServiceStatus(service="clock", status="offline")))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *_: self.connected.clear()
        self._client.on_message = self._on_message

    # ---------------------------------------------------------------- life cycle

    def start(self) -> ClockService:
        connect(self._client, self.address)
        self._ticker = threading.Thread(target=self._tick, name="clock-ticker", daemon=True)
        self._ticker.start()
        return self

    def close(self) -> None:
        """A clean stop: the state as it stands goes out, retained, then the clock leaves."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(2)
        if self.connected.is_set():
            self._publish_state()
            info = self._client.publish(self._status, encode(ServiceStatus(
                service="clock", status="offline")), qos=1, retain=True)
            info.wait_for_publish(2.0)
        self._client.disconnect()
        self._client.loop_stop()

    # ---------------------------------------------------------------- the state

    def state(self) -> ClockState:
        """The retained ``clock/state``: the level in force (during a break the one that
        follows, from the first hand after it), and the instant the level ends."""
        with self._lock:
            return self._state_now()

    def _state_now(self) -> ClockState:
        clock = self.clock
        now = self._now()
        level = clock.level_slot()
        position = clock.position
        running = position.status in ("running", "on_break")
        following = clock.next_level()
        upcoming = clock.next_break()
        return ClockState(
            level=level.level, sb=level.sb or 0, bb=level.bb or 1, ante=level.ante or 0,
            bb_ante=level.bb_ante or 0, smallest_chip=level.smallest_chip, running=running,
            remaining=clock.remaining(now) if position.status == "paused" else None,
            status=position.status, ends_at=position.ends_at if running else None,
            on_break=position.status == "on_break" or position.paused_on_break,
            next_level=following.level if following else None,
            next_break_at=(position.ends_at + upcoming.start - clock.slot.end)
            if running and upcoming is not None and position.ends_at is not None else None,
            hand_for_hand=position.hand_for_hand, round=position.round,
            waiting=list(position.waiting),
        )

    def _publish_state(self) -> mqtt.MQTTMessageInfo:
        return self._client.publish(self.topics.clock("state"), encode(self._state_now()),
                                    qos=1, retain=True)

    def _tick(self) -> None:
        ticks = 0
        while not self._stop.wait(TICK_SECONDS):
            ticks += 1
            if ticks % TIME_EVERY == 1 and self.connected.is_set():
                # The floor server sets its screens' time by it (the tables sync NTP-style).
                self._client.publish(self.topics.clock("time"),
                                     encode(ClockTime(now=self._now())), qos=0)
            with self._lock:
                was_on_break = self._on_break()
                if self.clock.advance(self._now()):
                    self.store.save(self.clock.position)
                    log.info("clock: %s, level %d", self.clock.position.status,
                             self.clock.level_slot().level)
                    self._publish_state()
                    self._breaks(was_on_break)

    # ---------------------------------------------------------------- breaks at the tables

    def _on_break(self) -> bool:
        p = self.clock.position
        return p.status == "on_break" or (p.status == "paused" and p.paused_on_break)

    def _break_reason(self) -> str:
        colour = self.clock.slot.colour_up if self.clock.slot.kind == "break" else None
        following = self.clock.level_slot()
        reason = f"break before level {following.level}"
        if colour:
            reason += f"; colour up the {', '.join(f'{c:,}' for c in colour)} chips"
        return reason

    def _breaks(self, was: bool) -> None:
        """A break began: every table finishes its hand and then waits (its hold, reason
        "break"); it ended: every table may shuffle again, at the level that follows."""
        now_on = self._on_break()
        if now_on and not was:
            for table in sorted(self.online):
                self._table_command(table, "hold", {"reason": self._break_reason()})
        elif was and not now_on:
            for table in sorted(self.online):
                self._table_command(table, "release", {})

    def _table_command(self, table: str, name: str, args: dict[str, Any]) -> None:
        self._sent += 1
        request = CommandRequest(args=args, by="clock",
                                 id=f"clock:{name}:{self.clock.position.slot}:{table}:"
                                    f"{self._sent}:{int(self._now() * 1000)}")
        self._client.publish(self.topics.table(table, f"cmd/{name}"), encode(request), qos=1)

    # ---------------------------------------------------------------- MQTT

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:
            log.error("clock: the broker refused the connection: %s", reason)
            return
        client.subscribe([command_subscription(self.topics.clock("cmd/+")),
                          subscription(self.topics.table("+", "status"), 1),
                          subscription(self.topics.table("+", "state"), 1),
                          subscription(self.topics.table("+", "time"), 0)])
        with self._lock:
            self._publish_state()
        client.publish(self._status, encode(ServiceStatus(service="clock", status="online")),
                       qos=1, retain=True)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        received = self._now()  # first: the time sync measures from here
        try:
            if message.topic.endswith("/time"):
                self._time(message, received)
                return
            self._command(message)
        except Exception:  # one bad message never stops the clock
            log.exception("clock: a message on %s could not be handled", message.topic)

    def _time(self, message: mqtt.MQTTMessage, received: float) -> None:
        """A table's time request: answered on its own topic with when the clock received it
        and when it answers, both in the clock's time."""
        table = message.topic.removeprefix(self.topics.root + "/table/").removesuffix("/time")
        request = decode(TimeRequest, message.payload)
        reply = TimeReply(table=table, t0=request.t0, received=received, sent=self._now())
        self._client.publish(self.topics.clock(f"time/{table}"), encode(reply), qos=0)

    def _table_status(self, message: mqtt.MQTTMessage) -> None:
        """Which tables are online: a table that comes online during a break, or in the middle
        of a hand-for-hand round it is not part of, is held at once."""
        status = decode(StatusMessage, message.payload)
        with self._lock:
            if status.status == "online":
                self.online.add(status.table)
                if self._on_break():
                    self._table_command(status.table, "hold", {"reason": self._break_reason()})
                elif self.clock.position.hand_for_hand and status.table not in (
                        self.clock.position.waiting):
                    # Back (or new) in the middle of a round: it waits, and the next round's
                    # release includes it (PVB 35a).
                    self._table_command(status.table, "hold", {"reason": "hand-for-hand"})
            else:
                self.online.discard(status.table)

    def _release_if_stale(self, table: str, hold: str | None) -> None:
        """A table held for a break that is over, or for hand-for-hand that is off (its release
        was missed: the clock was down when the break ended, or restarted): released now, once.
        A hold the floor put on the table is the floor's to lift."""
        stale = hold is not None and (
            (hold.startswith("break") and not self._on_break())
            or (hold.startswith("hand-for-hand") and not self.clock.position.hand_for_hand))
        if not stale:
            self._unstuck.discard(table)
        elif table not in self._unstuck:
            self._unstuck.add(table)
            log.info("clock: table %s still waits (%s), which is over: released", table, hold)
            self._table_command(table, "release", {})

    def _table_state(self, message: mqtt.MQTTMessage) -> None:
        """Hand-for-hand (RULES T1, PVB 35a): a table held with no hand running has finished
        its hand of the round; when the last one has, every table is released at once for the
        next hand."""
        state = decode(StateMessage, message.payload).state
        table = state.table
        running = state.stage not in ("waiting", "over")
        with self._lock:
            self._release_if_stale(table, state.hold)
            self.hands[table] = state.hand
            start = self.round_start.get(table)
            done = state.hold is not None and not running and (start is None or state.hand > start)
            if not done or table not in self.clock.position.waiting:
                return
            if self.clock.finished_table(table):
                self._release_round()
            else:
                self.store.save(self.clock.position, durable=False)
                self._publish_state()

    def _release_round(self) -> None:
        tables = sorted(self.online)
        self.clock.next_round(tables)
        self.store.save(self.clock.position)
        self.round_start = {t: self.hands.get(t, 0) for t in tables}
        for table in tables:
            self._table_command(table, "release", {"one_hand": True, "reason": "hand-for-hand",
                                                   "round": self.clock.position.round})
        log.info("clock: hand-for-hand round %d released at %d tables",
                 self.clock.position.round, len(tables))
        self._publish_state()

    def _hand_for_hand(self, was_on: bool) -> None:
        """Hand-for-hand switched: on, every table waits after its current hand and the first
        round waits for every online table; off, every table plays on."""
        p = self.clock.position
        if p.hand_for_hand and not was_on:
            self.clock.position = p.model_copy(update={"waiting": sorted(self.online)})
            self.round_start = {}
            self.store.save(self.clock.position)
            for table in sorted(self.online):
                self._table_command(table, "hold", {"reason": "hand-for-hand"})
            self._publish_state()
        elif was_on and not p.hand_for_hand:
            for table in sorted(self.online):
                self._table_command(table, "release", {})

    def _command(self, message: mqtt.MQTTMessage) -> None:
        if message.topic.endswith("/status"):
            self._table_status(message)
            return
        if message.topic.endswith("/state"):
            self._table_state(message)
            return
        name = message.topic.removeprefix(self.topics.clock("cmd/"))[:80]
        if message.retain:
            log.warning("clock: ignored a retained command on %s", message.topic)
            return
        correlation = getattr(message.properties, "CorrelationData", None)
        try:
            request = decode(CommandRequest, message.payload)
        except BadMessage as exc:
            self._reply(name, None, correlation, "error", f"malformed command: {exc}")
            return
        with self._lock:
            done = self.store.said(request.id)
            if done is not None and done[0] != name:  # the same id for another command
                self._reply(name, request.id, correlation, "error",
                            f"command id {request.id} was already used for {done[0]!r}: a new "
                            "command needs a new id; nothing done")
                return
            if done is not None:  # the same command again (a retry): answered, not redone
                self._reply(name, request.id, correlation, "ok",
                            f"command {request.id} was already applied: {done[1]}")
                return
            now = self._now()
            before = self.clock.position
            was_on_break = self._on_break()
            was_hand_for_hand = before.hand_for_hand
            try:
                said = self.clock.command(name, request.args, now)
            except ClockRefused as exc:
                self.clock.position = before
                self._reply(name, request.id, correlation, "error", exc.reason, exc.rule)
                return
            self.store.save(self.clock.position,
                            (request.id, name, request.args, request.by, now, said))
            log.info("clock: %s by %s: %s", name, request.by or "floor", said)
            self._publish_state()
            self._breaks(was_on_break)
            self._hand_for_hand(was_hand_for_hand)
            if before.waiting and not self.clock.position.waiting and (
                    self.clock.position.hand_for_hand):  # release_table completed the round
                self._release_round()
        self._reply(name, request.id, correlation, "ok", said)

    def _reply(self, command: str, request_id: str | None, correlation: bytes | None,
               status: str, reason: str, rule: str | None = None) -> None:
        reply = CommandReply(table="clock", command=command, id=request_id,
                             status="ok" if status == "ok" else "error", reason=reason,
                             rule=rule)
        publish_reply(self._client, self.topics.clock("reply"), reply, correlation)


__all__ = ["ClockService", "ClockStore"]
