"""Which store a location opens: a ``postgresql://`` URL the PostgreSQL store, anything else a
SQLite file. Apart from store.py, the interface both back ends implement, so that the interface
imports neither of them (a contract in pyproject.toml holds it) and a SQLite recorder never
loads psycopg.
"""

from __future__ import annotations

from pathlib import Path

from controller.room.recorder.store import RecordStore, is_url


def open_record_store(where: str | Path, *, readonly: bool = False,
                      group_read: bool = False) -> RecordStore:
    """A ``postgresql://`` URL: the PostgreSQL store; anything else: the SQLite file there.
    ``readonly``: to read the hands while the recorder keeps writing (no lock taken).
    ``group_read``: a SQLite store's files readable by the recorder's group (0640)."""
    if is_url(where):
        from controller.room.recorder.postgres import PostgresRecordStore

        return PostgresRecordStore(str(where), readonly=readonly)
    from controller.room.recorder.sqlite import SqliteRecordStore

    return SqliteRecordStore(where, readonly=readonly, group_read=group_read)


__all__ = ["open_record_store"]
