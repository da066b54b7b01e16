"""The cash floor as a service of the central host (the tournament's pattern, smaller): it logs
in as ``cash``, keeps its ledger in its journal (`CashStore`: every change with the command
that made it, in one transaction, before anything is sent), publishes the retained
``cash/state`` (every screen's) and ``cash/contacts`` (the floor's alone) on every change, and
answers the floor's ``cash/cmd/<name>`` on ``cash/reply`` with the request's correlation data
(an id is applied once, a retained command is ignored: `controller.room.commands`).

Time is the service's: once a second it asks the core whether a call has run out, and if one
has, carries out its own ``tick`` command and journals it like the floor's, so that the
journal alone makes the same lists again (`core.replay`). The must-move draw's seed is the
service's too, put into the command's arguments before it is carried out and journaled; so is
a call's time to sit down (its ``call_minutes`` then: a call keeps it across a restart with
another setting).

It seats the players at the tables themselves (at_tables.py): it follows the tables' retained
states, carries out what they say as its own commands (a player reached his seat, left it, the
stack a mover takes along, a table let a player go: journaled like the floor's), and sends
``table/<id>/cmd/seat`` and ``cmd/unseat`` (the tournament's path) for what the ledger says and
the tables do not show yet: at once, and again every two seconds while it is still wanted, each
with the same id (a table applies an id once).

Its own process, apart from the tournament's: a cash room runs every night, tournaments some.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from controller.mqtt.client import (
    BrokerAddress,
    Login,
)
from controller.mqtt.messages import (
    CommandReply,
    CommandRequest,
    Message,
    StateMessage,
    encode,
)
from controller.room.cash.at_tables import Ask
from controller.room.cash.commands import FLOOR_COMMANDS
from controller.room.cash.core import CashCore
from controller.room.cash.ledger import FLOOR, CashSettings, Refused
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashState, CashStatus
from controller.room.commands import incoming, repeated, reply
from controller.room.refusals import RefusalLog
from controller.room.room_service import RoomService
from controller.session.outputs import TableState

log = logging.getLogger(__name__)

SERVICE = "cash"
TICK_SECONDS = 1.0  # a call runs out within a second of its time
RETRY_SECONDS = 2.0  # a table's request sent again while its state does not show it done
# ... unless the table answered it ok (a seat asked for mid-hand is taken after the hand): then
# only after this long, should the table have lost it
ANSWERED_RETRY_SECONDS = 30.0


class CashService(RoomService):
    def __init__(self, address: BrokerAddress, login: Login, settings: CashSettings,
                 store: CashStore, *, now: Callable[[], float] = time.time,
                 new_seed: Callable[[], int] = lambda: secrets.randbits(63),
                 retry_seconds: float = RETRY_SECONDS) -> None:
        super().__init__(SERVICE, address, login, status=lambda s: CashStatus(status=s),
                         tick_seconds=TICK_SECONDS, log=log)
        self.store = store
        self._now = now
        self._new_seed = new_seed
        self._retry = retry_seconds
        self._lock = threading.RLock()
        self.core = CashCore(settings, store.ledger())
        self._ticks = 0
        self._seen = 0  # the service's own commands from the tables' states
        self._published: dict[str, bytes] = {}
        self.tables: dict[str, TableState] = {}  # each table's latest state (its truth)
        self._asked: dict[str, tuple[float, dict[str, Any]]] = {}  # id -> when, what
        self._answered: set[str] = set()  # ids the tables answered ok
        self._refusals = RefusalLog(log, SERVICE)
        t = self.topics
        self.routes.on_raw(t.service(SERVICE, "cmd/+"), self._command, qos=1, commands=True)
        self.routes.on(t.table("+", "state"), StateMessage, self._table_state)
        self.routes.on(t.table("+", "reply"), CommandReply, self._table_reply)

    # ---------------------------------------------------------------- life cycle

    def _starting(self) -> None:
        lists = self.core.ledger.lists
        log.info("cash: starting (%s; journal %s)", ", ".join(
            f"{game}: {len(entries)} waiting" for game, entries in lists.items()),
            self.store.path)
        for what in self.core.ledger.retired(self.core.settings):
            log.warning("cash: cash.toml no longer lists %s: kept while in use, it takes nobody "
                        "new, and goes at the first start once it is empty", what)

    def _on_connected(self) -> None:
        with self._lock:
            self._publish(force=True)

    def _last_state(self) -> None:
        with self._lock:
            self._publish(force=True)

    def _stopped(self) -> None:
        log.info("cash: stopped")

    def state(self) -> CashState:
        with self._lock:
            return self.core.state(self.tables)

    # ---------------------------------------------------------------- time

    def _tick(self) -> None:
        with self._lock:
            now = self._now()
            if self.core.tick(now):
                self._ticks += 1
                self._carry_out(f"{SERVICE}:tick:{int(now * 1000)}:{self._ticks}",
                                "tick", {}, SERVICE, now)
                self._follow()
            elif self.connected.is_set():
                self._ask_tables()  # (again, what is still wanted)

    # ---------------------------------------------------------------- the tables

    def _handle(self, message: mqtt.MQTTMessage) -> None:
        if not message.payload:  # a retained message cleared: nothing was said
            return
        self.routes.dispatch(message)

    def _table_state(self, message: mqtt.MQTTMessage, state: StateMessage) -> None:
        table = message.topic.removeprefix(self.topics.root + "/table/").split("/", 1)[0]
        if state.state.table != table:
            log.warning("cash: ignored a state of table %r on table %r's topic",
                        state.state.table[:40], table[:40])
            return
        with self._lock:
            before = self.tables.get(table)
            self.tables[table] = state.state
            self._follow([state.state], before)
            if self.connected.is_set():
                self._publish()  # (a player at no chips: sent only when that changed)

    def _follow(self, states: list[TableState] | None = None,
                before: TableState | None = None) -> None:
        """What the tables' states say (``states``: those that changed; None: every table's,
        the ledger changed; ``before``: the one table's state before its change), carried out
        as the service's own commands until they say nothing new (each changes the ledger; a
        few at most); then what the tables must still do is asked of them. Under the lock."""
        for state in self.tables.values() if states is None else states:
            for _ in range(4 * state.seat_count + 4):
                said = self.core.observed(state, before if states is not None else None)
                if not said:
                    break
                name, args = said[0]
                self._seen += 1
                now = self._now()
                try:
                    self._carry_out(f"{SERVICE}:{name}:{state.table}:{int(now * 1000)}:"
                                    f"{self._seen}", name, args, SERVICE, now)
                except Refused as exc:  # (a bug of ours: said, the state followed no further)
                    log.error("cash: table %s: %s refused: %s", state.table, name, exc.reason)
                    break
        if self.connected.is_set():
            self._ask_tables()

    def _ask_tables(self) -> None:
        """Each request the tables still need, sent when new or changed and again every
        ``retry_seconds`` while wanted (under the lock)."""
        now = time.monotonic()
        asks = self.core.wanted(self.tables)
        live = {ask.id for ask in asks}
        for gone in [i for i in self._asked if i not in live]:
            del self._asked[gone]
            self._answered.discard(gone)
        for ask in asks:
            sent = self._asked.get(ask.id)
            wait = ANSWERED_RETRY_SECONDS if ask.id in self._answered else self._retry
            if sent is not None and sent[1] == ask.args and now - sent[0] < wait:
                continue
            if sent is not None and sent[1] != ask.args:
                self._answered.discard(ask.id)
            self._asked[ask.id] = (now, ask.args)
            self._send(ask)

    def _send(self, ask: Ask) -> None:
        request = CommandRequest(args=ask.args, by=SERVICE, id=ask.id)
        log.info("cash: asks table %s to %s: %s (%s)", ask.table, ask.command,
                 ", ".join(f"{k} {v}" for k, v in ask.args.items() if k != "reason"), ask.id)
        self._client.publish(self.topics.table(ask.table, f"cmd/{ask.command}"),
                             encode(request), qos=1)

    def _table_reply(self, _: mqtt.MQTTMessage, answer: CommandReply) -> None:
        if not (answer.id or "").startswith(f"{SERVICE}:"):
            return
        if answer.status == "error":
            log.info("cash: table %s: %s refused: %s (asked again while wanted)",
                     answer.table, answer.command, answer.reason)
            return
        with self._lock:
            if answer.id in self._asked:
                self._answered.add(answer.id)  # (its state shows it once the hand is over)

    # ---------------------------------------------------------------- commands

    def _carry_out(self, request_id: str, name: str, args: dict[str, Any], by: str,
                   now: float) -> str:
        """One command through the core, journaled, published (under the lock); raises
        `Refused` and changes nothing."""
        said = self.core.command(name, args, by, now)
        self.store.save(self.core.ledger, (request_id, name, args, by, now, said))
        log.info("cash: %s by %s: %s", name, by, said)
        if self.connected.is_set():  # before the reply (same client, QoS 1: in order), so a
            self._publish()           # page that refreshes on the answer sees what it did
        return said

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
                self._reply(name, request.id, command.correlation, *again)
                return
            args = dict(request.args)
            if (name == "must_move" and args.get("seed") is None
                    and self.core.settings.must_move_order == "draw"):
                args["seed"] = self._new_seed()  # journaled with the command: a replay draws it
            if name == "call" and args.get("seconds") is None:  # what the player is told,
                args["seconds"] = self.core.settings.call_seconds  # kept with his call
            try:
                if name not in FLOOR_COMMANDS:  # (the tick is the service's own)
                    raise Refused(f"unknown cash command {name!r}; the cash floor knows: "
                                  f"{', '.join(sorted(FLOOR_COMMANDS))}", FLOOR)
                said = self._carry_out(request.id, name, args, request.by or "floor",
                                       self._now())
                self._follow()  # what the tables show now means after it, and must do
            except Refused as exc:
                self._refusals.refused(name, request.id, exc.reason, exc.rule)
                self._reply(name, request.id, command.correlation, False, exc.reason, exc.rule)
                return
        self._reply(name, request.id, command.correlation, True, said)

    def _reply(self, command: str, request_id: str | None, correlation: bytes | None,
               ok: bool, reason: str, rule: str | None = None) -> None:
        reply(self._client, self.topics.service(SERVICE, "reply"), SERVICE, command,
              request_id, correlation, ok, reason, rule)

    # ---------------------------------------------------------------- MQTT

    def _publish(self, force: bool = False) -> None:
        messages: dict[str, Message] = {"state": self.core.state(self.tables),
                                        "contacts": self.core.contacts()}
        for leaf, message in messages.items():
            payload = encode(message)
            if force or self._published.get(leaf) != payload:
                self._published[leaf] = payload
                self._client.publish(self.topics.service(SERVICE, leaf), payload, qos=1,
                                     retain=True)


__all__ = ["SERVICE", "CashService"]
