"""The table's write-ahead journal: every event is on disk before it changes anything.

SQLite in WAL mode with ``synchronous=FULL``: a committed event survives a power cut. At every
shuffle press between hands the session's snapshot is stored with the press, so a restart loads
the latest snapshot and replays only the events after it (docs/design.md "Reliability"). Sealed hand
records are kept in the same file, with a flag for whether the output has taken them.

Old hands are pruned: the journal keeps the current hand and the events of the last
``keep_hands`` finished ones, and the last ``keep_records`` records.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from controller.engine.records import HandRecord
from controller.events import BadEvent, TableEvent, dump_event, parse_event
from controller.session import SessionSnapshot
from controller.storage.sqlite_store import StoreKind, open_store, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    line TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS snapshots (
    seq INTEGER PRIMARY KEY REFERENCES events(seq),
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    hand INTEGER PRIMARY KEY,
    record TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rejected (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    line TEXT NOT NULL,
    reason TEXT NOT NULL
);
"""

# The journal's schema versions (controller/storage/sqlite_store.py): 1 is the layout of every
# journal made before versions were counted.
KIND = StoreKind("table journal", 0x50540001, (statements(SCHEMA),),
                 tables=frozenset({"events", "snapshots", "records", "rejected"}))


@dataclass(frozen=True)
class Recovery:
    """What a restart needs: the latest snapshot (None: from the start) and the events after."""

    snapshot: SessionSnapshot | None
    events: list[TableEvent]
    last_seq: int
    seqs: list[int]
    skipped: list[tuple[int, str]]  # journaled lines that no longer parse: (seq, why)


class Journal:
    def __init__(self, path: str | Path, *, keep_hands: int = 10, keep_records: int = 200,
                 readonly: bool = False) -> None:
        """``readonly``: to read the journal of a table that may be running (no lock)."""
        self.path = Path(path)
        self.keep_hands = keep_hands
        self.keep_records = keep_records
        # Every hole card is in here: 0600 from the start; one table service per journal.
        self._store = open_store(self.path, KIND, readonly=readonly)
        self._db = self._store.db

    def close(self) -> None:
        self._store.close()

    # ---------------------------------------------------------------- writing

    def append(self, event: TableEvent, snapshot: SessionSnapshot | None = None) -> int:
        """Write one event (and the snapshot taken just before it) in one transaction; returns
        its sequence number once it is durable."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            seq = db.execute("INSERT INTO events (line) VALUES (?)",
                             (dump_event(event),)).lastrowid
            assert seq is not None
            if snapshot is not None:
                db.execute("INSERT INTO snapshots (seq, state) VALUES (?, ?)",
                           (seq, snapshot.model_dump_json()))
                self._prune(seq)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return seq

    def append_many(self, events: list[TableEvent]) -> list[int]:
        """Write several events in one transaction (one fsync): the service's group commit
        when events queue up. None of them may need a snapshot. Returns their sequence
        numbers."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            seqs = [db.execute("INSERT INTO events (line) VALUES (?)", (dump_event(e),)).lastrowid
                    for e in events]
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return [int(seq or 0) for seq in seqs]

    def _prune(self, newest_snapshot: int) -> None:
        """Drop events older than the snapshot ``keep_hands`` presses back."""
        rows = self._db.execute(
            "SELECT seq FROM snapshots ORDER BY seq DESC LIMIT 1 OFFSET ?", (self.keep_hands,)
        ).fetchall()
        if not rows:
            return
        (oldest_kept,) = rows[0]
        self._db.execute("DELETE FROM snapshots WHERE seq < ?", (oldest_kept,))
        self._db.execute("DELETE FROM events WHERE seq < ?", (oldest_kept,))

    def reject(self, line: str, reason: str) -> None:
        """Keep a line that was not a table event, for the audit (it changed nothing)."""
        self._db.execute("INSERT INTO rejected (line, reason) VALUES (?, ?)", (line[:2000], reason))

    def store_record(self, record: HandRecord) -> bool:
        """Keep a sealed record; False if this hand's record is already there (a replay after a
        restart seals it again)."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO records (hand, record) VALUES (?, ?)",
            (record.hand, record.model_dump_json()),
        )
        self._db.execute(
            "DELETE FROM records WHERE hand <= (SELECT MAX(hand) FROM records) - ?",
            (self.keep_records,),
        )
        return cursor.rowcount == 1

    def mark_delivered(self, hand: int) -> None:
        self._db.execute("UPDATE records SET delivered = 1 WHERE hand = ?", (hand,))

    # ---------------------------------------------------------------- reading

    def recovery(self) -> Recovery:
        db = self._db
        row = db.execute("SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1").fetchone()
        snapshot = None
        start = 0
        if row is not None:
            start = row[0]
            snapshot = SessionSnapshot.model_validate_json(row[1])
        lines = db.execute("SELECT seq, line FROM events WHERE seq >= ? ORDER BY seq",
                           (start,)).fetchall()
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        events, seqs, skipped = [], [], []
        for seq, line in lines:
            # A line journaled by an older, laxer version: skipped with the reason, never a
            # table that cannot start.
            try:
                events.append(parse_event(line))
                seqs.append(int(seq))
            except BadEvent as exc:
                skipped.append((int(seq), str(exc)))
        return Recovery(snapshot, events, int(last), seqs, skipped)

    def undelivered(self) -> list[HandRecord]:
        rows = self._db.execute(
            "SELECT record FROM records WHERE delivered = 0 ORDER BY hand"
        ).fetchall()
        return [HandRecord.model_validate_json(r[0]) for r in rows]

    def records(self) -> list[HandRecord]:
        rows = self._db.execute("SELECT record FROM records ORDER BY hand").fetchall()
        return [HandRecord.model_validate_json(r[0]) for r in rows]

    def events(self) -> list[tuple[int, TableEvent]]:
        rows = self._db.execute("SELECT seq, line FROM events ORDER BY seq").fetchall()
        out = []
        for seq, line in rows:
            with contextlib.suppress(BadEvent):  # see recovery(): such a line is skipped
                out.append((seq, parse_event(line)))
        return out

    def kept(self) -> tuple[SessionSnapshot | None, list[tuple[int, TableEvent]]]:
        """Everything the journal still holds, as a replay needs it: the events from its first
        one, and the checkpoint to start them from when older hands were let go (pruning keeps
        the events from a stored snapshot on); None when the events go back to the start."""
        first = self._db.execute("SELECT MIN(seq) FROM events").fetchone()[0]
        row = self._db.execute(
            "SELECT seq, state FROM snapshots ORDER BY seq LIMIT 1").fetchone()
        snapshot = None
        if row is not None and first is not None and row[0] == first:
            snapshot = SessionSnapshot.model_validate_json(row[1])
        return snapshot, self.events()

    def last_seq(self) -> int:
        return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
