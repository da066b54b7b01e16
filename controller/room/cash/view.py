"""What the cash floor publishes, pure: the retained ``cash/state`` every screen may read (the
room screen: each cash table's game, seats open and its list's length; the TV: the lists, by
initials where the player gave them) and ``cash/contacts``, the telephone numbers, for the
floor's login alone (a number is the player's, not the room's TV's).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.messages import Message
from controller.room.cash.ledger import (
    CashSettings,
    Change,
    Happening,
    Ledger,
    MustMoveOrder,
    Offer,
)


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WaitingLine(Line):
    name: str
    shown: str = Field(description="What the TV shows: the initials, else the name")
    signed: float
    called: float | None = None
    table: str | None = Field(default=None, description="The table he was called to")
    until: float | None = Field(default=None, description="When his call runs out (the time "
                                "he was told at the call)")


class GameLine(Line):
    """The room screen's line for one game: its tables, seats open, the list's length."""

    game: str
    tables: list[str]
    seats_open: int = Field(description="At its tables, not counting a main table's seat "
                            "offered down its must-move order")
    waiting: int
    called: int
    entries: list[WaitingLine]


class PlayerLine(Line):
    name: str
    seat: int | None = None
    at_table: bool = Field(default=False, description="The table's state shows him at his "
                           "seat (else he is on his way, or the table is still to let him in)")
    no_chips: bool = Field(default=False, description="His table shows him at his seat with "
                           "no chips: dealt out, he keeps the seat until he buys chips or goes "
                           "(CG Table Stake)")


class TableLine(Line):
    table: str
    seats: int
    game: str | None = Field(default=None, description="None: closed")
    seats_open: int
    players: list[PlayerLine]
    feeds: str | None = Field(default=None, description="A must-move table: its main table")
    must_move: list[str] = Field(default_factory=list, description="A main table: its "
                                 "must-move order")


class CashState(Message):
    """``cash/state``, retained."""

    games: list[GameLine]
    tables: list[TableLine]
    offers: list[Offer] = Field(default_factory=list, description="Main-table seats being "
                                "offered down their must-move order")
    changes: list[Change] = Field(default_factory=list)
    recent: list[Happening] = Field(default_factory=list)
    call_seconds: float
    must_move_order: MustMoveOrder


class Contact(Line):
    game: str
    name: str
    phone: str


class CashContacts(Message):
    """``cash/contacts``, retained, the floor's alone: the numbers of those on the lists."""

    contacts: list[Contact] = Field(default_factory=list)


class CashStatus(Message):
    """``cash/status``, retained; ``offline`` is also the service's Last Will."""

    service: Literal["cash"] = "cash"
    status: Literal["online", "offline"]


def published(ledger: Ledger, settings: CashSettings,
              no_chips: frozenset[tuple[str, str]] = frozenset()) -> CashState:
    """``no_chips``: (table, name) of the players their tables show with no chips."""
    offered = {o.main for o in ledger.offers}
    tables = [TableLine(table=t.table, seats=t.seats, game=t.game, seats_open=t.open_seats(),
                        players=[PlayerLine(name=p.name, seat=p.seat,
                                            at_table=p.arrived in ledger.at_tables.sat,
                                            no_chips=(t.table, p.name) in no_chips)
                                 for p in t.players],
                        feeds=t.feeds, must_move=list(ledger.must_move.get(t.table, [])))
              for t in ledger.tables]
    games = []
    for game, entries in ledger.lists.items():
        at = [t for t in ledger.tables if t.game == game]
        lines = [WaitingLine(name=e.name, shown=e.initials or e.name, signed=e.signed,
                             called=e.called, table=e.table, until=e.until)
                 for e in entries]
        games.append(GameLine(game=game, tables=[t.table for t in at],
                              seats_open=sum(t.open_seats() for t in at
                                             if t.table not in offered),
                              waiting=len(entries),
                              called=sum(e.called is not None for e in entries), entries=lines))
    return CashState(games=games, tables=tables, offers=list(ledger.offers),
                     changes=list(ledger.changes), recent=list(ledger.recent),
                     call_seconds=settings.call_seconds, must_move_order=settings.must_move_order)


def contacts(ledger: Ledger) -> CashContacts:
    return CashContacts(contacts=[Contact(game=game, name=e.name, phone=e.phone)
                                  for game, entries in ledger.lists.items() for e in entries
                                  if e.phone])


__all__ = ["CashContacts", "CashState", "CashStatus", "Contact", "GameLine", "PlayerLine",
           "TableLine", "WaitingLine", "contacts", "published"]
