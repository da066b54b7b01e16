"""The cash floor's part of the ACL `pokertable broker init` writes, against a real Mosquitto:
the ``cash`` login writes its state, status, contacts and replies and reads its commands; the
floor reads all of them and sends the commands; a display (each of them) reads the lists and the
status, never the contacts (the players' telephone numbers), and sends nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.mqtt.broker_init import BrokerPlan, acl_text
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.topics import Topics
from tests.venue import VenueClient


@pytest.fixture(scope="module")
def venue() -> Iterator[LocalBroker]:
    with LocalBroker("testhall", tables=1, displays=2) as running:
        yield running


def test_broker_init_gives_the_cash_floor_a_login_and_no_display_its_contacts() -> None:
    acl = acl_text(BrokerPlan(venue="hall", tables=1, port=1883, tls_port=8883, displays=2,
                              hostnames=["broker.hall.lan"]))
    blocks = {block.splitlines()[0]: block.splitlines()[1:]
              for block in acl.split("\n\n") if block.startswith("user ")}
    root = "pokertable/v1/hall/cash"
    tables = "pokertable/v1/hall/table/+"  # it seats and unseats players there, nothing else
    assert blocks["user cash"] == [f"topic write {root}/{leaf}" for leaf in
                                   ("state", "status", "contacts", "reply")] + [
        f"topic read {root}/cmd/#", f"topic read {tables}/state", f"topic read {tables}/reply",
        f"topic write {tables}/cmd/seat", f"topic write {tables}/cmd/unseat"]
    assert {line for line in blocks["user floor"] if "/cash/" in line} == {
        f"topic read {root}/{leaf}" for leaf in ("state", "status", "contacts", "reply")} | {
        f"topic write {root}/cmd/#"}
    for display in ("user display", "user display-2"):
        assert [line for line in blocks[display] if "/cash/" in line] == [
            f"topic read {root}/state", f"topic read {root}/status"], display
    others = [user for user in blocks if user not in ("user cash", "user floor")
              and not user.startswith("user display")]
    assert not any("/cash/" in line for user in others for line in blocks[user])


def test_a_display_cannot_read_the_cash_floors_contacts(venue: LocalBroker) -> None:
    t = Topics(venue.plan.venue)
    # Each reader also hears a sentinel, published last on a topic it may read (the table's
    # event, the clock's time): Mosquitto has queued a message to its readers before the
    # PUBACK and keeps each reader's messages in order, so what a reader has of the cash
    # floor's once its sentinel is in is all it will ever get.
    sentinels = (t.table("1", "event"), t.clock("time"))
    readers = {name: VenueClient(venue, name, ("cash/#", "table/1/event", "clock/time"))
               for name in ("display", "display-2", "floor", "tournament", "clock", "recorder",
                            "table-1")}
    cash = VenueClient(venue, "cash", ("cash/#",))
    try:
        written = [t.service("cash", leaf) for leaf in ("contacts", "reply", "status", "state")]
        for topic in written:
            assert cash.may_write(topic), topic
        assert readers["floor"].may_write(t.service("cash", "cmd/sign_up"))
        public = {t.service("cash", "state"), t.service("cash", "status")}
        expected = {"display": public, "display-2": public, "floor": set(written),
                    "tournament": set(), "clock": set(), "recorder": set(), "table-1": set()}
        for writer, topic in zip((readers["table-1"], readers["clock"]), sentinels, strict=True):
            assert not writer.publish(topic, b'{"sentinel": true}').is_failure, topic
        for name, reader in readers.items():
            assert reader.wait(lambda ms: any(m.payload == b'{"sentinel": true}' for m in ms)), \
                name
        assert {name: {topic for topic in reader.topics() if topic not in sentinels}
                for name, reader in readers.items()} == expected
        # The cash floor's own sentinel is the floor's command, written after its own topics:
        # once it is in, whatever its own writes would have brought it has come before
        sign_up = t.service("cash", "cmd/sign_up")
        assert cash.wait(lambda ms: any(m.topic == sign_up for m in ms)), cash.topics()
        assert cash.topics() == {sign_up}  # its commands, nothing else
    finally:
        for client in [*readers.values(), cash]:
            client.close()


def test_only_the_cash_floor_writes_its_topics_and_only_the_floor_commands_it(
        venue: LocalBroker) -> None:
    t = Topics(venue.plan.venue)
    ours = [t.service("cash", leaf) for leaf in ("state", "status", "contacts", "reply")]
    command = t.service("cash", "cmd/must_move")
    matrix: dict[str, list[tuple[str, bool]]] = {
        "cash": [*[(topic, True) for topic in ours], (command, False),
                 (t.table("1", "cmd/seat"), True), (t.table("1", "cmd/unseat"), True),
                 (t.table("1", "cmd/void"), False), (t.table("1", "state"), False),
                 (t.service("tournament", "state"), False)],
        "floor": [*[(topic, False) for topic in ours], (command, True)],
        "display": [*[(topic, False) for topic in ours], (command, False)],
        "display-2": [(t.service("cash", "contacts"), False), (command, False)],
        "tournament": [(t.service("cash", "state"), False), (command, False)],
        "table-1": [(t.service("cash", "contacts"), False), (command, False)],
    }
    for name, cases in matrix.items():
        writer = VenueClient(venue, name, ())
        try:
            assert not writer.refused, name
            assert [(topic, writer.may_write(topic)) for topic, _ in cases] == cases, name
        finally:
            writer.close()
