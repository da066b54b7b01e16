"""Data written by the previous version: the stores of tests/data/stores/ (made by the code
before schema versions, see its README) open with today's code, are migrated, and hold all
their data; a table resumes from the journal and ends the session as the old code did."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.errors import ConfigError
from controller.events import dump_event, parse_event
from controller.mqtt import outbox as outbox_module
from controller.mqtt.outbox import Outbox
from controller.room.clock import store as clock_module
from controller.room.clock.store import ClockStore
from controller.room.floor import store as floor_module
from controller.room.floor.store import FloorStore, HandQuery
from controller.room.recorder import KIND as RECORDS_KIND
from controller.room.recorder import SqliteRecordStore
from controller.session import SessionConfig
from controller.storage.sqlite_store import StoreKind
from controller.table import journal as journal_module
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import MemorySink

STORES = Path(__file__).resolve().parent / "data" / "stores"
EXPECTED: dict[str, Any] = json.loads((STORES / "expected.json").read_text())
NOW = 1_795_000_000.0  # make_stores.py's table clock


def copied(tmp_path: Path, name: str) -> Path:
    """A copy to open: the committed file stays as the old version left it."""
    path = tmp_path / name
    shutil.copy2(STORES / name, path)
    return path


def header(path: Path) -> tuple[int, int]:
    db = sqlite3.connect(path)
    try:
        return (int(db.execute("PRAGMA user_version").fetchone()[0]),
                int(db.execute("PRAGMA application_id").fetchone()[0]))
    finally:
        db.close()


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize(("name", "kind"), [
    ("journal.db", journal_module.KIND), ("outbox.db", outbox_module.KIND),
    ("records.db", RECORDS_KIND), ("clock.db", clock_module.KIND),
    ("floor.db", floor_module.KIND), ("records-before-sent.db", RECORDS_KIND),
    ("outbox-before-keeper.db", outbox_module.KIND)])
def test_each_store_of_the_previous_version_is_migrated_once(
        tmp_path: Path, name: str, kind: StoreKind) -> None:
    assert header(STORES / name) == (0, 0)  # made before versions were counted
    assert not (STORES / f"{name}-wal").exists()
    path = copied(tmp_path, name)
    opener = {journal_module.KIND: Journal, outbox_module.KIND: Outbox,
              RECORDS_KIND: SqliteRecordStore, clock_module.KIND: ClockStore,
              floor_module.KIND: FloorStore}[kind]
    store = opener(path)
    assert store._store.migrated_from == 0
    store.close()
    assert header(path) == (kind.version, kind.application_id)
    again = opener(path)
    assert again._store.migrated_from is None  # up to date: nothing to do
    again.close()


def test_the_journal_recovers_what_the_previous_version_recovered(tmp_path: Path) -> None:
    expected = EXPECTED["table"]
    journal = Journal(copied(tmp_path, "journal.db"))
    try:
        recovery = journal.recovery()
        assert recovery.snapshot is not None
        assert recovery.snapshot.model_dump(mode="json") == expected["recovery"]["snapshot"]
        assert [dump_event(e) for e in recovery.events] == expected["recovery"]["events"]
        assert recovery.last_seq == expected["recovery"]["last_seq"]
        assert recovery.seqs == expected["recovery"]["seqs"]
        assert recovery.skipped == []
        assert [r.model_dump(mode="json") for r in journal.records()] == expected["records"]
        assert [r.hand for r in journal.undelivered()] == expected["undelivered"]
        service = TableService(SessionConfig(), journal, MemorySink(), clock=lambda: NOW)
        assert service.session.state().model_dump(mode="json") == expected["state"]
    finally:
        journal.close()


def test_a_table_resumes_from_a_journal_written_by_the_previous_version(tmp_path: Path) -> None:
    """The sixth hand was in progress: the rest of the session, played on the migrated journal,
    ends with every record the uninterrupted session had under the old code."""
    expected = EXPECTED["table"]
    journal = Journal(copied(tmp_path, "journal.db"))
    sink = MemorySink()
    service = TableService(SessionConfig(), journal, sink, clock=lambda: NOW)
    try:
        for raw in expected["events"][expected["journaled"]:]:
            step = service.process(parse_event(raw))
            assert step.error is None
        assert not [e.text for e in sink.events if e.kind == "refused"]
        records = [r.model_dump(mode="json") for r in journal.records()]
        # The hands played after the upgrade keep the table's size, a field the previous
        # version did not write (HandRecord.seat_count); everything else is as it was.
        sized = [r.pop("seat_count") for r in records[len(expected["records"]):]]
        assert sized and set(sized) == {SessionConfig().seats}
        assert all("seat_count" not in r for r in records[:len(expected["records"])])
        assert records == expected["all_records"]
        assert [r.hand for r in sink.records] == [
            r["hand"] for r in expected["all_records"][len(expected["records"]):]]
    finally:
        journal.close()


def test_the_outbox_sends_what_the_previous_version_left_in_it(tmp_path: Path) -> None:
    expected = EXPECTED["table"]["outbox"]
    outbox = Outbox(copied(tmp_path, "outbox.db"))
    try:
        assert [[o.seq, o.id, o.topic] for o in outbox.pending()] == expected["pending"]
        assert outbox.count_pending() == expected["count_pending"]
        assert outbox.count_unsent() == expected["count_unsent"]
        first = outbox.pending()[0]
        outbox.mark_sent(first.seq)
        assert outbox.count_unsent() == expected["count_unsent"] - 1
    finally:
        outbox.close()


def test_an_outbox_from_before_acknowledgements_gets_its_columns(tmp_path: Path) -> None:
    outbox = Outbox(copied(tmp_path, "outbox-before-keeper.db"))
    try:
        assert [o.id for o in outbox.pending()] == ["1-2-a"]
        assert outbox.put([("1-3-a", "t", b"{}", True)]) == 1
        assert outbox.mark_kept(["1-3-a"]) == 1
    finally:
        outbox.close()


def test_the_record_store_keeps_every_record_and_event(tmp_path: Path) -> None:
    expected = EXPECTED["recorder"]
    store = SqliteRecordStore(copied(tmp_path, "records.db"))
    try:
        assert store.ids() == expected["ids"]
        assert as_json(store.arrivals()) == expected["arrivals"]
        assert {str(k): v for k, v in store.sent_times().items()} == expected["sent_times"]
        assert [e.model_dump(mode="json") for e in store.events()] == expected["events"]
        assert [r.model_dump(mode="json") for r in store.records("1")] == \
            EXPECTED["table"]["records"]
    finally:
        store.close()


def test_a_record_store_from_before_send_times_gets_its_column(tmp_path: Path) -> None:
    """The ad-hoc migration the record store made at every open is now its schema's version 1."""
    path = copied(tmp_path, "records-before-sent.db")
    store = SqliteRecordStore(path)
    try:
        assert [r.hand for r in store.records()] == [1, 2]
        assert store.sent_times() == {}
        columns = [row[1] for row in store._db.execute("PRAGMA table_info(records)")]
        assert "sent" in columns and "venue" in columns
    finally:
        store.close()


def test_the_clock_resumes_its_position_and_remembers_its_commands(tmp_path: Path) -> None:
    expected = EXPECTED["clock"]
    store = ClockStore(copied(tmp_path, "clock.db"))
    try:
        position = store.position()
        assert position is not None and position.model_dump(mode="json") == expected["position"]
        assert {k: list(store.said(k) or ()) for k in expected["said"]} == expected["said"]
    finally:
        store.close()


def test_the_floor_keeps_its_alerts_and_hands(tmp_path: Path) -> None:
    expected = EXPECTED["floor"]
    path = copied(tmp_path, "floor.db")
    store = FloorStore(path)
    try:
        # (alerts kept before severities existed read back as warnings, with nothing to do;
        # before an alert could say its cause passed, as not passed)
        assert [a.model_dump(mode="json", exclude={"severity", "todo", "venue", "passed_at"})
                for a in store.open_alerts()] == expected["open"]
        assert {(a.severity, a.todo, a.venue, a.passed_at) for a in store.open_alerts()} == {
            ("warning", None, None, None)}
        assert as_json(store.acknowledged()) == expected["acknowledged"]
        assert [h.model_dump(mode="json", exclude={"venue"})
                for h in store.find(HandQuery())] == expected["hands"]
    finally:
        store.close()
    assert path.stat().st_mode & 0o777 == 0o640  # public data: the group may still read it


def test_a_floor_store_of_version_2_keeps_everything_and_learns_venues(tmp_path: Path) -> None:
    """Schema 3 keeps each hand's venue (a floor following several venues of a league): a
    floor.db of version 2 keeps its alerts, sessions and hands, in their order; its hands are
    of no venue until a floor following one venue adopts them; then two venues' hands of the
    same id are two hands."""
    expected = json.loads((STORES / "floor-v2.json").read_text())
    assert header(STORES / "floor-v2.db") == (2, floor_module.KIND.application_id)
    path = copied(tmp_path, "floor-v2.db")
    store = FloorStore(path)
    try:
        assert store._store.migrated_from == 2
        assert header(path) == (floor_module.KIND.version, floor_module.KIND.application_id)
        assert [a.model_dump(mode="json", exclude={"venue", "passed_at"})
                for a in store.open_alerts()] == expected["open"]
        assert all(a.passed_at is None for a in store.open_alerts())  # (kept before it said)
        assert as_json(store.acknowledged()) == expected["acknowledged"]
        assert [s.model_dump(mode="json") for s in store.sessions()] == expected["sessions"]
        hands = store.find(HandQuery())
        assert [h.model_dump(mode="json", exclude={"venue"}) for h in hands] == expected["hands"]
        assert {h.venue for h in hands} == {""}
        assert store.adopt("hall-a") == len(hands) == 5
        assert [h.id for h in store.find(HandQuery(venue="hall-a"))] == [h.id for h in hands]
        first = hands[0].id
        record = store.hand(first)
        assert record is not None and store.hand(first, "hall-a") == record
        assert store.add_hand(first, record, "hall-a") is False  # the same hand again
        assert store.add_hand(first, record, "hall-b") is True  # another venue's: kept too
        assert store.hand(first, "hall-b") == record and store.hand(first, "nowhere") is None
        assert [h.venue for h in store.find(HandQuery(table="1", hand=record.hand))] == [
            "hall-b", "hall-a"]
        assert store.adopt("hall-c") == 0  # nothing left without a venue
    finally:
        store.close()
    assert path.stat().st_mode & 0o777 == 0o640
    again = FloorStore(path)
    try:
        assert again._store.migrated_from is None
        assert len(again.find(HandQuery())) == 6
    finally:
        again.close()


def test_a_store_from_a_newer_version_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = copied(tmp_path, "clock.db")
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(ConfigError) as refused:
        ClockStore(path)
    assert str(refused.value) == (
        f"{path}: a clock store of schema version 7, newer than this pokertable knows "
        f"({clock_module.KIND.version}): upgrade pokertable or restore a backup")
    assert path.read_bytes() == before
