"""Topics routed by registration: a service declares each subscription once, in one table (the
topic pattern, its QoS, the payload's model and the handler), and the router subscribes to
them all when the service connects and hands each message, decoded, to its handler. The way
Home Assistant's MQTT integration and Frigate's dispatcher route: no service parses topics by
hand in a chain of ifs, and the type checker follows every handler to its model.

A payload that is not its model is `BadMessage` (raised to the service, which logs it and goes
on); a message no route matches is left alone (`dispatch` says so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import paho.mqtt.client as mqtt
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.mqtt.messages import Message, decode

M = TypeVar("M", bound=Message)
Handler = Callable[[mqtt.MQTTMessage], None]


def matches(pattern: str, topic: str) -> bool:
    """MQTT's topic filter rule: ``+`` is one level, a final ``#`` the rest (or none)."""
    wanted, levels = pattern.split("/"), topic.split("/")
    for k, level in enumerate(wanted):
        if level == "#":
            return True
        if k >= len(levels) or (level != "+" and level != levels[k]):
            return False
    return len(wanted) == len(levels)


@dataclass(frozen=True)
class Route:
    pattern: str
    options: SubscribeOptions
    handle: Handler


class Router:
    """One service's subscriptions and their handlers, in the order they were declared (the
    order the broker is asked for them: a retained state that must come first comes first)."""

    def __init__(self) -> None:
        self._routes: list[Route] = []

    def on(self, pattern: str, model: type[M],
           handler: Callable[[mqtt.MQTTMessage, M], None], *, qos: int = 0) -> None:
        """Messages on ``pattern`` decoded as ``model`` for ``handler(message, payload)``; a
        retained message cleared (no payload) says nothing and is not handed on."""
        def handle(message: mqtt.MQTTMessage) -> None:
            if message.payload:
                handler(message, decode(model, message.payload))

        self._add(pattern, SubscribeOptions(qos=qos), handle)

    def on_raw(self, pattern: str, handler: Handler, *, qos: int = 0,
               commands: bool = False) -> None:
        """Messages on ``pattern`` for a handler that reads them itself (commands: their
        correlation data and the request's id matter too). ``commands``: kept retained as
        published (MQTT 5), so a command someone left retained is never taken as a live one."""
        self._add(pattern, SubscribeOptions(qos=qos, retainAsPublished=commands), handler)

    def _add(self, pattern: str, options: SubscribeOptions, handle: Handler) -> None:
        if any(r.pattern == pattern for r in self._routes):
            raise ValueError(f"{pattern} is routed twice")
        self._routes.append(Route(pattern, options, handle))

    def subscriptions(self) -> list[tuple[str, SubscribeOptions]]:
        return [(r.pattern, r.options) for r in self._routes]

    def dispatch(self, message: mqtt.MQTTMessage) -> bool:
        """Hand the message to the first route that matches; False when none does."""
        for route in self._routes:
            if matches(route.pattern, message.topic):
                route.handle(message)
                return True
        return False


__all__ = ["Route", "Router", "matches"]
