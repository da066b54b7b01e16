"""Make the fixture stores of tests/data/stores/ with the code of this checkout.

    .venv/bin/python tests/data/stores/make_stores.py [OUT_DIR]

Writes (default: beside this script) journal.db and outbox.db (a table after five hands, the
sixth in progress), records.db (the recorder), clock.db, floor.db, two stores in the layouts of
still older versions (records-before-sent.db, outbox-before-keeper.db), and expected.json: what
the code that made them reads back from them (the journal's recovery, the table's state, the
records, the outbox's queue, the clock's position, the alerts). Every store is checkpointed
(no -wal file) and closed. Run once by the commit named in README.md; the committed files are
"a store made by the previous version" for tests/test_stored_data.py, so they are not remade
when the code changes.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from controller.demo.script import played_session
from controller.engine.records import HandRecord
from controller.events import dump_event, parse_event
from controller.mqtt.client import BrokerAddress, Login
from controller.mqtt.link import TableLink
from controller.mqtt.messages import EventMessage, SecureRecordMessage
from controller.mqtt.outbox import Outbox
from controller.room.clock.rules import ClockPosition
from controller.room.clock.store import ClockStore
from controller.room.floor.model import Alert
from controller.room.floor.store import FloorStore, HandQuery
from controller.room.recorder import SqliteRecordStore
from controller.session import SessionConfig
from controller.session.outputs import PublicEvent, hand_id
from controller.table.journal import Journal
from controller.table.runner import TeeSink
from controller.table.service import TableService
from controller.table.sinks import MemorySink

HERE = Path(__file__).resolve().parent
NOW = 1_795_000_000.0  # every wall time in the stores: the same on every run
HANDS = 6
SEED = 5
CUT_AFTER = 9  # events of the sixth hand in the journal: it is in progress


def table_events() -> tuple[list[dict[str, Any]], int]:
    """The whole session, and how many of its events the fixture journal holds."""
    events = played_session(HANDS, seed=SEED)
    presses = [k for k, e in enumerate(events) if e["type"] == "shuffle"]
    return events, presses[HANDS - 1] + CUT_AFTER


def checkpoint(path: Path) -> None:
    """Fold the -wal into the file and leave one self-contained file."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def make_table(out: Path) -> dict[str, Any]:
    events, cut = table_events()
    memory = MemorySink()
    outbox = Outbox(out / "outbox.db")
    # A link never started: it puts into its outbox what it would send (records, durable
    # events), as a table does while the broker is away.
    link = TableLink(BrokerAddress(venue="fixture"), Login(username="table-1", password="x"),
                     "1", outbox, clock=lambda: NOW)
    journal = Journal(out / "journal.db")
    service = TableService(SessionConfig(), journal, TeeSink([link, memory], MemorySink()),
                           clock=lambda: NOW)
    for raw in events[:cut]:
        service.process(parse_event(raw))
    # Some messages went out, one was confirmed by the recorder: a mixed queue.
    pending = outbox.pending()
    outbox.mark_sent(pending[0].seq)
    outbox.mark_sent(pending[1].seq)
    outbox.mark_kept([pending[1].id])
    recovery = journal.recovery()
    expected = {
        "events": events,
        "journaled": cut,
        "recovery": {
            "snapshot": (recovery.snapshot.model_dump(mode="json")
                         if recovery.snapshot is not None else None),
            "events": [dump_event(e) for e in recovery.events],
            "last_seq": recovery.last_seq,
            "seqs": recovery.seqs,
            "skipped": [list(s) for s in recovery.skipped],
        },
        "state": service.session.state().model_dump(mode="json"),
        "records": [r.model_dump(mode="json") for r in journal.records()],
        "undelivered": [r.hand for r in journal.undelivered()],
        "outbox": {
            "pending": [[o.seq, o.id, o.topic] for o in outbox.pending()],
            "count_pending": outbox.count_pending(),
            "count_unsent": outbox.count_unsent(),
        },
    }
    # The rest of the session on the same journal, uninterrupted: what a table that resumes
    # from the fixture must end with.
    rest = TableService(SessionConfig(), Journal(out / "rest.db"), MemorySink(),
                        clock=lambda: NOW)
    for raw in events:
        rest.process(parse_event(raw))
    expected["all_records"] = [r.model_dump(mode="json") for r in rest.journal.records()]
    rest.journal.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out / 'rest.db'}{suffix}").unlink(missing_ok=True)
    journal.close()
    outbox.close()
    checkpoint(out / "journal.db")
    checkpoint(out / "outbox.db")
    return expected


def make_recorder(out: Path, records: list[HandRecord]) -> dict[str, Any]:
    store = SqliteRecordStore(out / "records.db")
    for k, record in enumerate(records):
        key = hand_id("1", record.hand, record.started)
        store.add(SecureRecordMessage(id=key, table="1", hand=record.hand, sent=NOW + k,
                                      record=record), NOW + k + 0.5)
    first = records[0]
    event_id = f"{hand_id('1', first.hand, first.started)}:7.0"
    store.add_event(EventMessage(table="1", id=event_id, sent=NOW, event=PublicEvent(
        kind="alert", text="a card exposed", hand=first.hand, rule="PVB 33",
        id=event_id)), NOW + 1)
    expected = {"ids": store.ids(), "arrivals": store.arrivals(),
                "sent_times": {str(k): v for k, v in store.sent_times().items()},
                "events": [e.model_dump(mode="json") for e in store.events()]}
    store.close()
    checkpoint(out / "records.db")
    return expected


def make_older_layouts(out: Path, records: list[HandRecord]) -> None:
    """Stores as versions before the ad-hoc column additions left them (written with their
    SQL of the time, which the code of this checkout still migrates at open)."""
    db = sqlite3.connect(out / "records-before-sent.db")
    db.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE records (id TEXT PRIMARY KEY, table_id TEXT NOT NULL, hand INTEGER NOT NULL,
                              received REAL NOT NULL, record TEXT NOT NULL);
        CREATE TABLE events (id TEXT PRIMARY KEY, table_id TEXT NOT NULL,
                             hand INTEGER NOT NULL, received REAL NOT NULL, event TEXT NOT NULL);
    """)
    for record in records[:2]:
        db.execute("INSERT INTO records VALUES (?, '1', ?, ?, ?)",
                   (hand_id("1", record.hand, record.started), record.hand, NOW,
                    record.model_dump_json()))
    db.commit()
    db.close()
    db = sqlite3.connect(out / "outbox-before-keeper.db")
    db.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL,
                             topic TEXT NOT NULL, payload BLOB NOT NULL,
                             sent INTEGER NOT NULL DEFAULT 0, UNIQUE (topic, id));
        INSERT INTO outbox (id, topic, payload, sent) VALUES
            ('1-1-a', 'pokertable/fixture/table/1/record', x'7b7d', 1),
            ('1-2-a', 'pokertable/fixture/table/1/record', x'7b7d', 0);
    """)
    db.close()
    for name in ("records-before-sent.db", "outbox-before-keeper.db"):
        (out / name).chmod(0o600)
        checkpoint(out / name)


def make_clock(out: Path) -> dict[str, Any]:
    store = ClockStore(out / "clock.db")
    position = ClockPosition(status="running", slot=3, ends_at=NOW + 900.0, hand_for_hand=True,
                             round=2, waiting=["2", "4"], playing=["1", "2", "4"])
    store.save(ClockPosition(status="running", slot=0, ends_at=NOW + 1200.0),
               ("cmd-1", "start", {}, "floor", NOW, "the clock runs"))
    store.save(position, ("cmd-2", "set_level", {"level": 3}, "floor", NOW + 60.0,
                          "level 3 from now"))
    expected = {"position": position.model_dump(mode="json"),
                "said": {"cmd-1": list(store.said("cmd-1") or ()),
                         "cmd-2": list(store.said("cmd-2") or ())}}
    store.close()
    checkpoint(out / "clock.db")
    return expected


def make_floor(out: Path, records: list[HandRecord]) -> dict[str, Any]:
    store = FloorStore(out / "floor.db")
    for k in range(3):
        store.add_alert(Alert(id=f"alert-{k}", table="1", hand=k + 1, kind="irregularity",
                              text=f"irregularity {k}", rule="PVB 33", at=NOW + k))
    store.acknowledge("alert-1", "floor", NOW + 10.0)
    for record in records:
        store.add_hand(hand_id("1", record.hand, record.started), record.public())
    expected = {"open": [a.model_dump(mode="json") for a in store.open_alerts()],
                "acknowledged": store.acknowledged(),
                "hands": [h.model_dump(mode="json") for h in store.find(HandQuery())]}
    store.close()
    (out / "floor.db").chmod(0o640)
    checkpoint(out / "floor.db")
    return expected


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.db*"):
        old.unlink()
    expected: dict[str, Any] = {"table": make_table(out)}
    records = [HandRecord.model_validate(r) for r in expected["table"]["records"]]
    expected["recorder"] = make_recorder(out, records)
    make_older_layouts(out, records)
    expected["clock"] = make_clock(out)
    expected["floor"] = make_floor(out, records)
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    for path in sorted(out.glob("*.db")):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
