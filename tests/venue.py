"""A client of the venue on the test broker (the `broker` fixture in tests/conftest.py: a real
Mosquitto configured by `pokertable broker init`, on free ports, started per module)."""

from __future__ import annotations

import copy
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.mqtt.client import BrokerAddress, Login
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import CommandReply, StateMessage, decode
from controller.mqtt.topics import Topics
from controller.session.outputs import TableState

Broker = LocalBroker  # the name the tests use


# ------------------------------------------------------------------------------- clients

_CLIENT_IDS = itertools.count()
# The logins with an open client, per broker: the broker takes a client's id from its login
# (use_username_as_clientid), so a second client as the same login pushes the first off, and
# the two take the connection from each other until one closes; replies are lost on the way.
_OPEN: set[tuple[int, str]] = set()
_OPEN_LOCK = threading.Lock()


def address(broker: Broker, **kw: Any) -> BrokerAddress:
    return broker.address(**kw)


def login(broker: Broker, name: str) -> Login:
    return broker.login(name)


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retain: bool
    correlation: bytes | None
    at: float  # time.time() on arrival


@contextmanager
def one_client_as(broker: Broker, name: str) -> Iterator[None]:
    """While a client of ours (the floor server, a service) is logged in as ``name``: no test
    client may log in as it too (see _OPEN)."""
    with _OPEN_LOCK:
        assert (broker.port, name) not in _OPEN, (
            f"a test client as {name!r} is open on this broker: the broker would push one of "
            "the two off (its login is its client id); close it first")
        _OPEN.add((broker.port, name))
    try:
        yield
    finally:
        with _OPEN_LOCK:
            _OPEN.discard((broker.port, name))


class VenueClient:
    """A real paho-mqtt 2 client (MQTT v5) logged in as one of the venue's clients (``name``
    None: anonymous; ``password`` None: the venue's own), subscribed to ``topics`` under the
    venue's root once the broker let it in, keeping every message it receives."""

    def __init__(self, broker: Broker, name: str | None, topics: tuple[str, ...] = ("#",),
                 password: str | None = None, client_id: str | None = None) -> None:
        # (a test that means to take a client's id over names it: client_id)
        self._owned = (broker.port, name) if name is not None and client_id is None else None
        if self._owned is not None:
            with _OPEN_LOCK:
                assert self._owned not in _OPEN, (
                    f"a second test client as {name!r} on one broker: the broker would push the "
                    "first off (its login is its client id); close the first, or use one")
                _OPEN.add(self._owned)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                  client_id=client_id or f"test-{name}-{next(_CLIENT_IDS)}",
                                  protocol=mqtt.MQTTv5)
        if name is not None:
            known = broker.credentials.get(name)
            self.client.username_pw_set(name, password or (known.password if known else "x"))
        self.name = name
        self.reason: ReasonCode | None = None  # the CONNACK's
        self.messages: list[Received] = []
        self.acks: dict[int, ReasonCode] = {}
        self._changed = threading.Condition()
        connected, subscribed = threading.Event(), threading.Event()
        root = Topics(broker.plan.venue).root
        filters = [(f"{root}/{t}", 1) for t in topics]

        def on_connect(client: mqtt.Client, userdata: object, flags: object,
                       reason: ReasonCode, properties: object) -> None:
            self.reason = reason
            connected.set()
            if filters and not reason.is_failure:
                client.subscribe(filters)

        def on_disconnect(*_: object) -> None:
            self.dropped += 1

        # (a broker drops a client when another logs in with its login: use_username_as_clientid)
        self.dropped = 0
        self.client.on_connect = on_connect
        self.client.on_disconnect = on_disconnect
        self.client.on_subscribe = lambda *_: subscribed.set()
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        assert connected.wait(5), "no CONNACK"
        if self.refused and self._owned is not None:  # (not let in: pushes no one off)
            with _OPEN_LOCK:
                _OPEN.discard(self._owned)
            self._owned = None
        if filters and not self.refused:
            assert subscribed.wait(5), "no SUBACK"

    @property
    def refused(self) -> bool:
        return self.reason is not None and self.reason.is_failure

    def _on_message(self, client: object, userdata: object, msg: mqtt.MQTTMessage) -> None:
        with self._changed:
            self.messages.append(Received(
                msg.topic, bytes(msg.payload), bool(msg.retain),
                getattr(msg.properties, "CorrelationData", None), time.time()))
            self._changed.notify_all()

    def _on_publish(self, client: object, userdata: object, mid: int, reason: ReasonCode,
                    properties: object) -> None:
        with self._changed:
            self.acks[mid] = reason
            self._changed.notify_all()

    def on(self, leaf: str) -> list[Received]:
        with self._changed:
            return [m for m in self.messages if m.topic.endswith("/" + leaf)]

    def wait(self, test: Callable[[list[Received]], bool], timeout: float = 10.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: test(self.messages), timeout)

    def publish(self, topic: str, payload: bytes, correlation: bytes | None = None,
                retain: bool = False) -> ReasonCode:
        """QoS 1: the PUBACK says whether the broker's ACL let it through."""
        properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        if correlation is not None:
            properties.CorrelationData = correlation
        info = self.client.publish(topic, payload, qos=1, properties=properties, retain=retain)
        with self._changed:
            assert self._changed.wait_for(lambda: info.mid in self.acks, 5), topic
            return self.acks[info.mid]

    def may_write(self, topic: str) -> bool:
        return not self.publish(topic, b"{}").is_failure

    def topics(self) -> set[str]:
        with self._changed:
            return {m.topic for m in self.messages}

    def close(self) -> None:
        self.client.disconnect()  # first: it wakes the network loop, which then ends at once
        self.client.loop_stop()
        if self._owned is not None:
            with _OPEN_LOCK:
                _OPEN.discard(self._owned)


def clear_clock_state(broker: Broker) -> None:
    """No clock state left retained on the broker: a table linked later would otherwise deal
    its first hand at that clock's level (a level 3 of 100/200 refused a hand's raise to 300)
    if it took it before a new clock's own."""
    clock = VenueClient(broker, "clock", ())
    try:
        assert not clock.publish(Topics(broker.plan.venue).clock("state"), b"",
                                 retain=True).is_failure
    finally:
        clock.close()


class ServiceFloor:
    """The floor's side of a room service (the clock, the tournament, the cash floor): its
    commands, answered with their correlation data, over a client that also hears ``leaves``
    (``state``, ``contacts``, ...) of the service and the venue's topics ``also`` names (the
    broker knows a client by its login: one login, one connection)."""

    # A reply must come: the wait is long so that a loaded machine is no failure (it costs
    # nothing when the reply comes at once).
    REPLY_SECONDS = 30.0

    def __init__(self, broker: Broker, service: str, leaves: tuple[str, ...] = ("state",), *,
                 also: tuple[str, ...] = (), by: str = "floor:anna") -> None:
        self.service, self.by = service, by
        self.client = VenueClient(broker, "floor", (*(f"{service}/{leaf}"
                                                      for leaf in ("reply", *leaves)), *also))
        self.topics = Topics(broker.plan.venue)

    def sharing(self, service: str) -> ServiceFloor:
        """Another service's commands over this client's one connection (its ``also`` names
        that service's reply topic)."""
        other = copy.copy(self)
        other.service = service
        return other

    def on(self, leaf: str) -> list[Received]:
        """What this service said on ``leaf``."""
        return self.client.on(f"{self.service}/{leaf}")

    def publish(self, name: str, payload: bytes, retain: bool = False) -> bytes:
        """A command sent as it is; the correlation data its reply carries back."""
        correlation = f"{self.service}-{next(_CLIENT_IDS)}-{time.monotonic_ns()}".encode()
        assert not self.client.publish(self.topics.service(self.service, f"cmd/{name}"),
                                       payload, correlation, retain=retain).is_failure
        return correlation

    def replied(self, correlation: bytes) -> bool:
        return any(m.correlation == correlation for m in self.on("reply"))

    def reply(self, correlation: bytes, wait: float = REPLY_SECONDS) -> CommandReply | None:
        if not self.client.wait(lambda ms: any(m.correlation == correlation for m in ms), wait):
            return None
        found = next(m for m in self.on("reply") if m.correlation == correlation)
        return decode(CommandReply, found.payload)

    def send(self, name: str, payload: bytes, retain: bool = False) -> CommandReply | None:
        return self.reply(self.publish(name, payload, retain))

    def command(self, name: str, /, command_id: str | None = None, **args: Any
                ) -> CommandReply:
        payload = {"v": 1, "id": command_id or f"{self.service}-cmd-{time.monotonic_ns()}",
                   "by": self.by, "args": args}
        reply = self.send(name, json.dumps(payload).encode())
        assert reply is not None, (
            f"no reply to {self.service} {name} in {self.REPLY_SECONDS} s; this client lost its "
            f"connection {self.client.dropped} times (another client as {self.client.name}?)")
        return reply

    def ok(self, name: str, /, **args: Any) -> str:
        reply = self.command(name, **args)
        assert reply.status == "ok", reply
        return reply.reason or ""


class TableFloor:
    """The floor's (or the tournament's) side of one table over the broker: its commands,
    answered with their correlation data, and its retained state (and, with ``events``, its
    events)."""

    def __init__(self, broker: Broker, table: str, *, by: str = "floor:anna",
                 events: bool = False) -> None:
        self.table = table
        self.by = by
        leaves = ("reply", "state", "event") if events else ("reply", "state")
        self.client = VenueClient(broker, "floor", tuple(f"table/{table}/{leaf}"
                                                         for leaf in leaves))
        self.topics = Topics(broker.plan.venue)

    def command(self, name: str, **args: Any) -> CommandReply:
        correlation = f"{name}-{time.monotonic_ns()}".encode()
        payload = {"v": 1, "id": correlation.decode(), "by": self.by, "args": args}
        assert not self.client.publish(self.topics.table(self.table, f"cmd/{name}"),
                                       json.dumps(payload).encode(), correlation).is_failure
        assert self.client.wait(lambda ms: any(m.correlation == correlation for m in ms), 15)
        found = next(m for m in self.client.on("reply") if m.correlation == correlation)
        return decode(CommandReply, found.payload)

    def state(self) -> TableState | None:
        states = self.client.on("state")
        return decode(StateMessage, states[-1].payload).state if states else None

    def wait(self, test: Callable[[TableState], object], timeout: float = 30) -> TableState:
        assert self.client.wait(lambda _: (s := self.state()) is not None and bool(test(s)),
                                timeout), self.state()
        state = self.state()
        assert state is not None
        return state

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(m.payload)["event"] for m in self.client.on("event")]

