"""What every service of the central host does the same way, written once: its login with a Last
Will that says ``offline`` for it, its routes subscribed on connect (controller/mqtt/routes.py),
``online`` once subscribed, a ticker thread that systemd's watchdog follows, messages handled
one at a time with a bad one logged and dropped, and a clean stop that publishes the last state,
says ``offline`` and leaves. The clock, the tournament, the cash floor and the hand-history
recorder are this skeleton and their own work (the hooks below). The recorder uses the few knobs
the others leave at their defaults: no status at all when it is not the venue's keeper, a client
id of its own, a persistent session, and a message guard of its own (`_handle`).

The floor hub (controller/room/floor/hub.py) shares the client plumbing (new_client, connect,
disconnect, the diagnosis) and the routing (Router), not this skeleton: it runs on asyncio, and
nothing watches the floor on MQTT, so it has no status, no Last Will and no ticker to follow.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, Self

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.mqtt.client import BrokerAddress, Login, connect, disconnect, new_client
from controller.mqtt.messages import BadMessage, Message, encode
from controller.mqtt.routes import Router
from controller.mqtt.topics import Topics
from controller.service.manager import Loop


class RoomService:
    """``status``: the service's status message for "online" or "offline"; None: it says
    nothing (no Last Will, no online, no offline). ``client_id``: default the login's username.
    ``ready_on_subscribe``: `connected` is set once the broker confirmed the subscriptions (a
    command sent after that reaches the service), else at the end of the connect callback."""

    def __init__(self, name: str, address: BrokerAddress, login: Login, *,
                 status: Callable[[str], Message] | None, tick_seconds: float,
                 log: logging.Logger, client_id: str | None = None, clean_start: bool = True,
                 session_expiry: int = 0, ready_on_subscribe: bool = True) -> None:
        self.name, self.address, self.log = name, address, log
        self.topics = Topics(address.venue)
        self.connected = threading.Event()
        self.routes = Router()
        self.loop = Loop(f"{name} ticker")  # systemd's watchdog: the ticker must move on
        self._status_of = status
        self._status = self.topics.service(name, "status")
        self._tick_seconds = tick_seconds
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._ready_on_subscribe = ready_on_subscribe
        # Killed or cut off, the broker says so for it: the floor must know it stopped.
        will = None if status is None else (self._status, status("offline"))
        self._client = new_client(client_id or login.username, login, address,
                                  clean_start=clean_start, session_expiry=session_expiry,
                                  will=will)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *_: self.connected.clear()
        if ready_on_subscribe:
            self._client.on_subscribe = lambda *_: self.connected.set()
        self._client.on_message = self._on_message

    # ---------------------------------------------------------------- the service's own work

    def _starting(self) -> None:
        """Before it connects (a log line of where it stands)."""

    def _on_connected(self) -> None:
        """Subscribed: what it publishes before it says online (its retained state)."""

    def _said_online(self) -> None:
        """Subscribed and said online (if it has a status): what follows, before `connected`
        is set (when not ready_on_subscribe)."""

    def _tick(self) -> None:
        """One tick's work (the watchdog's beat and the guard are the skeleton's)."""

    def _last_state(self) -> None:
        """A clean stop, still connected: the state as it stands goes out, retained."""

    def _stopped(self) -> None:
        """After it left (a log line)."""

    def _handle(self, message: mqtt.MQTTMessage) -> None:
        self.routes.dispatch(message)

    # ---------------------------------------------------------------- life cycle

    def start(self) -> Self:
        self._starting()
        connect(self._client, self.address)
        self._ticker = threading.Thread(target=self._run_ticker, name=f"{self.name}-ticker",
                                        daemon=True)
        self._ticker.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(2)
        said = False
        if self.connected.is_set():
            self._last_state()
            info = self._say("offline")
            if info is not None:
                with contextlib.suppress(RuntimeError, ValueError):  # the connection went
                    info.wait_for_publish(5.0)
                said = info.is_published()
        # (not confirmed: the broker says "offline" for it, its Last Will, as it goes)
        disconnect(self._client, with_will=self._status_of is not None and not said)
        self._stopped()

    def loops(self) -> list[Loop]:
        return [self.loop]

    def _say(self, status: str) -> mqtt.MQTTMessageInfo | None:
        """Its status, retained; None for a service that says nothing."""
        if self._status_of is None:
            return None
        return self._client.publish(self._status, encode(self._status_of(status)), qos=1,
                                    retain=True)

    def _run_ticker(self) -> None:
        while not self._stop.wait(self._tick_seconds):
            self.loop.beat()
            try:
                self._tick()
            except Exception:  # a bug of ours in one tick never stops the service
                self.log.exception("%s: a tick failed; it goes on", self.name)

    # ---------------------------------------------------------------- MQTT

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Any) -> None:
        if reason.is_failure:  # its diagnosis says why (controller/mqtt/client.py)
            return
        client.subscribe(self.routes.subscriptions())
        self._on_connected()
        self._say("online")
        self._said_online()
        if not self._ready_on_subscribe:
            self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any,
                    message: mqtt.MQTTMessage) -> None:
        try:
            self._handle(message)
        except BadMessage as exc:
            self.log.warning("%s: ignored a message on %s: %s", self.name, message.topic[:200],
                             exc)
        except Exception:  # one bad message never stops the service
            self.log.exception("%s: a message on %s could not be handled", self.name,
                               message.topic[:200])


__all__ = ["RoomService"]
