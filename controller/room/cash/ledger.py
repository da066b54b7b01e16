"""What the cash floor keeps, pure models: its settings (the room's games and tables, how long a
called player has, how a must-move order begins) and its ledger, everything a restart needs (the
store saves it whole after every change, in one transaction with the command that changed it).

The rules they serve are the casino's cash rules (RULES.md "CG"), cited by section:

- CG "Tischwechsel" (Allgemeine Regeln 12): nobody changes tables without the floor's approval;
  a player may put his name on a waiting list for another limit or game at any time; a change
  in the same game and limit brings the whole table stake (CG "Table Stake"); whether and when
  is the floor's decision.
- CG "Must Move" (Allgemeine Regeln 15): the must-move order is drawn at the start and/or is the
  waiting list's; every new player of that limit is put on the list and starts at the must-move
  table; when a seat opens at the main table the first in the order is asked, then the next;
  if all say no, the first must move.
- CG "Table Stake" (Einsätze 1): a player who ends his play with a stake above the table's
  minimum buy-in cannot play on in the same limit that playing day with a smaller one
  (`Ledger.ended_play`, `Ledger.comeback_refusal`).
- CG "Poker Manager" (Allgemeine Regeln 1): what the CG does not name, the floor decides. The
  choices made here where the CG is silent say so next to the rule they make.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.errors import RuleViolation
from controller.room.cash.at_tables import AtTables
from controller.room.tournament import names

CHANGE = 'CG "Tischwechsel"'  # a table change, a waiting list for another game
MUST_MOVE = 'CG "Must Move"'
STAKE = 'CG "Table Stake"'
FLOOR = 'CG "Poker Manager"'  # where the CG is silent: the floor's decision (and ours, said so)

TABLE_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"  # one MQTT topic level, as the tables' ids
GAME_NAME = r"^[^\x00-\x1f\x7f]{1,24}$"  # as the screens show it: "NLH 2/5", "PLO 5/5"
RECENT = 30  # what the floor did last, for its screens (the journal keeps everything)

MustMoveOrder = Literal["list", "draw"]


class Refused(RuleViolation):
    """A cash floor command refused, with the reason in the floor's words and the CG section."""


class TableSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(pattern=TABLE_ID)
    seats: int = Field(default=9, ge=2, le=10)


class CashSettings(BaseModel):
    """The room's cash games (a game is its variant and limit: each has its own waiting list,
    CG "Tischwechsel") and tables (each plays the game the floor opens it with)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    games: list[str] = Field(min_length=1, description='Variant and limit as shown: "NLH 2/5"')
    tables: list[TableSpec] = Field(min_length=1)
    call_seconds: float = Field(default=600, ge=30, le=7200, description="How long a called "
                                "player has to come before he leaves the list (the CG names "
                                "no time: the floor's setting)")
    must_move_order: MustMoveOrder = Field(default="list", description="The order of the "
                                           "players at a must-move table when it begins: as "
                                           "they came (the waiting list's) or drawn (CG "
                                           '"Must Move"); newcomers join at the end either way')
    minimum_buy_ins: dict[str, int] = Field(
        default_factory=dict, description='CG "Buy-in": each game\'s minimum buy-in (chips), '
        "as its tables have it; a game without one: no same-day rule (CG \"Table Stake\")")
    day_starts: int = Field(default=6, ge=0, le=23, description="The hour (UTC) the casino's "
                            'playing day begins (CG "Table Stake": "an diesem Spieltag"; the '
                            "CG names no hour: the floor's setting)")

    @model_validator(mode="after")
    def _distinct(self) -> CashSettings:
        for game in self.games:
            if not _game_ok(game):
                raise ValueError(f"games: {game!r} is 1 to 24 printable characters")
        seen: dict[str, str] = {}
        for game in self.games:
            twice = names.same_name(game, seen)
            if twice is not None:
                raise ValueError(f"games: {game!r} is listed twice ({twice!r})")
            seen[game] = game
        for game, minimum in self.minimum_buy_ins.items():
            if game not in self.games:
                raise ValueError(f"minimum_buy_ins: {game!r} is none of the games")
            if not 0 < minimum <= 10**11:
                raise ValueError(f"minimum_buy_ins: {game!r}: a buy-in from 1 chip")
        ids = [t.table for t in self.tables]
        twice_ids = sorted({t for t in ids if ids.count(t) > 1})
        if twice_ids:
            raise ValueError(f"tables: table {twice_ids[0]!r} is listed twice")
        return self


def playing_day(settings: CashSettings, at: float) -> int:
    """The casino's playing day ``at`` falls in: days since the epoch, each from the hour the
    settings name (UTC; a night's play after midnight belongs to the day it began)."""
    return math.floor((at - settings.day_starts * 3600) / 86_400)


def _game_ok(game: str) -> bool:
    return bool(game.strip()) and len(game) <= 24 and not names.invisible(game)


class Entry(BaseModel):
    """One player on a waiting list. ``phone`` is for the floor alone (never on the screens)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    initials: str | None = None
    phone: str | None = None
    signed: float = Field(description="When he signed up (the floor's time)")
    called: float | None = Field(default=None, description="When the floor called him")
    table: str | None = Field(default=None, description="The table he was called to")
    until: float | None = Field(default=None, description="When his call runs out: the time "
                                "he was told at the call, whatever the setting says later")


class Seated(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    seat: int | None = Field(default=None, ge=1, le=10)
    arrived: int = Field(ge=1, description="The room's count of arrivals: the order players "
                         "came to their tables in (a must-move order by the list)")


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str
    seats: int
    game: str | None = Field(default=None, description="None: closed")
    players: list[Seated] = Field(default_factory=list)
    feeds: str | None = Field(default=None, description="A must-move table: the main table it "
                              'feeds (CG "Must Move")')

    def open_seats(self) -> int:
        return self.seats - len(self.players) if self.game is not None else 0

    def free_seat_numbers(self) -> list[int]:
        taken = {p.seat for p in self.players}
        return [s for s in range(1, self.seats + 1) if s not in taken]


class Offer(BaseModel):
    """A seat open at a main table, offered down its must-move order (CG "Must Move")."""

    model_config = ConfigDict(extra="forbid")

    main: str
    seat: int | None = None
    asking: str
    declined: list[str] = Field(default_factory=list)


class Change(BaseModel):
    """A seated player's request to change to another table of his game (CG "Tischwechsel")."""

    model_config = ConfigDict(extra="forbid")

    player: str
    source: str = Field(description="His table when he asked")
    to: str
    asked: float
    approved: bool = False


class Happening(BaseModel):
    """Something the floor should see: a move made, a player timed out, an offer declined."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    at: float
    text: str
    rule: str | None = None


class Departure(BaseModel):
    """CG "Table Stake": a player who ended his play at a game with a stake above its minimum
    buy-in, that playing day."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    game: str
    stake: int = Field(ge=0)
    day: int = Field(description="The playing day: days since the epoch, each beginning at "
                     "the settings' day_starts")
    at: float


class Ledger(BaseModel):
    """Everything the cash floor decided, in the order it must be kept."""

    model_config = ConfigDict(extra="forbid")

    tables: list[Table]
    lists: dict[str, list[Entry]] = Field(description="Each game's waiting list, in order")
    must_move: dict[str, list[str]] = Field(default_factory=dict, description="Each main "
                                            "table's must-move order (players at its must-move "
                                            "tables)")
    offers: list[Offer] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list, description="In the order asked")
    arrivals: int = 0
    recent: list[Happening] = Field(default_factory=list)
    at_tables: AtTables = Field(default_factory=AtTables)  # the tables' side: at_tables.py
    departures: list[Departure] = Field(default_factory=list, description='CG "Table Stake": '
                                        "who ended play above the minimum today, with what")

    @classmethod
    def new(cls, settings: CashSettings) -> Ledger:
        return cls(tables=[Table(table=t.table, seats=t.seats) for t in settings.tables],
                   lists={game: [] for game in settings.games})

    def brought_up_to(self, settings: CashSettings) -> Ledger:
        """A ledger kept under older settings: tables and games added since are there (closed,
        empty); those taken out of the settings stay while anyone is in them. A call kept
        without its deadline (a store of an older version) runs out as it did then: after the
        settings' ``call_seconds``."""
        have = {t.table for t in self.tables}
        for spec in settings.tables:
            if spec.table not in have:
                self.tables.append(Table(table=spec.table, seats=spec.seats))
        for game in settings.games:
            self.lists.setdefault(game, [])
        for entries in self.lists.values():  # a call kept before calls kept their time: the
            for entry in entries:            # setting's, as it was counted then
                if entry.called is not None and entry.until is None:
                    entry.until = entry.called + settings.call_seconds
        # Taken out of the settings and no longer in use: gone (what is in use stays, and takes
        # nobody new: `retired`, the core's refusals)
        listed = {spec.table for spec in settings.tables}
        self.tables = [t for t in self.tables if t.table in listed or self._in_use(t)]
        for game in [g for g in self.lists if g not in settings.games]:
            if not self.lists[game] and all(t.game != game for t in self.tables):
                del self.lists[game]
        return self

    def _in_use(self, table: Table) -> bool:
        return (table.game is not None or bool(table.players) or table.feeds is not None
                or table.table in self.must_move or any(o.main == table.table for o in self.offers)
                or any(c.source == table.table or c.to == table.table for c in self.changes)
                or any(e.table == table.table for es in self.lists.values() for e in es))

    def retired(self, settings: CashSettings) -> list[str]:
        """What the settings no longer list but is kept while in use, each with why (the
        service says it at its start: a line in cash.toml taken out is not ignored unseen)."""
        listed = {spec.table for spec in settings.tables}
        said = []
        for game, entries in self.lists.items():
            if game not in settings.games:
                dealing = [t.table for t in self.tables if t.game == game]
                why = [f"{len(entries)} on its list"] if entries else []
                if dealing:
                    why.append(f"tables {', '.join(dealing)} deal it" if len(dealing) > 1
                               else f"table {dealing[0]} deals it")
                said.append(f"game {game!r} ({' and '.join(why)})")
        for t in self.tables:
            if t.table not in listed:
                said.append(f"table {t.table!r} (" + (
                    f"open with {t.game}, {len(t.players)} seated" if t.game is not None
                    else "closed, still named by a call, a change or a must-move order") + ")")
        return said

    # ---------------------------------------------------------------- look-ups

    def table(self, table: str) -> Table:
        for t in self.tables:
            if t.table == table:
                return t
        known = ", ".join(t.table for t in self.tables)
        raise Refused(f"there is no table {table!r} in the room (its tables: {known})", FLOOR)

    def where(self, name: str) -> tuple[Table, Seated] | None:
        """The table the player sits at (names compared as the screens show them)."""
        wanted = names.skeleton(name)
        for t in self.tables:
            for p in t.players:
                if names.skeleton(p.name) == wanted:
                    return t, p
        return None

    def game(self, game: str) -> str:
        known = names.same_name(game, self.lists)
        if known is None:
            raise Refused(f"the room deals no {game!r} (its games: {', '.join(self.lists)})",
                          CHANGE)
        return known

    def entry(self, game: str, name: str) -> Entry | None:
        wanted = names.skeleton(name)
        return next((e for e in self.lists[game] if names.skeleton(e.name) == wanted), None)

    def mains_fed_by(self, table: str) -> str | None:
        return self.table(table).feeds

    def feeders(self, main: str) -> list[str]:
        return [t.table for t in self.tables if t.feeds == main]

    def offer(self, main: str) -> Offer | None:
        return next((o for o in self.offers if o.main == main), None)

    def change_of(self, name: str) -> Change | None:
        wanted = names.skeleton(name)
        return next((c for c in self.changes if names.skeleton(c.player) == wanted), None)

    # ---------------------------------------------------------------- CG "Table Stake"

    def ended_play(self, settings: CashSettings, name: str, game: str, stake: int,
                   at: float) -> str | None:
        """He ends his play at ``game`` with ``stake``. CG "Table Stake": "Beendet ein
        Spielteilnehmer mit einem Table Stake über dem Minimum Buy-in des Tisches sein Spiel,
        kann er mit einem kleineren Table Stake im selben Limit an diesem Spieltag nicht
        weiterspielen." Above the game's minimum the floor is told and it is kept for the
        day; at or below it, nothing binds him (his last departure is the one that counts:
        the CG speaks of the stake he ends with). Earlier days are forgotten."""
        day = playing_day(settings, at)
        wanted = names.skeleton(name)
        self.departures = [d for d in self.departures if d.day == day and not (
            d.game == game and names.skeleton(d.name) == wanted)]
        minimum = settings.minimum_buy_ins.get(game)
        if minimum is None or stake <= minimum:
            return None
        self.departures.append(Departure(name=name, game=game, stake=stake, day=day, at=at))
        return self.said(at, f"{name} ends play at {game} with {stake:,}, above the minimum "
                         f"buy-in of {minimum:,}: today he plays {game} again only with "
                         f"{stake:,} or more", STAKE)

    def departure(self, settings: CashSettings, name: str, game: str,
                  at: float) -> Departure | None:
        """His departure from ``game`` above its minimum this playing day, if any."""
        day, wanted = playing_day(settings, at), names.skeleton(name)
        return next((d for d in self.departures if d.day == day and d.game == game
                     and names.skeleton(d.name) == wanted), None)

    def comeback_refusal(self, settings: CashSettings, name: str, game: str,
                         stake: int | None, at: float) -> None:
        """A player sitting down at ``game`` with ``stake`` (None: the dealer takes his buy-in
        at the table): refused when he left it today with more (CG "Table Stake"); without a
        stake the floor is told what he must bring."""
        left = self.departure(settings, name, game, at)
        if left is None:
            return
        if stake is None:
            self.said(at, f"{left.name} ended play at {game} today with {left.stake:,}: he sits "
                      f"down with {left.stake:,} or more", STAKE)
        elif stake < left.stake:
            raise Refused(f"{left.name} ended play at {game} today with {left.stake:,}: he cannot "
                          f"come back today with less ({stake:,})", STAKE)

    def said(self, at: float, text: str, rule: str | None = None) -> str:
        self.recent = [*self.recent, Happening(at=at, text=text, rule=rule)][-RECENT:]
        return text


__all__ = ["CHANGE", "FLOOR", "MUST_MOVE", "RECENT", "STAKE", "CashSettings", "Change",
           "Departure", "Entry", "Happening", "Ledger", "MustMoveOrder", "Offer", "Refused",
           "Seated", "Table", "TableSpec", "playing_day"]
