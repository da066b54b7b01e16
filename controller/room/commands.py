"""The floor's commands to a central service (``<service>/cmd/<name>``), received the one way
every service receives them: a retained command is ignored (a decision is taken once, on what
the floor sees now), a payload that is not a `CommandRequest` is answered with its reason, and
a command id already applied is answered again without acting twice (the same id for another
command is refused). The clock and the tournament share this; each keeps its own journal of the
ids it applied."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import paho.mqtt.client as mqtt

from controller.mqtt.client import publish_reply
from controller.mqtt.messages import BadMessage, CommandReply, CommandRequest, decode


@dataclass(frozen=True)
class Incoming:
    """A command as it arrived: its name, the request (None: malformed, ``error`` says why) and
    the MQTT v5 correlation data its answer carries back."""

    name: str
    request: CommandRequest | None
    correlation: bytes | None
    error: str | None = None


def incoming(message: mqtt.MQTTMessage, prefix: str, log: logging.Logger,
             service: str) -> Incoming | None:
    """The command on ``message`` (its topic starts with ``prefix``); None for a retained one,
    which is logged and ignored."""
    name = message.topic.removeprefix(prefix)[:80]
    if message.retain:
        log.warning("%s: ignored a retained command on %s", service, message.topic)
        return None
    correlation = getattr(message.properties, "CorrelationData", None)
    try:
        request = decode(CommandRequest, message.payload)
    except BadMessage as exc:
        return Incoming(name, None, correlation, f"malformed command: {exc}")
    return Incoming(name, request, correlation)


def repeated(name: str, request_id: str, done: tuple[str, str] | None
             ) -> tuple[bool, str] | None:
    """A command id already in the journal (``done``: the command applied under it and what
    was said): (ok, the answer); None for a new id."""
    if done is None:
        return None
    if done[0] != name:
        return False, (f"command id {request_id} was already used for {done[0]!r}: a new "
                       "command needs a new id; nothing done")
    return True, f"command {request_id} was already applied: {done[1]}"


def reply(client: mqtt.Client, topic: str, service: str, command: str, request_id: str | None,
          correlation: bytes | None, ok: bool, reason: str, rule: str | None = None) -> None:
    publish_reply(client, topic, CommandReply(table=service, command=command, id=request_id,
                                              status="ok" if ok else "error", reason=reason,
                                              rule=rule), correlation)


__all__ = ["Incoming", "incoming", "repeated", "reply"]
