"""The recorder on a real broker: it keeps each hand once, and only what a table may say of
itself (the topic vouches for the table, the ACL for the topic)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.engine.records import HandRecord
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import SecureRecordMessage, encode
from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, RecordStore, SqliteRecordStore
from controller.session.outputs import hand_id
from tests.mqtt.helpers import wait_until
from tests.session.helpers import played_session, start
from tests.venue import VenueClient, address, login


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
def room(broker: LocalBroker, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Room]:
    store = SqliteRecordStore(tmp_path / "records.db")
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
