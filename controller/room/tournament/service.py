"""`pokertable tournament --config tournament.toml`: the tournament as a service of the central
host.

It logs in as ``tournament``, keeps its ledger in its journal (`TournamentStore`: every change
with the command or elimination that caused it, in one transaction, before anything is sent),
publishes its retained ``tournament/state`` on every change, and answers the floor's
``tournament/cmd/<name>`` on ``tournament/reply`` with the request's correlation data (an id is
applied once, a retained command is ignored: `controller.room.commands`).

It follows the tables' retained states, their durable elimination events and their sealed
records, and the clock's state. What the tables must do (seat a player, let one go between
hands, hold for newcomers, close when broken) goes to ``table/<id>/cmd/<name>`` and again every
two seconds until their states show it, so a lost command, a restart or a table that comes back
late all end the same way. Its own process, apart from the clock's: a tournament restarted (an
upgrade, a bug) never stops the levels, and the clock stays the small program it is.
"""

from __future__ import annotations

import logging
import os
import random
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

import paho.mqtt.client as mqtt

from controller.mqtt.client import (
    BrokerAddress,
    Login,
)
from controller.mqtt.messages import (
    ClockState,
    CommandReply,
    CommandRequest,
    EventMessage,
    RecordMessage,
    ServiceStatus,
    StateMessage,
    StatusMessage,
    encode,
)
from controller.room.commands import incoming, repeated, reply
from controller.room.refusals import RefusalLog
from controller.room.room_service import RoomService
from controller.room.tournament.core import TournamentCore
from controller.room.tournament.draw import Refused
from controller.room.tournament.export import standings_csv, standings_json
from controller.room.tournament.ledger import Settings
from controller.room.tournament.seating import Ask
from controller.room.tournament.store import TournamentStore
from controller.room.tournament.view import PublishedState
from controller.storage.private_files import private_dir

log = logging.getLogger(__name__)

TICK_SECONDS = 0.5
PUBLISH_SECONDS = 0.5  # what the tables alone changed (stacks, seats) goes out at most this often
SERVICE = "tournament"
# A persistent session (as the recorder's): while the service is down the broker keeps what
# it must not miss, the tables' eliminations and sealed records (QoS 1), for up to a week;
# states and statuses come back retained, and a floor command is never applied late (QoS 0:
# a floor that got no answer said so).
SESSION_EXPIRY = 7 * 24 * 3600


class TournamentService(RoomService):
    def __init__(self, address: BrokerAddress, login: Login, settings: Settings,
                 store: TournamentStore, *, export: Path | None = None,
                 now: Callable[[], float] = time.time, retry_seconds: float = 2.0) -> None:
        super().__init__(SERVICE, address, login, tick_seconds=TICK_SECONDS, log=log,
                         status=lambda s: ServiceStatus(service=SERVICE, status=s),
                         clean_start=False, session_expiry=SESSION_EXPIRY)
        self.store = store
        self.export = export
        self._now = now
        self._lock = threading.RLock()
        self.core = TournamentCore(settings, store.ledger(), random_source=random.Random,
                                   new_seed=lambda: secrets.randbits(63),
                                   retry_seconds=retry_seconds)
        self._sent = 0
        self._published: bytes | None = None
        self._published_at = 0.0
        self._stale = False  # the tables said something since the state was last built
        self._refusals = RefusalLog(log, SERVICE)
        # (the clock's first: its retained state comes before the tables'; the core decides
        # nothing until it has the clock's and every open table's, `waiting_for`)
        # (QoS 1 only for what the broker keeps while we are down: SESSION_EXPIRY)
        t = self.topics
        self.routes.on(t.clock("state"), ClockState, self._clock_state)
        self.routes.on_raw(t.service(SERVICE, "cmd/+"), self._command, commands=True)
        self.routes.on(t.table("+", "status"), StatusMessage, self._table_status)
        self.routes.on(t.table("+", "state"), StateMessage, self._table_state)
        self.routes.on(t.table("+", "event"), EventMessage, self._event, qos=1)
        self.routes.on(t.table("+", "record"), RecordMessage, self._record, qos=1)
        self.routes.on(t.table("+", "reply"), CommandReply, self._table_reply)

    # ---------------------------------------------------------------- life cycle

    def _starting(self) -> None:
        ledger = self.core.ledger
        log.info("tournament: starting (%s, %d players, %d left; journal %s)", ledger.status,
                 len(ledger.players), sum(not p.out for p in ledger.players.values()),
                 self.store.path)

    def _on_connected(self) -> None:
        with self._lock:
            self._publish_state(force=True)

    def _last_state(self) -> None:
        with self._lock:
            self._publish_state(force=True)

    def _stopped(self) -> None:
        log.info("tournament: stopped; the broker keeps the tables' eliminations and records "
                 "for it until it is back")

    def state(self) -> PublishedState:
        with self._lock:
            return self.core.state()

    # ---------------------------------------------------------------- the work

    def _tick(self) -> None:
        self._refusals.flush()
        if not self.connected.is_set():
            return
        with self._lock:
            self._reconcile()
            if self._stale and time.monotonic() - self._published_at >= PUBLISH_SECONDS:
                self._publish_state()

    def _reconcile(self, urgent: bool = False) -> None:
        """What follows from everything heard (under the lock): the ledger saved first, then
        the requests to the tables, the alerts, the state (at once when the ledger changed or
        ``urgent``; what only the tables' stacks changed waits for the next tick)."""
        now = self._now()
        outcome = self.core.reconcile(now)
        if outcome.save:
            self.store.save(self.core.ledger)
        for alert in outcome.alerts:
            log.warning("tournament: %s (%s)", alert.text, alert.rule or "")
        for ask in outcome.asks:
            self._table_command(ask)
        if outcome.finished:
            self._export()
        if outcome.save or urgent:
            self._publish_state()
        else:
            self._stale = True

    def _table_command(self, ask: Ask) -> None:
        self._sent += 1
        request = CommandRequest(args=ask.args, by=SERVICE, id=(
            f"{SERVICE}:{ask.key}:{ask.table}:{self._sent}:{int(self._now() * 1000)}")[:100])
        self._client.publish(self.topics.table(ask.table, f"cmd/{ask.command}"),
                             encode(request), qos=1)

    def _publish_state(self, force: bool = False) -> None:
        payload = encode(self.core.state())
        self._stale, self._published_at = False, time.monotonic()
        if payload != self._published or force:
            self._published = payload
            self._client.publish(self.topics.service(SERVICE, "state"), payload, qos=1,
                                 retain=True)

    def _export(self) -> list[Path]:
        """The standings as CSV and JSON in the export directory (each file replaced whole)."""
        if self.export is None:
            return []
        rows = self.core.standings()
        ledger, settings = self.core.ledger, self.core.settings
        entry = settings.structure.entry
        now = self._now()
        texts = {"standings.csv": standings_csv(rows, entry.currency, now),
                 "standings.json": standings_json(
                     rows, name=settings.name, entries=ledger.entries,
                     players=len(ledger.players), prize_pool=self.core.prize_pool(),
                     currency=entry.currency, exported=now)}
        written = []
        try:
            private_dir(self.export, 0o750)
            for name, text in texts.items():
                path = self.export / name
                partial = path.with_name(f".{name}.partial")
                partial.write_text(text, encoding="utf-8")
                os.replace(partial, path)
                written.append(path)
        except OSError as exc:
            log.error("tournament: cannot write the standings to %s (%s): give [tournament] "
                      "export a directory the service may write", self.export,
                      exc.strerror or exc)
            return []
        log.info("tournament: the standings are in %s", ", ".join(map(str, written)))
        return written

    # ---------------------------------------------------------------- MQTT

    def _handle(self, message: mqtt.MQTTMessage) -> None:
        if not message.payload:  # a retained message cleared: nothing was said
            log.debug("tournament: %s cleared", message.topic)
            return
        self.routes.dispatch(message)

    def _table_of(self, message: mqtt.MQTTMessage) -> str:
        return message.topic.removeprefix(self.topics.root + "/table/").split("/", 1)[0]

    def _clock_state(self, _: mqtt.MQTTMessage, clock: ClockState) -> None:
        with self._lock:
            self.core.clock_state(clock)
            self._reconcile()

    def _table_state(self, message: mqtt.MQTTMessage, state: StateMessage) -> None:
        with self._lock:
            self.core.table_state(state.state, live=not message.retain)
            self._reconcile()

    def _table_status(self, _: mqtt.MQTTMessage, status: StatusMessage) -> None:
        with self._lock:
            self.core.table_status(status.table, status.status == "online")
            self._reconcile()

    def _record(self, _: mqtt.MQTTMessage, record: RecordMessage) -> None:
        with self._lock:
            if self.core.record(record.table, record.record, self._now()):
                self.store.save(self.core.ledger)
            self._reconcile()

    def _table_reply(self, _: mqtt.MQTTMessage, answer: CommandReply) -> None:
        if answer.status == "error" and (answer.id or "").startswith(f"{SERVICE}:"):
            log.info("tournament: table %s: %s refused: %s (asked again while wanted)",
                     answer.table, answer.command, answer.reason)

    def _event(self, topic_message: mqtt.MQTTMessage, message: EventMessage) -> None:
        table = self._table_of(topic_message)
        event = message.event
        if event.kind != "elimination" or message.id is None or message.table != table:
            return
        with self._lock:
            if self.store.heard(message.id):
                return  # delivered again (the outbox sends until the recorder keeps it)
            now = self._now()
            if self.core.elimination(table, message.id, event.data, now, at=message.sent):
                log.info("tournament: table %s: %s", table, event.text)
            self.store.save(self.core.ledger, heard=(message.id, "elimination", now))
            self._reconcile(urgent=True)

    def _command(self, message: mqtt.MQTTMessage) -> None:
        command = incoming(message, self.topics.service(SERVICE, "cmd/"), log, SERVICE)
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
            if again is not None:
                if not again[0]:
                    self._refusals.refused(name, request.id, again[1])
                self._reply(name, request.id, command.correlation, *again)
                return
            now = self._now()
            by = request.by or "floor"
            try:
                said = self.core.command(name, request.args, by, now)
            except Refused as exc:
                self._refusals.refused(name, request.id, exc.reason, exc.rule)
                self._reply(name, request.id, command.correlation, False, exc.reason, exc.rule)
                return
            self.store.save(self.core.ledger, (request.id, name, request.args, by, now, said))
            log.info("tournament: %s by %s: %s", name, by, said)
            if name == "export":
                written = self._export()
                said += f": {', '.join(map(str, written))}" if written else \
                    " (no export directory could be written: see the log)"
            self._reconcile(urgent=True)
        self._reply(name, request.id, command.correlation, True, said)

    def _reply(self, command: str, request_id: str | None, correlation: bytes | None,
               ok: bool, reason: str, rule: str | None = None) -> None:
        reply(self._client, self.topics.service(SERVICE, "reply"), SERVICE, command,
              request_id, correlation, ok, reason, rule)


__all__ = ["TournamentService"]
