"""The cash floor as a service of the central host (the tournament's pattern, smaller): it logs
in as ``cash``, keeps its ledger in its journal (`CashStore`: every change with the command
that made it, in one transaction, before anything is sent), publishes the retained
``cash/state`` (every screen's) and ``cash/contacts`` (the floor's alone) on every change, and
answers the floor's ``cash/cmd/<name>`` on ``cash/reply`` with the request's correlation data
(an id is applied once, a retained command is ignored: `controller.room.commands`).

Time is the service's: once a second it asks the core whether a call has run out, and if one
has, carries out its own ``tick`` command and journals it like the floor's, so that the
journal alone makes the same lists again (`core.replay`). The must-move draw's seed is the
service's too, put into the command's arguments before it is carried out and journaled.

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
from controller.mqtt.messages import Message, encode
from controller.room.cash.commands import FLOOR_COMMANDS
from controller.room.cash.core import CashCore
from controller.room.cash.ledger import FLOOR, CashSettings, Refused
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashState, CashStatus
from controller.room.commands import incoming, repeated, reply
from controller.room.room_service import RoomService

log = logging.getLogger(__name__)

SERVICE = "cash"
TICK_SECONDS = 1.0  # a call runs out within a second of its time


class CashService(RoomService):
    def __init__(self, address: BrokerAddress, login: Login, settings: CashSettings,
                 store: CashStore, *, now: Callable[[], float] = time.time,
                 new_seed: Callable[[], int] = lambda: secrets.randbits(63)) -> None:
        super().__init__(SERVICE, address, login, status=lambda s: CashStatus(status=s),
                         tick_seconds=TICK_SECONDS, log=log)
        self.store = store
        self._now = now
        self._new_seed = new_seed
        self._lock = threading.RLock()
        self.core = CashCore(settings, store.ledger())
        self._ticks = 0
        self._published: dict[str, bytes] = {}
        self.routes.on_raw(self.topics.service(SERVICE, "cmd/+"), self._command, qos=1,
                           commands=True)

    # ---------------------------------------------------------------- life cycle

    def _starting(self) -> None:
        lists = self.core.ledger.lists
        log.info("cash: starting (%s; journal %s)", ", ".join(
            f"{game}: {len(entries)} waiting" for game, entries in lists.items()),
            self.store.path)

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
            return self.core.state()

    # ---------------------------------------------------------------- time

    def _tick(self) -> None:
        with self._lock:
            now = self._now()
            if self.core.tick(now):
                self._ticks += 1
                self._carry_out(f"{SERVICE}:tick:{int(now * 1000)}:{self._ticks}",
                                "tick", {}, SERVICE, now)

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
            self._reply(name, None, command.correlation, False, command.error or "malformed")
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
            try:
                if name not in FLOOR_COMMANDS:  # (the tick is the service's own)
                    raise Refused(f"unknown cash command {name!r}; the cash floor knows: "
                                  f"{', '.join(sorted(FLOOR_COMMANDS))}", FLOOR)
                said = self._carry_out(request.id, name, args, request.by or "floor",
                                       self._now())
            except Refused as exc:
                log.warning("cash: command %r (id %r) refused: %s (%s)", name[:80],
                            request.id[:100], exc.reason[:300], exc.rule)
                self._reply(name, request.id, command.correlation, False, exc.reason, exc.rule)
                return
        self._reply(name, request.id, command.correlation, True, said)

    def _reply(self, command: str, request_id: str | None, correlation: bytes | None,
               ok: bool, reason: str, rule: str | None = None) -> None:
        reply(self._client, self.topics.service(SERVICE, "reply"), SERVICE, command,
              request_id, correlation, ok, reason, rule)

    # ---------------------------------------------------------------- MQTT

    def _publish(self, force: bool = False) -> None:
        messages: dict[str, Message] = {"state": self.core.state(),
                                        "contacts": self.core.contacts()}
        for leaf, message in messages.items():
            payload = encode(message)
            if force or self._published.get(leaf) != payload:
                self._published[leaf] = payload
                self._client.publish(self.topics.service(SERVICE, leaf), payload, qos=1,
                                     retain=True)


__all__ = ["SERVICE", "CashService"]
