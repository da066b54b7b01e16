"""The recorder's store as one interface: what the recorder, the readers of hands and the tests
ask of it, whichever database keeps the hands.

Two implementations: `SqliteRecordStore` (sqlite.py), one file on the central host, the
embedded default; and `PostgresRecordStore` (postgres.py), for a ``postgresql://`` URL, the
store of a league whose venues share one database. `open_record_store` (opening.py) picks by
what it is given. Both keep every record and durable event once per (venue, id) (the id is the
table's idempotent one, `hand_id`), and say whether an ``add`` was new only after it is
committed: the recorder acknowledges nothing before that.

A store from before venues were kept holds its records under the venue ``""``: it served one
venue, which `adopt` names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from controller.engine.records import HandRecord
from controller.errors import PokertableError
from controller.history.query import HandQuery
from controller.mqtt.messages import EventMessage, SecureRecordMessage
from controller.session.outputs import PublicEvent


class StoreUnavailable(PokertableError, OSError):
    """The store did not answer (a database server restarting, a disk gone): nothing was
    kept, and nothing is acknowledged; the tables send it again."""


class KeptHand(BaseModel):
    """One stored hand with what the store knows besides the record."""

    model_config = ConfigDict(frozen=True)

    venue: str
    id: str
    received: float  # the recorder's wall time on arrival
    sent: float | None  # the table's clock when it sent the record
    record: HandRecord


class RecordStore(Protocol):
    """Every full hand record and durable event the recorder keeps."""

    @property
    def where(self) -> str:
        """The file, or the URL without its password: for log lines."""
        ...

    def add(self, message: SecureRecordMessage, received: float, venue: str = "") -> bool:
        """Keep the record; False if (venue, id) is already here (a duplicate delivery)."""
        ...

    def add_event(self, message: EventMessage, received: float, venue: str = "") -> bool:
        """Keep a durable event; False if (venue, id) is already here."""
        ...

    def records(self, table: str | None = None) -> list[HandRecord]:
        """Every record (of one table), by table, hand and arrival."""
        ...

    def events(self, table: str | None = None) -> list[PublicEvent]:
        """The durable events kept, in arrival order."""
        ...

    def search(self, query: HandQuery, venue: str | None = None) -> list[HandRecord]:
        """The records `query` matches (`HandQuery.matches` is the reference), oldest shuffle
        first (a hand without a start time first of all), at most ``query.limit``."""
        ...

    def hands(self, query: HandQuery, venue: str | None = None) -> list[KeptHand]:
        """As `search`, with each record's venue, id and times."""
        ...

    def stream(self, query: HandQuery, venue: str | None = None) -> Iterator[KeptHand]:
        """As `hands`, a hand at a time: a room's 100,000 hands exported without holding
        them all. The store answers nothing else until the stream is read or closed."""
        ...

    def venues(self) -> list[str]:
        """The venues whose hands are kept, in order (a room's store: its one venue)."""
        ...

    def arrivals(self) -> list[tuple[str, str, int, float]]:
        """(id, table, hand, received wall time) of every record, in arrival order."""
        ...

    def sent_times(self) -> dict[int, float]:
        """Hand -> when its table sent the record (the table's clock), where known."""
        ...

    def ids(self) -> list[str]:
        """Every record's id, in arrival order."""
        ...

    def count(self) -> int:
        """How many records are kept."""
        ...

    def adopt(self, venue: str) -> int:
        """Name the venue of the records and events kept before venues were (a one-venue
        store); how many records it named."""
        ...

    def ping(self) -> None:
        """Raise `StoreUnavailable` unless the store answers now."""
        ...

    def close(self) -> None: ...


def is_url(where: str | Path) -> bool:
    return isinstance(where, str) and where.startswith(("postgresql://", "postgres://"))


__all__ = ["KeptHand", "RecordStore", "StoreUnavailable", "is_url"]
