"""A `HandQuery` as SQL, for both stores (they share the layout: ``records`` with a ``started``
column, and ``hand_players``, one row per (player, hand), ordered by the index (player,
started, seq)). `HandQuery.matches` is the reference: the tests check that both stores find
what it finds.

A search by player starts from ``hand_players``: the index hands over that player's rows in
the order asked for, so a ``limit`` reads no more than it returns (bench/store_search.py)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.history.query import CASH_JSON, HandQuery

COLUMNS = "r.venue, r.id, r.received, r.sent, r.record"
STREAM_BATCH = 500  # rows a stream reads at a time (`RecordStore.stream`)


@dataclass(frozen=True)
class Dialect:
    placeholder: str  # "?" (sqlite3) or "%s" (psycopg)
    nulls_first: str  # what makes NULLs sort first in ascending order ("" in SQLite)


SQLITE = Dialect("?", "")
POSTGRES = Dialect("%s", " NULLS FIRST")


def search_sql(query: HandQuery, venue: str | None, dialect: Dialect
               ) -> tuple[str, list[object]]:
    """(SQL, parameters) selecting `COLUMNS` of the hands ``query`` matches, in order."""
    p = dialect.placeholder
    where: list[str] = []
    params: list[object] = []
    if query.player is not None:
        source = "hand_players h JOIN records r ON r.seq = h.seq"
        order = f"h.started{dialect.nulls_first}, h.seq"
        started = "h.started"  # the index's column: the planner keeps to the index
        where.append(f"h.player = {p}")
        params.append(query.player)
    else:
        source = "records r"
        order = f"r.started{dialect.nulls_first}, r.seq"
        started = "r.started"
    if venue is not None:
        where.append(f"r.venue = {p}")
        params.append(venue)
    if query.table is not None:
        where.append(f"r.table_id = {p}")
        params.append(query.table)
    if query.hand is not None:
        where.append(f"r.hand = {p}")
        params.append(query.hand)
    if query.game is not None:  # the record's JSON as stored (`HandRecord.cash`)
        where.append(f"r.record {'' if query.game == 'cash' else 'NOT '}LIKE {p}")
        params.append(f"%{CASH_JSON}%")
    # A hand without a start time matches no time bound (NULL compares as unknown): as matches.
    if query.since is not None:
        where.append(f"{started} >= {p}")
        params.append(query.since)
    if query.until is not None:
        where.append(f"{started} < {p}")
        params.append(query.until)
    sql = f"SELECT {COLUMNS} FROM {source}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {order}"
    if query.limit is not None:
        sql += f" LIMIT {p}"
        params.append(query.limit)
    return sql, params


# Each venue once, by a walk down the (venue, id) index: one look-up per venue, however many
# hands each keeps (SELECT DISTINCT would read every row). SQLite and PostgreSQL alike.
VENUES_SQL = """
WITH RECURSIVE walk(venue) AS (
    SELECT min(venue) FROM records
    UNION ALL
    SELECT (SELECT min(r.venue) FROM records r WHERE r.venue > walk.venue) FROM walk
    WHERE walk.venue IS NOT NULL
)
SELECT venue FROM walk WHERE venue IS NOT NULL
"""


def players_of(record_players: dict[int, str]) -> list[str]:
    """The names in a record, each once (the side table's rows for one hand)."""
    return sorted(set(record_players.values()))


__all__ = ["COLUMNS", "POSTGRES", "SQLITE", "STREAM_BATCH", "VENUES_SQL", "Dialect", "players_of",
           "search_sql"]
