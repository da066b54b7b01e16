"""What every service of the central host does the same way, written once: its login with a Last
Will that says ``offline`` for it, its routes subscribed on connect (controller/mqtt/routes.py),
``online`` once subscribed, a ticker thread that systemd's watchdog follows, messages handled
one at a time with a bad one logged and dropped, and a clean stop that publishes the last state,
says ``offline`` and leaves. The clock, the tournament and the cash floor are this skeleton and
their own work (the hooks below).
"""

from __future__ import annotations

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
    """``status``: the service's status message for "online" or "offline". ``ready_on_subscribe``:
    `connected` is set once the broker confirmed the subscriptions (a command sent after that
    reaches the service), else as soon as it is connected."""

    def __init__(self, name: str, address: BrokerAddress, login: Login, *,
                 status: Callable[[str], Message], tick_seconds: float,
                 log: logging.Logger, clean_start: bool = True,
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
        self._client = new_client(login.username, login, address, clean_start=clean_start,
                                  session_expiry=session_expiry,
                                  will=(self._status, status("offline")))
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
            info = self._client.publish(self._status, encode(self._status_of("offline")),
                                        qos=1, retain=True)
            info.wait_for_publish(5.0)
            said = info.is_published()
        # (not confirmed: the broker says "offline" for it, its Last Will, as it goes)
        disconnect(self._client, with_will=not said)
        self._stopped()

    def loops(self) -> list[Loop]:
        return [self.loop]

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
        client.publish(self._status, encode(self._status_of("online")), qos=1, retain=True)
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
