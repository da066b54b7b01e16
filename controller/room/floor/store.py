"""The floor's journal (SQLite, write-ahead): the alerts and who acknowledged each, and the
public hand records for the hands screen. Public only: a record here never held a hole card
that was not tabled (it is `RecordMessage`, checked at both ends), so the file may be 0640."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.records import HandRecord
from controller.room.floor.model import Alert
from controller.storage.sqlite_store import StoreKind, open_store, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS alerts (
    id TEXT PRIMARY KEY, body TEXT NOT NULL, acknowledged_by TEXT, acknowledged_at REAL);
CREATE TABLE IF NOT EXISTS hands (
    id TEXT PRIMARY KEY, tbl TEXT NOT NULL, hand INTEGER NOT NULL, started REAL,
    players TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hands_by_table ON hands (tbl, hand);
CREATE INDEX IF NOT EXISTS hands_by_time ON hands (started);
"""

# 2: the floor logins' sessions, by a hash of their id only: the file is group-readable, and
# what it holds must not let a reader act as a logged-in floor (the cookie's id does).
SESSIONS = """
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY, user TEXT NOT NULL, stamp TEXT NOT NULL, expires REAL NOT NULL);
"""

# 3: each hand's venue (a floor following several venues of a league keeps them all), a hand
# unique per venue: two venues' table 1 may seal a hand with the same id. Hands kept before
# are of venue "" until a floor following one venue adopts them (`adopt`); their order stays.
HAND_VENUES = """
CREATE TABLE hands_3 (
    venue TEXT NOT NULL DEFAULT '', id TEXT NOT NULL, tbl TEXT NOT NULL, hand INTEGER NOT NULL,
    started REAL, players TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (venue, id));
INSERT INTO hands_3 (rowid, venue, id, tbl, hand, started, players, body)
    SELECT rowid, '', id, tbl, hand, started, players, body FROM hands;
DROP TABLE hands;
ALTER TABLE hands_3 RENAME TO hands;
CREATE INDEX hands_by_table ON hands (tbl, hand);
CREATE INDEX hands_by_time ON hands (started);
"""

# 4: the players' own pages (player_tokens.py): each player's link by a hash of its secret
# only (the file is group-readable; the secret in the link is what opens the page), since when
# his hands are his (the first link's time), who issued or revoked it last.
PLAYER_LINKS = """
CREATE TABLE IF NOT EXISTS player_links (
    player TEXT PRIMARY KEY, token_hash TEXT, since REAL NOT NULL, changed REAL NOT NULL,
    by TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS player_links_by_hash ON player_links (token_hash);
"""

# 5: the broadcast's feature table as the floor last switched it (broadcast.py), one row: a
# restart keeps it. ``configured`` is floor.toml's feature_table at the time: a configuration
# edited since wins over the switch.
FEATURE_TABLE = """
CREATE TABLE IF NOT EXISTS broadcast_feature (
    id INTEGER PRIMARY KEY CHECK (id = 1), tbl TEXT, configured TEXT, changed REAL NOT NULL,
    by TEXT NOT NULL);
"""

# Schema versions (controller/storage/sqlite_store.py). 1: the layout before versions were counted.
# Public data only: the group (a screen's user) may read it.
KIND = StoreKind("floor store", 0x50540005,
                 (statements(SCHEMA), statements(SESSIONS), statements(HAND_VENUES),
                  statements(PLAYER_LINKS), statements(FEATURE_TABLE)),
                 tables=frozenset({"alerts", "hands"}), mode=0o640)


class StoredSession(BaseModel):
    """A floor login's session as the server keeps it (`auth.Sessions`)."""

    model_config = ConfigDict(frozen=True)

    id_hash: str
    user: str
    stamp: str = Field(description="A digest of the account's password hash at login: a new "
                       "password makes another, and the session ends")
    expires: float


class HandQuery(BaseModel):
    """The hands screen's search: every field optional, all of them must match."""

    venue: str | None = Field(default=None, max_length=40)
    table: str | None = Field(default=None, max_length=40)
    hand: int | None = Field(default=None, ge=0)
    player: str | None = Field(default=None, max_length=40)
    since: float | None = None
    until: float | None = None
    limit: int = Field(default=100, ge=1, le=500)


class HandSummary(BaseModel):
    id: str
    venue: str = Field(description="Whose venue the hand was played at (\"\": kept before "
                       "the floor kept venues)")
    table: str
    hand: int
    started: float | None
    players: list[str]
    board: str
    pot: int
    winners: list[str]


class FloorStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # synchronous=FULL: an acknowledgement, once said, is kept. One floor server per store.
        self._store = open_store(self.path, KIND)
        self._db = self._store.db
        self._lock = threading.Lock()

    def add_alert(self, alert: Alert) -> None:
        """A new open alert, or an open one as it is now (its cause passed); an acknowledged
        one stays as it was acknowledged."""
        with self._lock:
            self._db.execute("INSERT INTO alerts (id, body) VALUES (?, ?) ON CONFLICT (id) DO "
                             "UPDATE SET body = excluded.body WHERE acknowledged_by IS NULL",
                             (alert.id, alert.model_dump_json()))

    def acknowledge(self, alert_id: str, by: str, at: float) -> None:
        with self._lock:
            self._db.execute("UPDATE alerts SET acknowledged_by = ?, acknowledged_at = ? "
                             "WHERE id = ? AND acknowledged_by IS NULL", (by, at, alert_id))

    def open_alerts(self) -> list[Alert]:
        with self._lock:
            rows = self._db.execute("SELECT body FROM alerts WHERE acknowledged_by IS NULL "
                                    "ORDER BY rowid").fetchall()
        return [Alert.model_validate_json(body) for (body,) in rows]

    def acknowledged(self) -> list[tuple[str, str, float]]:
        """(alert id, who, when) of every acknowledgement, in order."""
        with self._lock:
            rows = self._db.execute("SELECT id, acknowledged_by, acknowledged_at FROM alerts "
                                    "WHERE acknowledged_by IS NOT NULL "
                                    "ORDER BY acknowledged_at").fetchall()
        return [(str(a), str(b), float(c)) for a, b, c in rows]

    def add_hand(self, hand_id: str, record: HandRecord, venue: str = "") -> bool:
        """Kept once per (venue, id): a record the broker delivers again is dropped."""
        players = "\n".join(record.players.values())
        with self._lock:
            done = self._db.execute(
                "INSERT OR IGNORE INTO hands (venue, id, tbl, hand, started, players, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (venue, hand_id, record.table, record.hand, record.started, players,
                 record.model_dump_json()))
        return done.rowcount == 1

    def adopt(self, venue: str) -> int:
        """The hands kept before venues were (schema 2) become ``venue``'s: a floor that
        follows one venue served that one. Returns how many."""
        with self._lock:
            named = self._db.execute("UPDATE OR IGNORE hands SET venue = ? WHERE venue = ''",
                                     (venue,)).rowcount
        return int(named)

    def forget_hands(self, before: float) -> int:
        """Drop the hands that started before ``before`` (the recorder keeps every hand; this
        store only serves the hands screen, and a room runs for months)."""
        with self._lock:
            gone = self._db.execute("DELETE FROM hands WHERE started < ?", (before,)).rowcount
        return int(gone)

    def hand(self, hand_id: str, venue: str | None = None) -> HandRecord | None:
        """A hand by its id (and its venue: two venues may have a hand of the same id)."""
        sql = "SELECT body FROM hands WHERE id = ?"
        args = [hand_id]
        if venue is not None:
            sql += " AND venue = ?"
            args.append(venue)
        with self._lock:
            row = self._db.execute(sql + " ORDER BY rowid LIMIT 1", args).fetchone()
        return None if row is None else HandRecord.model_validate_json(row[0])

    def find(self, query: HandQuery) -> list[HandSummary]:
        where: list[str] = []
        args: list[str | int | float] = []
        if query.venue is not None:
            where.append("venue = ?")
            args.append(query.venue)
        if query.table is not None:
            where.append("tbl = ?")
            args.append(query.table)
        if query.hand is not None:
            where.append("hand = ?")
            args.append(query.hand)
        if query.player:
            # Whole names, case-insensitive: one name per line in the column.
            where.append("('\n' || lower(players) || '\n') LIKE ? ESCAPE '\\'")
            escaped = query.player.lower().replace("\\", "\\\\").replace("%", "\\%")
            args.append("%\n" + escaped.replace("_", "\\_") + "\n%")
        if query.since is not None:
            where.append("started >= ?")
            args.append(query.since)
        if query.until is not None:
            where.append("started <= ?")
            args.append(query.until)
        sql = "SELECT id, venue, body FROM hands"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started DESC, rowid DESC LIMIT ?"
        with self._lock:
            rows = self._db.execute(sql, [*args, query.limit]).fetchall()
        return [_summary(hand_id, venue, HandRecord.model_validate_json(body))
                for hand_id, venue, body in rows]

    def add_session(self, session: StoredSession) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO sessions (id_hash, user, stamp, expires) "
                             "VALUES (?, ?, ?, ?)", (session.id_hash, session.user,
                                                     session.stamp, session.expires))

    def remove_sessions(self, id_hashes: list[str]) -> None:
        with self._lock:
            self._db.executemany("DELETE FROM sessions WHERE id_hash = ?",
                                 [(h,) for h in id_hashes])

    def sessions(self) -> list[StoredSession]:
        with self._lock:
            rows = self._db.execute("SELECT id_hash, user, stamp, expires FROM sessions "
                                    "ORDER BY rowid").fetchall()
        return [StoredSession(id_hash=a, user=b, stamp=c, expires=d) for a, b, c, d in rows]

    def set_player_link(self, player: str, token_hash: str | None, now: float, by: str) -> None:
        """A player's link (``token_hash``: None, revoked); his ``since`` stays the first's."""
        with self._lock:
            self._db.execute(
                "INSERT INTO player_links (player, token_hash, since, changed, by) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (player) DO UPDATE SET "
                "token_hash = excluded.token_hash, changed = excluded.changed, by = excluded.by",
                (player, token_hash, now, now, by))

    def player_link(self, token_hash: str) -> tuple[str, float] | None:
        """(player, since) of the link whose secret hashes to ``token_hash``."""
        with self._lock:
            row = self._db.execute("SELECT player, since FROM player_links WHERE token_hash = ?",
                                   (token_hash,)).fetchone()
        return None if row is None else (str(row[0]), float(row[1]))

    def player_links(self) -> dict[str, bool]:
        """Every player ever given a link: whether it works now."""
        with self._lock:
            rows = self._db.execute("SELECT player, token_hash IS NOT NULL FROM player_links "
                                    "ORDER BY player").fetchall()
        return {str(p): bool(live) for p, live in rows}

    def set_feature(self, table: str | None, configured: str | None, now: float,
                    by: str) -> None:
        """The floor's switch of the broadcast's feature table (None: none), with the
        configuration's feature table at the time."""
        with self._lock:
            self._db.execute(
                "INSERT INTO broadcast_feature (id, tbl, configured, changed, by) "
                "VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET tbl = excluded.tbl, "
                "configured = excluded.configured, changed = excluded.changed, by = excluded.by",
                (table, configured, now, by))

    def feature(self) -> tuple[str | None, str | None] | None:
        """(the feature table, the configuration's then) as last switched; None: never."""
        with self._lock:
            row = self._db.execute(
                "SELECT tbl, configured FROM broadcast_feature WHERE id = 1").fetchone()
        return None if row is None else (row[0], row[1])

    def close(self) -> None:
        with self._lock:
            self._store.close()


def _summary(hand_id: str, venue: str, record: HandRecord) -> HandSummary:
    winners = sorted({record.players[s] for pot in record.pots for s in pot.winners
                      if s in record.players})
    return HandSummary(id=hand_id, venue=venue, table=record.table, hand=record.hand,
                       started=record.started, players=list(record.players.values()),
                       board=record.board, pot=sum(p.amount for p in record.pots), winners=winners)


def hand_json(record: HandRecord) -> str:
    return json.dumps(record.model_dump(mode="json"))


__all__ = ["FloorStore", "HandQuery", "HandSummary", "StoredSession", "hand_json"]
