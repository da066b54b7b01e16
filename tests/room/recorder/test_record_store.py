"""The record store's one interface, against both stores (`store_location`: a SQLite file and a
schema of a real PostgreSQL the tests start): each record once per venue, read back whole, and
found by table, hand, player and time exactly as `HandQuery.matches` finds it."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from controller.engine.records import HandRecord
from controller.errors import ConfigError
from controller.history.query import HandQuery
from controller.mqtt.messages import EventMessage, SecureRecordMessage
from controller.room.recorder import RecordStore, StoreUnavailable, open_record_store
from controller.room.recorder.postgres import VERSION
from controller.session.outputs import hand_id
from harness.pg_cluster import PgCluster
from tests.session.helpers import played_session, start

NAMES = ["Anna", "Bernd", "Cem", "Dana", "Emil", "Frieda", "Gül", "Hans", "Ida"]
T0 = 1_795_000_000.0


def template_records() -> list[HandRecord]:
    records = start(played_session(hands=6, seed=11, players=6)).records()
    assert len(records) >= 5
    return records


def varied(count: int, seed: int = 3) -> list[HandRecord]:
    """``count`` records: the played hands with other tables, numbers, players and times (a
    few without a start time, as a table without a shuffle time would seal them)."""
    rng = random.Random(seed)
    templates = template_records()
    out = []
    for n in range(count):
        record = templates[n % len(templates)]
        names = rng.sample(NAMES, len(record.players))
        started = None if n % 17 == 5 else T0 + rng.randrange(0, 3600 * 24)
        out.append(record.model_copy(update={
            "table": str(1 + n % 3), "hand": 1 + n // 3, "started": started,
            "players": dict(zip(sorted(record.players), names, strict=True)),
            "cash": n % 3 == 2}))  # table 3 deals the cash game
    return out


def message(record: HandRecord, sent: float = T0) -> SecureRecordMessage:
    return SecureRecordMessage(id=hand_id(record.table, record.hand, record.started),
                               table=record.table, hand=record.hand, sent=sent, record=record)


def reference(records: list[HandRecord], query: HandQuery) -> list[HandRecord]:
    """What a search must return: `matches`, oldest shuffle first (no start time first of all),
    arrival order among equals, at most ``limit``."""
    order = sorted(range(len(records)), key=lambda i: (
        records[i].started is not None, records[i].started or 0.0, i))
    found = [records[i] for i in order if query.matches(records[i])]
    return found[:query.limit] if query.limit is not None else found


@pytest.fixture
def store(store_location: str | Path) -> RecordStore:
    opened = open_record_store(store_location)
    yield opened  # type: ignore[misc]
    opened.close()


def test_each_record_is_kept_once_per_venue_and_read_back_whole(store: RecordStore) -> None:
    records = varied(12)
    for n, record in enumerate(records):
        assert store.add(message(record), received=T0 + n, venue="hall")
    assert not store.add(message(records[0]), received=T0 + 99, venue="hall")  # again
    # The same id at another venue is another hand (a league: both venues have a table 1).
    assert store.add(message(records[0]), received=T0 + 100, venue="casino")
    assert store.count() == 13
    assert store.ids() == [message(r).id for r in records] + [message(records[0]).id]
    by_table = sorted(records, key=lambda r: (r.table, r.hand))
    assert store.records() == sorted([*by_table, records[0]], key=lambda r: (r.table, r.hand))
    assert store.records("2") == [r for r in by_table if r.table == "2"]
    kept = store.hands(HandQuery(), venue="casino")
    assert [(h.venue, h.id, h.received, h.sent) for h in kept] == [
        ("casino", message(records[0]).id, T0 + 100, T0)]
    assert kept[0].record == records[0]  # every hole card, every action, as sent
    assert store.hands(HandQuery(hand=1, table="1"), venue="hall")[0].record.hole_cards == \
        records[0].hole_cards
    arrivals = store.arrivals()
    assert [a[3] for a in arrivals] == [T0 + n for n in range(12)] + [T0 + 100]
    assert store.sent_times()[records[1].hand] == T0


def test_the_venues_kept_and_a_stream_of_each_hand_with_its_venue(store: RecordStore) -> None:
    assert store.venues() == []
    records = varied(6)
    for venue in ("hall-b", "", "hall-a"):
        for n, record in enumerate(records):
            store.add(message(record), received=T0 + n, venue=venue)
    assert store.venues() == ["", "hall-a", "hall-b"]  # a store from before venues: ""
    streamed = list(store.stream(HandQuery()))
    assert [(h.venue, h.id, h.record) for h in streamed] == [
        (h.venue, h.id, h.record) for h in store.hands(HandQuery())]
    assert [h.venue for h in store.stream(HandQuery(limit=4), venue="hall-a")] == ["hall-a"] * 4


def test_durable_events_are_kept_once_in_arrival_order(store: RecordStore) -> None:
    run = start(played_session(hands=6, seed=11, players=6))
    # The journal gives durable events their ids (table:hand:start:seq.n); here, by hand.
    durable = [e.model_copy(update={"id": f"1:{e.hand}:0:{n}.0"})
               for n, e in enumerate(run.events[:6])]
    for event in durable:
        assert store.add_event(EventMessage(table="1", id=event.id, sent=T0, event=event), T0,
                               "hall")
    first = durable[0]
    assert not store.add_event(EventMessage(table="1", id=first.id, sent=T0, event=first), T0,
                               "hall")
    assert store.events() == durable
    assert store.events("2") == []


@pytest.mark.parametrize("query", [
    HandQuery(),
    HandQuery(player="Anna"),
    HandQuery(player="Ida", table="3"),
    HandQuery(player="Gül", since=T0 + 3600 * 6, until=T0 + 3600 * 18),
    HandQuery(player="Cem", limit=4),
    HandQuery(player="Nobody"),
    HandQuery(table="2"),
    HandQuery(table="1", hand=7),
    HandQuery(hand=3),
    HandQuery(since=T0 + 3600 * 12),
    HandQuery(until=T0 + 3600),
    HandQuery(since=T0, until=T0 + 3600 * 24, limit=10),
    HandQuery(limit=5),
    HandQuery(game="cash"),
    HandQuery(game="tournament", player="Anna"),
], ids=lambda q: q.model_dump_json(exclude_none=True))
def test_search_finds_what_matches_finds(store: RecordStore, query: HandQuery) -> None:
    records = varied(90)
    for n, record in enumerate(records):
        store.add(message(record), received=T0 + n, venue="hall")
    expected = reference(records, query)
    assert store.search(query) == expected
    assert store.search(query, venue="hall") == expected
    assert store.search(query, venue="elsewhere") == []
    if query.player is not None and query.player != "Nobody":
        assert expected, "the query finds something"


def test_a_second_recorder_on_the_same_store_is_refused_a_reader_is_not(
        store_location: str | Path) -> None:
    first = open_record_store(store_location)
    try:
        second = subprocess.run(
            [sys.executable, "-c", "import sys\n"
             "from controller.errors import ConfigError\n"
             "from controller.room.recorder import open_record_store\n"
             "try:\n    open_record_store(sys.argv[1])\n"
             "except ConfigError as exc:\n    print(exc)\n    sys.exit(2)\n",
             str(store_location)], capture_output=True, text=True, timeout=60, check=False)
        assert second.returncode == 2, second.stderr
        said = second.stdout.strip()
        assert "is in use by" in said and "pid" in said and "one" in said, said
        if isinstance(store_location, str):  # a URL: its password is never said
            password = conninfo_to_dict(store_location)["password"]
            assert password and password not in said
        first.add(message(varied(1)[0]), T0, "hall")
        reader = open_record_store(store_location, readonly=True)
        try:
            assert reader.count() == 1
        finally:
            reader.close()
    finally:
        first.close()
    again = open_record_store(store_location)  # the lock went with the first
    assert again.count() == 1
    again.close()


def test_a_store_from_before_venues_is_adopted_by_its_venue(store: RecordStore) -> None:
    record = varied(1)[0]
    assert store.add(message(record), T0)  # venue "": as a store of the previous version
    assert store.adopt("hall") == 1
    assert not store.add(message(record), T0, "hall")  # the table sends it again: known
    assert store.adopt("hall") == 0


# ---------------------------------------------------------------------------- PostgreSQL


def test_postgres_refuses_a_newer_schema_and_a_database_not_its_own(
        pg_cluster: PgCluster) -> None:
    newer = pg_cluster.new_schema("newer_schema")
    open_record_store(newer).close()
    with psycopg.connect(newer, autocommit=True) as conn:
        conn.execute("UPDATE pokertable_schema SET version = %s", (VERSION + 1,))
    with pytest.raises(ConfigError, match=f"schema version {VERSION + 1}, newer than"):
        open_record_store(newer)
    foreign = pg_cluster.new_schema("foreign_schema")
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE records (x INTEGER)")
    with pytest.raises(ConfigError, match="not a pokertable record store's"):
        open_record_store(foreign)
    wrong = pg_cluster.url().replace(f":{pg_cluster.password}@", ":wrong@")
    with pytest.raises(ConfigError) as refused:
        open_record_store(wrong)
    assert "wrong" not in str(refused.value) and pg_cluster.password not in str(refused.value)
    assert "cannot open the record store postgresql://pokertable@127.0.0.1" in str(
        refused.value)


def test_postgres_restarted_under_the_store_keeps_it_exactly_once(
        pg_cluster: PgCluster) -> None:
    """The server goes away: nothing is kept and the store says so (no acknowledgement); back,
    the store connects again, takes its lock again, and a record whose insert committed is a
    duplicate, not a second copy."""
    store = open_record_store(pg_cluster.new_schema("restarted"))
    records = varied(3)
    try:
        assert store.add(message(records[0]), T0, "hall")
        pg_cluster.stop()
        with pytest.raises(StoreUnavailable):
            store.add(message(records[1]), T0, "hall")
        # Gone: a ping opens one connection, not two (a server that does not answer costs one
        # connect_timeout, which keeps the recorder's healer within the watchdog's time)
        connects: list[int] = []
        opening = store._connect

        def counted() -> object:
            connects.append(1)
            return opening()
        store._connect = counted  # type: ignore[method-assign]
        with pytest.raises(StoreUnavailable):
            store.ping()
        assert len(connects) == 1
        pg_cluster.start()
        store.ping()
        assert not store.add(message(records[0]), T0, "hall")
        assert store.add(message(records[1]), T0, "hall")
        assert store.ids() == [message(r).id for r in records[:2]]
    finally:
        if pg_cluster.process is None:
            pg_cluster.start()
        store.close()


def test_the_recorder_configuration_takes_a_file_or_a_url(tmp_path: Path) -> None:
    from controller.room.recorder.config import load_recorder_config

    def config(section: str) -> Path:
        path = tmp_path / "recorder.toml"
        path.write_text(f'[recorder]\n{section}\n[mqtt]\nvenue = "league"\n'
                        'credentials = "credentials.json"\n')
        return path

    url = "postgresql://recorder@db.league.example/hands"
    loaded = load_recorder_config(config(f'store = "{url}"\nfollow = ["hall-a", "hall-b"]'))
    assert loaded.recorder.store == url and loaded.recorder.follow == ["hall-a", "hall-b"]
    assert loaded.recorder.keeper
    older = load_recorder_config(config('db = "records.db"\nkeeper = false'))
    assert older.recorder.store == str(tmp_path / "records.db") and not older.recorder.keeper
    with pytest.raises(ConfigError, match="not both"):
        load_recorder_config(config('db = "a.db"\nstore = "b.db"'))
    with pytest.raises(ConfigError, match="Hall A"):
        load_recorder_config(config('follow = ["Hall A"]'))
