"""Topics routed by registration (controller/mqtt/routes.py): MQTT's filter rule, one route per
pattern, payloads decoded to their model before the handler sees them, a cleared retained
message handed to nobody, and every service's subscriptions declared in its route table."""

from __future__ import annotations

import logging
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from pydantic import SecretStr

from controller.mqtt.client import BrokerAddress, Login
from controller.mqtt.link import TableLink
from controller.mqtt.messages import BadMessage, ClockState, StatusMessage, encode
from controller.mqtt.outbox import Outbox
from controller.mqtt.routes import Router, matches
from controller.mqtt.topics import Topics


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


def test_a_table_hears_what_its_route_table_declares_and_nothing_else(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The table's link routes as the room's services do: its five subscriptions are its route
    table (the floor's commands kept retained as published), a clock state reaches it decoded,
    a cleared retained one nobody, and a command left retained is not taken (PVB 14(2): a new
    level from the clock; the link is not started, the router alone is asked)."""
    outbox = Outbox(tmp_path / "outbox.db")
    login = Login(username="table-1", password=SecretStr("unused"))
    link = TableLink(BrokerAddress(venue="hall"), login, "1", outbox)
    try:
        t = Topics("hall")
        options = dict(link.routes.subscriptions())
        assert set(options) == {t.table("1", "cmd/+"), t.table("1", "ack"),
                                t.service("recorder", "status"), t.clock("state"),
                                t.clock("time/1")}
        assert options[t.table("1", "cmd/+")].retainAsPublished
        assert [o.QoS for o in options.values()].count(0) == 1  # the time answers only
        state = ClockState(level=2, sb=100, bb=200, ends_at=1234.5)
        assert link.routes.dispatch(_message(t.clock("state"), encode(state)))
        assert link._level_ends_at == 1234.5
        assert link.routes.dispatch(_message(t.clock("state"), b""))  # cleared: nobody told
        assert link._level_ends_at == 1234.5
        command = _message(t.table("1", "cmd/pause"), b"{}")
        command.retain = True
        with caplog.at_level(logging.WARNING):
            assert link.routes.dispatch(command)
        assert "ignored a retained command" in caplog.text
        assert not link.routes.dispatch(_message(t.table("2", "cmd/pause"), b"{}"))
    finally:
        outbox.close()
