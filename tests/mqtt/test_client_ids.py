"""Client ids bound to their owners: a login cannot push another client off the
broker by taking its client id, nor take over or wipe the recorder's persistent session."""

from __future__ import annotations

from pathlib import Path

from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, SqliteRecordStore
from tests.mqtt.helpers import linked_table
from tests.session.helpers import played_session
from tests.venue import Broker, VenueClient, address, login
from tests.waiting import wait_until

OTHERS = ("display", "floor", "clock", "recorder", "table-2")


def test_no_login_can_push_a_table_off_the_broker_with_its_client_id(
        broker: Broker, tmp_path: Path) -> None:
    topics = Topics(broker.plan.venue)
    status = topics.table("1", "status")
    watcher = VenueClient(broker, "floor", ("table/1/status", "table/1/reply"))
    try:
        with linked_table(broker, tmp_path) as table:
            assert watcher.wait(lambda ms: any(b'"online"' in m.payload for m in ms))
            for name in OTHERS:
                intruder = VenueClient(broker, name, (), client_id="table-1")
                assert not intruder.refused, name
                intruder.close()
            # A take-over fires the table's Last Will before the intruder's CONNACK: the table's
            # answer to a command sent after that comes after the Will would have.
            assert not watcher.publish(topics.table("1", "cmd/hold"),
                                       b'{"v": 1, "id": "h", "args": {"kind": "none"}}',
                                       correlation=b"after").is_failure
            assert watcher.wait(lambda ms: any(m.correlation == b"after" for m in ms))
            assert table.link.connected.is_set()
            assert not any(b'"offline"' in m.payload for m in watcher.messages
                           if m.topic == status)
    finally:
        watcher.close()


def test_the_recorders_queued_records_survive_a_login_using_its_client_id(
        broker: Broker, tmp_path: Path) -> None:
    store = SqliteRecordStore(tmp_path / "records.db")
    recorder = Recorder(address(broker), login(broker, "recorder"), store).start()
    assert recorder.connected.wait(5)
    recorder.close()  # away: the broker keeps its session and queues for it
    try:
        with linked_table(broker, tmp_path / "table") as table:
            table.feed(played_session(4, seed=3))
            table.settle()
            sealed = len(table.service.journal.records())
            assert sealed >= 3
            assert wait_until(lambda: table.outbox.count_unsent() == 0)  # the broker has them
        for name in ("display", "floor", "clock", "table-2"):
            # A clean start under the recorder's id would wipe its session and queue.
            # A session taken over would hand its queue over right after the CONNACK, before
            # the SUBACK VenueClient waits for.
            intruder = VenueClient(broker, name, ("#",), client_id="recorder")
            assert not any("/secure/" in m.topic for m in intruder.messages), name
            intruder.close()
        back = Recorder(address(broker), login(broker, "recorder"), store).start()
        try:
            assert back.wait_for(sealed, timeout=10), "queued records were lost"
            assert [r.hand for r in store.records("1")] == list(range(1, sealed + 1))
        finally:
            back.close()
    finally:
        store.close()
