"""The recorder on a real broker: it keeps each hand once, and only what a table may say of
itself (the topic vouches for the table, the ACL for the topic)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.engine.records import HandRecord
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import SecureRecordMessage, encode
from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, RecordStore, open_record_store
from controller.session.outputs import hand_id
from harness.pg_cluster import PgCluster
from tests.mqtt.helpers import linked_table
from tests.session.helpers import played_session, start
from tests.venue import VenueClient, address, login
from tests.waiting import wait_until


def two_records() -> list[HandRecord]:
    run = start(played_session(hands=3, seed=11))
    records = run.records()
    assert len(records) >= 2
    return records[:2]


def message(table: str, record: HandRecord, started: float) -> SecureRecordMessage:
    return SecureRecordMessage(id=hand_id(table, record.hand, started), table=table,
                               hand=record.hand, sent=started, record=record)


@dataclass
class Room:
    recorder: Recorder
    store: RecordStore
    table: VenueClient  # table-1, writing its own secure/record
    topic: str


@pytest.fixture
def room(broker: LocalBroker, store_location: str | Path, request: pytest.FixtureRequest
         ) -> Iterator[Room]:
    """The recorder on either store (SQLite, PostgreSQL)."""
    store = open_record_store(store_location)
    recorder = Recorder(address(broker), login(broker, "recorder"), store,
                        client_id=f"recorder-{request.node.name}"[:60]).start()
    table = VenueClient(broker, "table-1", topics=())
    try:
        assert recorder.connected.wait(5)
        yield Room(recorder, store, table, Topics(broker.plan.venue).table("1", "secure/record"))
    finally:
        table.close()
        recorder.close()
        store.close()


def test_each_hand_is_kept_once_and_duplicates_are_counted(room: Room) -> None:
    first, second = two_records()
    for payload in (message("1", first, 1.0), message("1", first, 1.0),
                    message("1", second, 2.0)):
        assert not room.table.publish(room.topic, encode(payload)).is_failure
    assert room.recorder.wait_for(2)
    assert wait_until(lambda: room.recorder.received >= 3)
    assert room.store.ids() == [hand_id("1", first.hand, 1.0), hand_id("1", second.hand, 2.0)]
    assert room.recorder.duplicates == 1
    assert room.store.records("1") == [first, second]


def test_a_record_for_another_table_or_garbage_is_not_kept(room: Room) -> None:
    record, _ = two_records()
    # table-1 may write only its own subtree, so it can only lie in the payload.
    assert not room.table.publish(room.topic, encode(message("2", record, 1.0))).is_failure
    assert not room.table.publish(room.topic, b'{"v": 1, "id": "x"').is_failure
    assert wait_until(lambda: room.recorder.rejected >= 2)
    # (The recorder's session is one per login: a record an earlier test left unacknowledged
    # may arrive too, and is rightly kept. Nothing of table 2 or the garbage is.)
    assert not [i for i in room.store.ids() if not i.startswith("1:")]
    assert room.recorder.rejected == 2


def test_a_store_outage_loses_nothing_and_keeps_each_record_once(
        broker: LocalBroker, pg_cluster: PgCluster, tmp_path: Path) -> None:
    """PostgreSQL goes away while a table plays: the recorder keeps nothing and acknowledges
    nothing, so the table holds the records; the server back, the recorder says online again,
    the table sends what it holds, and each record is kept once."""
    store = open_record_store(pg_cluster.new_schema("outage"))
    recorder = Recorder(address(broker), login(broker, "recorder"), store).start()
    parts = played_session(hands=8, seed=7)
    cut = next(i for i, raw in enumerate(parts) if raw["type"] == "shuffle" and i > 40)
    try:
        assert recorder.connected.wait(5)
        with linked_table(broker, tmp_path / "table") as table:
            table.feed(parts[:cut])
            table.settle()
            before = len(table.service.journal.records())
            assert before >= 1 and recorder.wait_for(before)
            pg_cluster.stop()
            try:
                table.feed(parts[cut:])
                table.settle()
                sealed = table.service.journal.records()
                assert len(sealed) > before
                assert wait_until(lambda: recorder.store_failures >= 1)
                assert table.outbox.count_pending() >= len(sealed) - before  # held
            finally:
                pg_cluster.start()
            assert recorder.wait_for(len(sealed), timeout=30), "records lost in the outage"
            assert wait_until(lambda: table.outbox.count_pending() == 0, 30)
        ids = store.ids()
        assert len(ids) == len(set(ids)) == len(sealed)
        assert store.records("1") == sealed
    finally:
        recorder.close()
        store.close()


def test_the_recorder_command_keeps_records_in_postgresql(
        broker: LocalBroker, pg_cluster: PgCluster) -> None:
    """`pokertable recorder --store postgresql://...` end to end: it starts, keeps what a
    table sends, acknowledges it, and stops cleanly on SIGTERM (the password never logged)."""
    url = pg_cluster.new_schema("from_the_command")
    recorder = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "recorder", "--broker-port", str(broker.port),
         "--venue", broker.plan.venue, "--credentials",
         str(broker.directory / "credentials.json"), "--store", url],
        stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[3])
    table = VenueClient(broker, "table-2", topics=("table/2/ack", "recorder/status"))
    try:
        record, _ = two_records()
        sent = message("2", record.model_copy(update={"table": "2"}), 5.0)
        assert table.wait(lambda ms: any(b'"online"' in m.payload for m in ms), timeout=30)
        table.publish(Topics(broker.plan.venue).table("2", "secure/record"), encode(sent))
        assert table.wait(lambda ms: any(m.topic.endswith("/ack") for m in ms))
        reader = open_record_store(url, readonly=True)
        try:
            assert reader.ids() == [sent.id]
        finally:
            reader.close()
    finally:
        table.close()
        recorder.send_signal(signal.SIGTERM)
        _, said = recorder.communicate(timeout=20)
    assert recorder.returncode == 0, said
    assert "following testhall" in said and pg_cluster.password not in said
