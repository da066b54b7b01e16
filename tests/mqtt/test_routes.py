"""Topics routed by registration (controller/mqtt/routes.py): MQTT's filter rule, one route per
pattern, payloads decoded to their model before the handler sees them, a cleared retained
message handed to nobody, and every service's subscriptions declared in its route table."""

from __future__ import annotations

import paho.mqtt.client as mqtt
import pytest

from controller.mqtt.messages import BadMessage, StatusMessage, encode
from controller.mqtt.routes import Router, matches


@pytest.mark.parametrize(("pattern", "topic", "expected"), [
    ("a/table/+/state", "a/table/3/state", True),
    ("a/table/+/state", "a/table/3/status", False),
    ("a/table/+/state", "a/table/3/state/x", False),
    ("a/clock/cmd/+", "a/clock/cmd/pause", True),
    ("a/clock/cmd/+", "a/clock/cmd", False),
    ("a/#", "a", True),
    ("a/#", "a/b/c", True),
    ("a/b", "a/b", True),
    ("a/b", "a/c", False),
])
def test_mqtt_topic_filters(pattern: str, topic: str, expected: bool) -> None:
    assert matches(pattern, topic) is expected


def _message(topic: str, payload: bytes) -> mqtt.MQTTMessage:
    message = mqtt.MQTTMessage(topic=topic.encode())
    message.payload = payload
    return message


def test_payloads_reach_their_handler_decoded_and_only_theirs() -> None:
    seen: list[tuple[str, object]] = []
    router = Router()
    router.on("v/table/+/status", StatusMessage, lambda m, s: seen.append((m.topic, s.status)))
    router.on_raw("v/clock/cmd/+", lambda m: seen.append((m.topic, m.payload)), commands=True)
    status = encode(StatusMessage(table="3", status="online"))
    assert router.dispatch(_message("v/table/3/status", status))
    assert router.dispatch(_message("v/clock/cmd/pause", b"{}"))
    assert not router.dispatch(_message("v/table/3/state", status))
    assert router.dispatch(_message("v/table/3/status", b""))  # cleared: nobody is told
    assert seen == [("v/table/3/status", "online"), ("v/clock/cmd/pause", b"{}")]
    with pytest.raises(BadMessage):
        router.dispatch(_message("v/table/3/status", b'{"v": 1, "table": 3}'))
    options = dict(router.subscriptions())
    assert options["v/clock/cmd/+"].retainAsPublished
    assert not options["v/table/+/status"].retainAsPublished


def test_a_pattern_is_routed_once() -> None:
    router = Router()
    router.on_raw("v/x", lambda m: None)
    with pytest.raises(ValueError, match="routed twice"):
        router.on_raw("v/x", lambda m: None)
