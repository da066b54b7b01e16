"""A player's hands in a store of a million: the record store's search by player, SQLite and
PostgreSQL side by side (target: under 50 ms), and the rate at which each store keeps records
as the recorder writes them (one committed transaction per record).

The million hands are the records of a played session varied, not a million hands played:
each copy gets another venue, table, hand number, start time and players (from a pool of
20,000 names), so the store's indexes see a league's spread. The first records go in through
the store's own `add` (timed: the insert rate); the rest are loaded in bulk (SQLite: batched
transactions; PostgreSQL: COPY) into the same tables, then the planner's statistics are
updated. PostgreSQL runs as a real server would (fsync and synchronous commits on), in a
throwaway cluster like the tests' (tests/pg_cluster.py).

Printed beside each store's figures, measured in the same run: the search without the side
table (a scan of every record's JSON, the reference the index is measured against), and on
PostgreSQL the other way to index players, a GIN index on an array of names, for the choice
of the side table.

    .venv/bin/python bench/store_search.py [--hands 1000000] [--sample 3000] [--quick]

(quick: 20,000 hands, 300 through add())
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.history.query import HandQuery
from controller.mqtt.messages import SecureRecordMessage
from controller.room.recorder.postgres import PostgresRecordStore
from controller.room.recorder.search import POSTGRES, SQLITE, search_sql
from controller.room.recorder.sqlite import SqliteRecordStore
from controller.session.outputs import hand_id

ROOT = Path(__file__).resolve().parents[1]
VENUES = ["hall-a", "hall-b", "hall-c", "hall-d"]
T0 = 1_795_000_000.0
POOL = 20_000
REGULARS = ["Stammgast 1", "Stammgast 2", "Stammgast 3"]  # each in about 2% of all hands
SEARCHES = 40
BATCH = 20_000


def templates() -> list[dict[str, Any]]:
    from controller.demo.script import played_session
    from controller.events import parse_event
    from controller.session import SessionConfig, TableSession

    session = TableSession(SessionConfig())
    records = []
    for event in played_session(hands=30, seed=11, players=8):  # (raw events, as a driver's)
        records += session.handle(parse_event(event)).sealed
    if session.pending_record is not None:
        records.append(session.pending_record)
    return [json.loads(r.model_dump_json()) for r in records]


Row = tuple[int, str, str, str, int, float, float, float, str, list[str]]


def hands(first: int, count: int) -> Iterator[Row]:
    """(seq, venue, id, table, hand, started, received, sent, record JSON, players) of the
    varied records ``first`` to ``first + count``."""
    rng = random.Random(first)
    bases = templates()
    pool = [f"Spieler {n:05d}" for n in range(POOL)]
    for i in range(first, first + count):
        record = dict(bases[i % len(bases)])
        seats = sorted(record["players"], key=int)
        names = rng.sample(pool, len(seats))
        if rng.random() < 0.06:  # a league's regulars play far more than the rest
            regular = REGULARS[rng.randrange(len(REGULARS))]
            names[rng.randrange(len(names))] = regular
        venue, table = VENUES[i % len(VENUES)], str(1 + (i // len(VENUES)) % 25)
        hand = 1 + i // 100
        started = T0 + i * 2.5  # a million hands over a month
        record.update(table=table, hand=hand, started=started,
                      players=dict(zip(seats, names, strict=True)))
        yield (i + 1, venue, hand_id(table, hand, started), table, hand, started,
               started + 1, started + 0.5, json.dumps(record, separators=(",", ":")), names)


def timed(fn: Callable[[], object], times: int = 1) -> list[float]:
    out = []
    for _ in range(times):
        begun = time.perf_counter()
        fn()
        out.append((time.perf_counter() - begun) * 1000)
    return out


def ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(ordered):7.1f} ms, p95 {p95:7.1f} ms"


def insert_rate(add: Callable[[SecureRecordMessage, float, str], bool], sample: int) -> float:
    messages = [(SecureRecordMessage.model_validate({
        "id": row[2], "table": row[3], "hand": row[4], "sent": row[7],
        "record": json.loads(row[8])}), row[1]) for row in hands(0, sample)]
    begun = time.perf_counter()
    for n, (message, venue) in enumerate(messages):
        add(message, T0 + n, venue)
    return sample / (time.perf_counter() - begun)


def searches(run: Callable[[HandQuery], object], players: list[str]) -> dict[str, list[float]]:
    return {
        "player, a page of 100": [t for p in players
                                  for t in timed(lambda p=p: run(HandQuery(player=p, limit=100)))],
        "player, every hand": [t for p in players
                               for t in timed(lambda p=p: run(HandQuery(player=p)))],
        "player in one day": [t for p in players for t in timed(lambda p=p: run(HandQuery(
            player=p, since=T0 + 86400 * 10, until=T0 + 86400 * 11)))],
        "table and hand": [t for n in range(len(players)) for t in timed(
            lambda n=n: run(HandQuery(table=str(1 + n % 25), hand=1 + n * 97)))],
        "a regular, a page of 100": [t for p in REGULARS for t in timed(
            lambda p=p: run(HandQuery(player=p, limit=100)), 5)],
        "a regular, a page in March": [t for p in REGULARS for t in timed(
            lambda p=p: run(HandQuery(player=p, since=T0 + 86400 * 20, limit=100)), 5)],
    }


def report(name: str, rate: float, found: dict[str, list[float]],
           sql: dict[str, list[float]], extra: list[str]) -> None:
    print(f"\n{name}: {rate:,.0f} records/s kept through add() (one commit each)")
    for what, samples in found.items():
        print(f"  search {what:27s} {ms(samples)}  (SQL alone {ms(sql[what])})")
    for line in extra:
        print(f"  {line}")


def sqlite_side(count: int, sample: int, players: list[str], where: Path) -> None:
    store = SqliteRecordStore(where / "records.db")
    rate = insert_rate(store.add, sample)
    db = store._db
    begun = time.perf_counter()
    rows = hands(sample, count - sample)
    while True:
        batch = [row for _, row in zip(range(BATCH), rows, strict=False)]
        if not batch:
            break
        db.execute("BEGIN")
        db.executemany("INSERT INTO records (seq, venue, id, table_id, hand, started, received,"
                       " sent, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [row[:9] for row in batch])
        db.executemany("INSERT INTO hand_players (player, started, seq) VALUES (?, ?, ?)",
                       [(name, row[5], row[0]) for row in batch for name in row[9]])
        db.execute("COMMIT")
    db.execute("ANALYZE")
    loaded = time.perf_counter() - begun
    found = searches(store.search, players)
    sql = searches(lambda q: db.execute(*search_sql(q, None, SQLITE)).fetchall(), players)
    scan = ("SELECT record FROM records r WHERE EXISTS (SELECT 1 FROM json_each(r.record, "
            "'$.players') p WHERE p.value = ?) ORDER BY started, seq")
    page = timed(lambda: db.execute(scan + " LIMIT 100", (players[0],)).fetchall(), 3)
    every = timed(lambda: db.execute(scan, (players[0],)).fetchall())
    reference = [f"reference, no side table (a scan of the JSON): page of 100 {ms(page)}; "
                 f"every hand {ms(every)}",
                 f"bulk load of {count - sample:,} records: {loaded:.0f} s; file "
                 f"{(where / 'records.db').stat().st_size / 2**30:.1f} GiB"]
    report(f"SQLite ({store.count():,} hands)", rate, found, sql, reference)
    store.close()


def postgres_side(count: int, sample: int, players: list[str]) -> None:
    from harness.pg_cluster import PgCluster

    with PgCluster(durable=True) as cluster:
        store = PostgresRecordStore(cluster.url())
        rate = insert_rate(store.add, sample)
        conn = store._conn
        begun = time.perf_counter()
        conn.execute("ALTER TABLE records ADD COLUMN bench_players text[]")  # for the GIN
        with conn.transaction():
            with conn.cursor().copy(
                    "COPY records (seq, venue, id, table_id, hand, started, received, sent, "
                    "record, bench_players) FROM STDIN") as copy:
                for row in hands(sample, count - sample):
                    copy.write_row(row)
            with conn.cursor().copy("COPY hand_players (player, started, seq) FROM STDIN"
                                    ) as copy:
                for row in hands(sample, count - sample):
                    for name in row[9]:
                        copy.write_row((name, row[5], row[0]))
            conn.execute("SELECT setval(pg_get_serial_sequence('records', 'seq'), "
                         "(SELECT max(seq) FROM records))")
        conn.execute("UPDATE records SET bench_players = ARRAY(SELECT jsonb_each_text("
                     "record::jsonb -> 'players'))::text[] WHERE bench_players IS NULL")
        conn.execute("VACUUM ANALYZE records")
        conn.execute("VACUUM ANALYZE hand_players")
        loaded = time.perf_counter() - begun
        found = searches(store.search, players)
        sql = searches(lambda q: conn.execute(*search_sql(q, None, POSTGRES)).fetchall(),
                       players)
        scan = ("SELECT record FROM records r WHERE EXISTS (SELECT 1 FROM jsonb_each_text("
                "r.record::jsonb -> 'players') p WHERE p.value = %s) ORDER BY started, seq")
        begun = time.perf_counter()
        conn.execute("CREATE INDEX bench_gin ON records USING gin (bench_players)")
        gin_build = time.perf_counter() - begun
        gin = "SELECT record FROM records WHERE bench_players @> ARRAY[%s] ORDER BY started, seq"
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        side = conn.execute("SELECT pg_total_relation_size('hand_players')").fetchone()[0]
        gin_size = conn.execute("SELECT pg_relation_size('bench_gin')").fetchone()[0]
        name = players[0]

        def each(sql: str, who: list[str] = players, times: int = 1) -> str:
            return ms([t for p in who
                       for t in timed(lambda p=p: conn.execute(sql, (p,)).fetchall(), times)])

        no_index = timed(lambda: conn.execute(scan + " LIMIT 100", (name,)).fetchall())
        extra = [
            f"reference, GIN on an array of names: page of 100 {each(gin + ' LIMIT 100')}; "
            f"every hand {each(gin)}; a regular's page of 100 "
            f"{each(gin + ' LIMIT 100', REGULARS, 5)} (SQL alone; index {gin_size / 2**20:.0f}"
            f" MiB, built in {gin_build:.0f} s; the side table and its index "
            f"{side / 2**20:.0f} MiB)",
            f"reference, no side table (a scan of the JSON): page of 100 {ms(no_index)}",
            f"bulk load of {count - sample:,} records: {loaded:.0f} s; database "
            f"{size / 2**30:.1f} GiB"]
        report(f"PostgreSQL ({store.count():,} hands)", rate, found, sql, extra)
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=None, help="default 1,000,000")
    parser.add_argument("--sample", type=int, default=None,
                        help="records kept through add() (the insert rate; 3,000)")
    parser.add_argument("--quick", action="store_true", help="20,000 hands, 300 through add()")
    parser.add_argument("--only", choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    args.hands = args.hands or (20_000 if args.quick else 1_000_000)
    args.sample = args.sample or (300 if args.quick else 3_000)
    sys.path.insert(0, str(ROOT))  # the tests' played session and PostgreSQL cluster
    rng = random.Random(7)
    players = [f"Spieler {n:05d}" for n in rng.sample(range(POOL), SEARCHES)]
    print(f"{args.hands:,} hands of 4 venues, {POOL:,} players and 3 regulars (each in about "
          f"2% of the hands); {SEARCHES} searches of each kind (a regular's: 15), each a list "
          "of HandRecords (parsed and validated); 'SQL alone' fetches the rows without parsing "
          "them; target: a search under 50 ms")
    with tempfile.TemporaryDirectory(prefix="pokertable-bench-") as where:
        if args.only != "postgresql":
            sqlite_side(args.hands, args.sample, players, Path(where))
    if args.only != "sqlite":
        postgres_side(args.hands, args.sample, players)


if __name__ == "__main__":
    main()
