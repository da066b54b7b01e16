"""The broker `pokertable broker init` configures, tested client by client against a
real Mosquitto: nobody anonymous, each client writes and reads only its part of the tree."""

from __future__ import annotations

import itertools
import ssl

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.mqtt.broker_init import SERVICE_CLIENTS
from controller.mqtt.topics import Topics
from tests.venue import Broker, VenueClient

_IDS = itertools.count()  # client ids of the TLS test's own clients


@pytest.fixture
def topics(broker: Broker) -> Topics:
    return Topics(broker.plan.venue)


def test_anonymous_and_wrong_passwords_are_refused(broker: Broker) -> None:
    anonymous = VenueClient(broker, None)
    wrong = VenueClient(broker, "table-1", password="not-the-password")
    stranger = VenueClient(broker, "mallory", password="guess")
    assert anonymous.refused and wrong.refused and stranger.refused
    allowed = VenueClient(broker, "table-1", ())
    assert allowed.reason is not None and not allowed.refused
    for client in (anonymous, wrong, stranger, allowed):
        client.close()


def test_acl_writes_client_by_client(broker: Broker, topics: Topics) -> None:
    t = topics
    matrix: dict[str, list[tuple[str, bool]]] = {
        "table-1": [(t.table("1", leaf), True) for leaf in
                    ("status", "state", "event", "record", "secure/record", "reply")]
        + [(t.table("2", "state"), False), (t.table("1", "cmd/void"), False),
           (t.clock("state"), False), (t.table("2", "secure/record"), False),
           (t.table("1", "ack"), False)],  # only the recorder may say a record is kept
        "clock": [(t.clock("state"), True), (t.clock("time"), True),
                  (t.table("1", "cmd/hold"), True), (t.table("2", "cmd/level"), True),
                  (t.table("1", "cmd/release"), True), (t.table("1", "cmd/void"), False),
                  (t.table("1", "cmd/seat"), False), (t.table("1", "state"), False),
                  (t.table("1", "cmd/stack"), False), (t.table("1", "cmd/colour_up"), False)],
        "floor": [(t.table("1", "cmd/void"), True), (t.table("2", "cmd/award"), True),
                  (t.table("1", "cmd/stack"), True), (t.table("1", "cmd/colour_up"), True),
                  (t.clock("cmd/level"), True), (t.service("tournament", "cmd/bust"), True),
                  (t.service("tournament", "state"), False), (t.table("1", "state"), False),
                  (t.clock("state"), False), (t.table("1", "ack"), False)],
        "recorder": [(t.table("1", "cmd/void"), False), (t.table("1", "record"), False),
                     (t.table("1", "ack"), True), (t.table("2", "ack"), True)],
        "display": [(t.table("1", "cmd/void"), False), (t.table("1", "state"), False),
                    (t.clock("cmd/level"), False), (t.table("1", "cmd/stack"), False),
                    (t.service("tournament", "state"), False)],
        "tournament": [(t.service("tournament", "state"), True),
                       (t.service("tournament", "reply"), True),
                       # seats and moves between hands, the seating hold, a broken table closed
                       (t.table("1", "cmd/seat"), True), (t.table("2", "cmd/unseat"), True),
                       (t.table("1", "cmd/hold"), True), (t.table("1", "cmd/release"), True),
                       (t.table("3", "cmd/close"), True),
                       # chips bought and the colour-up, between hands (RULES T5)
                       (t.table("1", "cmd/stack"), True), (t.table("2", "cmd/colour_up"), True),
                       # and no decision about a hand, nor the clock's levels
                       (t.table("1", "cmd/void"), False), (t.table("1", "cmd/award"), False),
                       (t.table("1", "cmd/level"), False),
                       (t.clock("state"), False), (t.clock("cmd/pause"), False),
                       (t.table("1", "state"), False), (t.table("1", "ack"), False)],
    }
    for name, cases in matrix.items():
        writer = VenueClient(broker, name, ())
        assert not writer.refused, name
        outcome = [(topic, writer.may_write(topic)) for topic, _ in cases]
        writer.close()
        assert outcome == cases, name


def test_acl_reads_client_by_client(broker: Broker, topics: Topics) -> None:
    """Everyone subscribes to the whole venue; the broker delivers only what each may read."""
    t = topics
    readers = {name: VenueClient(broker, name) for name in
               ("display", "recorder", "floor", "table-1", "table-2", "clock", "tournament")}
    # A client id is its login, so each login writes through its one connection.
    table_1, floor, clock, tournament = (readers[name] for name in
                                         ("table-1", "floor", "clock", "tournament"))
    published = {
        table_1: [t.table("1", leaf) for leaf in
                  ("status", "state", "event", "record", "secure/record", "reply")],
        floor: [t.table("1", "cmd/void"), t.table("2", "cmd/void"), t.clock("cmd/level"),
                t.service("tournament", "cmd/bust")],
        clock: [t.clock("state"), t.clock("time")],
        tournament: [t.service("tournament", "state"), t.service("tournament", "reply")],
        readers["recorder"]: [t.table("1", "ack")],
    }
    for writer, written in published.items():
        for topic in written:
            assert writer.may_write(topic), topic
    public = {t.table("1", leaf) for leaf in ("status", "state", "event", "record")}
    clock_public = {t.clock("state"), t.clock("time")}
    tournament_public = {t.service("tournament", "state")}
    expected = {
        "display": public | clock_public | tournament_public,
        "recorder": {t.table("1", "secure/record"), t.table("1", "record"),
                     t.table("1", "event")},
        "floor": public | {t.table("1", "reply"), t.service("tournament", "reply")}
        | clock_public | tournament_public,
        "table-1": {t.table("1", "cmd/void"), t.table("1", "ack")} | clock_public,
        "table-2": {t.table("2", "cmd/void")} | clock_public,
        "clock": public | tournament_public | {t.table("1", "reply"), t.clock("cmd/level")},
        "tournament": public | clock_public | {t.service("tournament", "cmd/bust"),
                                                t.table("1", "reply")},
    }
    # Sentinels, published last: each reader hears one of them after everything published
    # before it (Mosquitto has queued a message to its readers before the PUBACK, and keeps
    # each reader's messages in order), so what it has then is all it will ever get of those.
    for writer, topic in ((table_1, t.table("1", "event")), (clock, t.clock("time"))):
        assert not writer.publish(topic, b'{"sentinel": true}').is_failure, topic
    for name, reader in readers.items():  # (each may read one of them at least)
        assert reader.wait(lambda ms: any(m.payload == b'{"sentinel": true}' for m in ms)), name
        assert reader.topics() == expected[name], name
    for client in readers.values():
        client.close()


def test_broker_files_mosquitto_can_read_and_secrets_are_private(broker: Broker) -> None:
    conf = broker.directory
    assert (conf / "credentials.json").stat().st_mode & 0o777 == 0o600
    assert (conf / "ca.key").stat().st_mode & 0o777 == 0o600
    passwd = (conf / "passwd").read_text().splitlines()
    assert len(passwd) == broker.plan.tables + len(SERVICE_CLIENTS)
    assert all(":$7$101$" in line for line in passwd)
    assert "allow_anonymous false" in (conf / "mosquitto.conf").read_text()


def test_tls_listener_for_the_room_with_the_venues_ca(broker: Broker) -> None:
    """The LAN listener speaks TLS with a certificate the generated CA signed (for localhost and
    the host's name); a client that trusts the CA connects, one that does not is refused."""
    trusted = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"tls-{next(_IDS)}",
                          protocol=mqtt.MQTTv5)
    trusted.tls_set(ca_certs=str(broker.directory / "ca.crt"))
    trusted.username_pw_set("display", broker.credentials["display"].password)
    assert trusted.connect("localhost", broker.plan.tls_port) == mqtt.MQTT_ERR_SUCCESS
    trusted.disconnect()
    stranger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"tls-{next(_IDS)}",
                           protocol=mqtt.MQTTv5)
    stranger.tls_set()  # the system's CAs only: the venue's certificate is not among them
    with pytest.raises(ssl.SSLError):
        stranger.connect("localhost", broker.plan.tls_port)
