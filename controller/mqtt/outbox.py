"""The table's durable MQTT outbox: hand records, irregularities and eliminations wait here,
on disk, until the one who keeps them says he has them.

SQLite in WAL mode with ``synchronous=FULL``, like the journal: a message put here survives a
broker outage, a power cut and SIGKILL, and goes out in the order it came in once the broker is
back. A message for the keeper (the recorder: full records and durable events) stays until the
keeper's own acknowledgement arrives (``table/<id>/ack``), not merely the broker's PUBACK: the
broker may still lose it (a crash before its autosave, persistence gone) while the keeper is
away. Until then it is sent again at every reconnect and restart. Other messages (the public
record) are done at the PUBACK. Each message has an idempotent id (table, hand, hand start,
...); putting the same id on the same topic twice keeps one copy, and the keeper drops an id it
already has, so delivery is exactly once where it counts (docs/design.md "MQTT principles").
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from controller.storage.sqlite_store import StoreKind, add_columns, chain, open_store, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0,
    keeper INTEGER NOT NULL DEFAULT 0,
    kept INTEGER NOT NULL DEFAULT 0,
    UNIQUE (topic, id)
);
"""
# sent: the broker's PUBACK came. keeper: the keeper must acknowledge it; kept: he did.

# Schema versions (controller/storage/sqlite_store.py). 1: the layout before versions were
# counted; an outbox from before end-to-end acknowledgements lacks keeper and kept.
KIND = StoreKind("MQTT outbox", 0x50540002, (
    chain(statements(SCHEMA), add_columns("outbox", [("keeper", "INTEGER NOT NULL DEFAULT 0"),
                                                     ("kept", "INTEGER NOT NULL DEFAULT 0")])),
), tables=frozenset({"outbox"}))


@dataclass(frozen=True)
class Outgoing:
    seq: int
    id: str
    topic: str
    payload: bytes


class Outbox:
    """Thread-safe: the table loop puts, the MQTT network thread marks messages sent."""

    def __init__(self, path: str | Path, *, keep_sent: int = 2000) -> None:
        self.path = Path(path)
        self.keep_sent = keep_sent  # sent ids kept, so a re-offered message is recognised
        self._lock = threading.Lock()
        # Every hole card is in here: 0600 from the start; one table service per outbox.
        self._store = open_store(self.path, KIND)
        self._db = self._store.db

    def put(self, messages: list[tuple[str, str, bytes, bool]]) -> int:
        """Store ``(id, topic, payload, for_keeper)`` messages in one transaction; an id already
        on that topic (sent or not) is not stored again. Returns how many were new."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                new = 0
                for message_id, topic, payload, for_keeper in messages:
                    cursor = db.execute(
                        "INSERT OR IGNORE INTO outbox (id, topic, payload, keeper) "
                        "VALUES (?, ?, ?, ?)", (message_id, topic, payload, int(for_keeper)))
                    new += cursor.rowcount
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return new

    def pending(self) -> list[Outgoing]:
        """Messages to send (no PUBACK yet, and not kept), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, id, topic, payload FROM outbox WHERE sent = 0 AND kept = 0 "
                "ORDER BY seq").fetchall()
        return [Outgoing(int(seq), str(i), str(topic), bytes(payload))
                for seq, i, topic, payload in rows]

    def mark_sent(self, seq: int) -> None:
        """The broker's PUBACK: done, unless the keeper must still say he has it."""
        with self._lock, self._lazily():
            self._db.execute("UPDATE outbox SET sent = 1 WHERE seq = ?", (seq,))
            self._prune()

    def mark_kept(self, ids: list[str]) -> int:
        """The keeper stored these ids: they never go out again. Returns how many it settled."""
        with self._lock, self._lazily():
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                settled = sum(db.execute(
                    "UPDATE outbox SET kept = 1 WHERE id = ? AND keeper = 1 AND kept = 0",
                    (message_id,)).rowcount for message_id in ids)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._prune()
            return settled

    @contextlib.contextmanager
    def _lazily(self) -> Iterator[None]:
        """Marks of what was sent or kept need no fsync of their own: lost in a power cut, the
        message merely goes out once more and the receiver drops it. They run on the MQTT
        network thread, which must not wait for the disk between two states."""
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            yield
        finally:
            self._db.execute("PRAGMA synchronous=FULL")

    def resend_unkept(self) -> int:
        """At a (re)connect: what the broker took but the keeper never confirmed goes out again
        (the broker may have lost it); the keeper drops what it already has."""
        with self._lock:
            return self._db.execute(
                "UPDATE outbox SET sent = 0 WHERE sent = 1 AND keeper = 1 AND kept = 0").rowcount

    def _prune(self) -> None:
        """Done messages beyond the newest ``keep_sent`` go; their ids stay known until then,
        so a re-offered message is recognised."""
        self._db.execute(
            "DELETE FROM outbox WHERE (kept = 1 OR (sent = 1 AND keeper = 0)) AND seq <= "
            "(SELECT MAX(seq) FROM outbox) - ?", (self.keep_sent,))

    def count_pending(self) -> int:
        """Messages not yet safe: unsent, or sent but not yet confirmed by the keeper."""
        with self._lock:
            return int(self._db.execute(
                "SELECT COUNT(*) FROM outbox WHERE kept = 0 AND (sent = 0 OR keeper = 1)")
                .fetchone()[0])

    def count_unsent(self) -> int:
        """Messages the broker has not taken yet (no PUBACK)."""
        with self._lock:
            return int(self._db.execute(
                "SELECT COUNT(*) FROM outbox WHERE sent = 0 AND kept = 0").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._store.close()
