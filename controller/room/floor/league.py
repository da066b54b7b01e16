"""A floor following several venues (a league's host, docs/league.md): one `Room` per venue,
each with its own tables, clock, tournament, alerts and link to the league, and the server's
own: its broker connection and the league recorder's status. Pure, as the room is.

It answers what the hub and the pages ask of a room (`snapshot`, `tick`, `acknowledge`, ...)
over every venue at once; the hub hands each venue's messages to that venue's room
(`rooms`). A table is known by its venue and its id: two venues' table 1 are two tables
(``tables`` and the stories of a snapshot are keyed ``venue/table``), and every alert's id
begins with its venue's name.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.room.floor.alerts import RANK, Alert
from controller.room.floor.model import Room, RoomSnapshot, RoomUpdate, TableView


def table_key(venue: str, table: str) -> str:
    """A table on a floor following several venues (a topic level holds no slash)."""
    return f"{venue}/{table}"


class League:
    def __init__(self, venues: Sequence[str]) -> None:
        self.rooms: dict[str, Room] = {venue: Room(venue) for venue in venues}
        self.host = Room()  # the floor server's own: its broker, the league's recorder

    # ---------------------------------------------------------------- the server's own

    @property
    def broker(self) -> bool:
        return self.host.broker

    @property
    def broker_problem(self) -> str | None:
        return self.host.broker_problem

    @property
    def recorder(self) -> bool | None:
        return self.host.recorder

    def take_broker(self, connected: bool) -> list[RoomUpdate]:
        return self.host.take_broker(connected)

    def take_broker_problem(self, text: str | None) -> list[RoomUpdate]:
        return self.host.take_broker_problem(text)

    def take_recorder_status(self, online: bool, now: float) -> list[RoomUpdate]:
        """The league's recorder (its status under the league's own name)."""
        return self.host.take_recorder_status(online, now)

    # ---------------------------------------------------------------- every venue

    @property
    def tables(self) -> dict[str, TableView]:
        return {table_key(venue, table): view for venue, room in self.rooms.items()
                for table, view in room.tables.items()}

    @property
    def alerts(self) -> dict[str, Alert]:
        found = dict(self.host.alerts)
        for room in self.rooms.values():
            found.update(room.alerts)
        return found

    def tick(self, now: float) -> list[RoomUpdate]:
        return [update for room in self.rooms.values() for update in room.tick(now)]

    def restore_alerts(self, alerts: list[Alert], closed: set[str]) -> None:
        """Each venue's open alerts to its room; those of no venue followed (the recorder's,
        or kept while this floor followed one venue) to the server's own list."""
        for venue, room in self.rooms.items():
            room.restore_alerts([a for a in alerts if a.venue == venue], closed)
        self.host.restore_alerts([a for a in alerts if a.venue not in self.rooms], closed)

    def acknowledge(self, alert_id: str, by: str, now: float) -> list[RoomUpdate]:
        for room in (self.host, *self.rooms.values()):
            if alert_id in room.alerts:
                return room.acknowledge(alert_id, by, now)
        return []

    def snapshot(self) -> RoomSnapshot:
        stories = {table_key(venue, table): story for venue, room in self.rooms.items()
                   for table, story in room.stories.items()}
        return RoomSnapshot(
            tables=self.ordered(), stories=stories, clock=None, clock_online=None,
            alerts=self.open_alerts(), broker=self.broker, broker_problem=self.broker_problem,
            recorder=self.recorder, venues=[room.venue_view() for room in self.rooms.values()])

    def ordered(self) -> list[TableView]:
        """Venue by venue (in the order followed), each by number."""
        return [view for room in self.rooms.values() for view in room.ordered()]

    def needing(self) -> list[TableView]:
        """The tables needing the floor, worst first, whatever their venue."""
        return sorted((v for room in self.rooms.values() for v in room.needing()),
                      key=lambda v: (-RANK[v.severity or "notice"], -len(v.attention)))

    def open_alerts(self) -> list[Alert]:
        """Newest first."""
        return sorted(self.alerts.values(), key=lambda a: a.at, reverse=True)


__all__ = ["League", "table_key"]
