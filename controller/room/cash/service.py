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
from paho.mqtt.reasoncodes import ReasonCode

from controller.mqtt.client import (
    BrokerAddress,
    Login,
    connect,
    disconnect,
    new_client,
)
from controller.mqtt.messages import Message, encode
from controller.mqtt.routes import Router
from controller.mqtt.topics import Topics
from controller.room.cash.commands import FLOOR_COMMANDS
from controller.room.cash.core import CashCore
from controller.room.cash.ledger import FLOOR, CashSettings, Refused
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashState, CashStatus
from controller.room.commands import incoming, repeated, reply
from controller.service.manager import Loop

log = logging.getLogger(__name__)

SERVICE = "cash"
TICK_SECONDS = 1.0  # a call runs out within a second of its time


class CashService:
    def __init__(self, address: BrokerAddress, login: Login, settings: CashSettings,
                 store: CashStore, *, now: Callable[[], float] = time.time,
                 new_seed: Callable[[], int] = lambda: secrets.randbits(63)) -> None:
        self.address = address
        self.topics = Topics(address.venue)
        self.store = store
        self._now = now
        self._new_seed = new_seed
        self._lock = threading.RLock()
        self.core = CashCore(settings, store.ledger())
        self.connected = threading.Event()
        self._ticks = 0
        self._published: dict[str, bytes] = {}
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.loop = Loop("cash ticker")  # systemd's watchdog
        self._status = self.topics.service(SERVICE, "status")
        self._client = new_client(login.username, login, address, will=(
            self._status, CashStatus(status="offline")))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *_: self.connected.clear()
        # Connected once the broker confirmed the subscription: a command sent after that
        # reaches us.
        self._client.on_subscribe = lambda *_: self.connected.set()
        self.routes = Router()
        self.routes.on_raw(self.topics.service(SERVICE, "cmd/+"), self._command, qos=1,
                           commands=True)
        self._client.on_message = self._on_message

    # ---------------------------------------------------------------- life cycle

    def start(self) -> CashService:
        lists = self.core.ledger.lists
        log.info("cash: starting (%s; journal %s)", ", ".join(
            f"{game}: {len(entries)} waiting" for game, entries in lists.items()),
            self.store.path)
        connect(self._client, self.address)
        self._ticker = threading.Thread(target=self._tick, name="cash-ticker", daemon=True)
        self._ticker.start()
        return self

    def close(self) -> None:
        """A clean stop: the state as it stands goes out, retained, then the service leaves."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(2)
        if self.connected.is_set():
            with self._lock:
                self._publish(force=True)
            info = self._client.publish(self._status, encode(CashStatus(status="offline")),
                                        qos=1, retain=True)
            info.wait_for_publish(2.0)
        disconnect(self._client)
        log.info("cash: stopped")

    def loops(self) -> list[Loop]:
        return [self.loop]

    def state(self) -> CashState:
        with self._lock:
            return self.core.state()

    # ---------------------------------------------------------------- time

    def _tick(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            self.loop.beat()
            try:
                with self._lock:
                    now = self._now()
                    if self.core.tick(now):
                        self._ticks += 1
                        self._carry_out(f"{SERVICE}:tick:{int(now * 1000)}:{self._ticks}",
                                        "tick", {}, SERVICE, now)
            except Exception:  # a bug of ours in one tick never stops the cash floor
                log.exception("cash: a tick failed; the floor goes on")

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

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:  # its diagnosis says why (client.py)
            return
        client.subscribe(self.routes.subscriptions())
        with self._lock:
            self._publish(force=True)
        client.publish(self._status, encode(CashStatus(status="online")), qos=1, retain=True)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            self.routes.dispatch(message)
        except Exception:  # one bad message never stops the cash floor
            log.exception("cash: a message on %s could not be handled", message.topic[:200])


__all__ = ["SERVICE", "CashService"]
