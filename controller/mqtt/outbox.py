"""The table's durable MQTT outbox: hand records, irregularities and eliminations wait here,
on disk, until the broker acknowledged them (QoS 1 PUBACK).

SQLite in WAL mode with ``synchronous=FULL``, like the journal: a message put here survives a
broker outage, a power cut and SIGKILL, and goes out in the order it came in once the broker is
back. Each message has an idempotent id (table, hand, hand start, ...); putting the same id on
the same topic twice keeps one copy, and receivers drop an id they already have, so delivery
is exactly once where it counts (DESIGN.md "MQTT principles").
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from controller.private_files import private_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0,
    UNIQUE (topic, id)
);
"""


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
        private_file(self.path)  # every hole card is in here: 0600 from the start
        self.keep_sent = keep_sent  # sent ids kept, so a re-offered message is recognised
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def put(self, messages: list[tuple[str, str, bytes]]) -> int:
        """Store ``(id, topic, payload)`` messages in one transaction; an id already on that
        topic (sent or not) is not stored again. Returns how many were new."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                new = 0
                for message_id, topic, payload in messages:
                    cursor = db.execute(
                        "INSERT OR IGNORE INTO outbox (id, topic, payload) VALUES (?, ?, ?)",
                        (message_id, topic, payload))
                    new += cursor.rowcount
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return new

    def pending(self) -> list[Outgoing]:
        """Messages not yet acknowledged, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, id, topic, payload FROM outbox WHERE sent = 0 ORDER BY seq"
            ).fetchall()
        return [Outgoing(int(seq), str(i), str(topic), bytes(payload))
                for seq, i, topic, payload in rows]

    def mark_sent(self, seq: int) -> None:
        with self._lock:
            self._db.execute("UPDATE outbox SET sent = 1 WHERE seq = ?", (seq,))
            self._db.execute(
                "DELETE FROM outbox WHERE sent = 1 AND seq <= "
                "(SELECT MAX(seq) FROM outbox) - ?", (self.keep_sent,))

    def count_pending(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox WHERE sent = 0")
                       .fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
