"""What the tournament keeps, pure models: its settings (from tournament.toml and the structure)
and its ledger, everything a restart needs (the store saves it whole after every change, in one
transaction with the command or table message that changed it).

The tables' own states are not in it: they are retained on the broker and come again after a
restart. What the tournament decided (the draw, every move, every elimination and its place,
the alerts) is.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from controller.room.clock.structure import Structure
from controller.room.tournament.balance import BalanceProfile, Spot
from controller.room.tournament.chip_count import ChipCount
from controller.room.tournament.places import Bust, GroupKey
from controller.room.tournament.prizes import PointsProfile
from controller.session.colour_up import ColourUpMethod


class TableSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
    seats: int = Field(default=9, ge=2, le=10)


class Settings(BaseModel):
    """How this tournament runs: the structure (start stack, re-entry, payouts), the room's
    tables in the configuration's order (ties in balancing go by it, RULES T3), the order in
    which they break, and the profiles where the books differ."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=80)
    structure: Structure
    tables: list[TableSpec] = Field(min_length=1)
    break_order: list[str] = Field(default_factory=list, description="Tables in the order they "
                                   "break; default: the configuration's order reversed")
    seats: int = Field(default=9, ge=2, le=10, description="Players per table: the start stack "
                       "follows it (DFO §2(2))")
    balancing: BalanceProfile = "pvb-2020"
    points: PointsProfile = "none"
    colour_up: ColourUpMethod = Field(default="race", description="The leftover chips at a "
                                      "colour-up: race (APSA 2.1.18, BPS 2) or chip-up (PVB "
                                      "15b(1))")
    _seats: dict[str, int] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        names = [t.table for t in self.tables]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"tables: table {twice[0]!r} is listed twice")
        unknown = [t for t in self.break_order if t not in names]
        if unknown:
            raise ValueError(f"break_order: table {unknown[0]!r} is not among the tables")
        twice = sorted({n for n in self.break_order if self.break_order.count(n) > 1})
        if twice:
            raise ValueError(f"break_order: table {twice[0]!r} is listed twice")
        if self.structure.entry.start_stack(self.seats) is None:
            raise ValueError(f"the structure {self.structure.name!r} names no start stack for "
                             f"tables of {self.seats} ([entry] stack or stacks, RULES T6)")
        return self

    def order_of_breaking(self) -> list[str]:
        return list(self.break_order) or [t.table for t in reversed(self.tables)]

    def start_stack(self) -> int:
        stack = self.structure.entry.start_stack(self.seats)
        assert stack is not None  # checked above
        return stack

    def model_post_init(self, context: Any) -> None:
        self._seats = {t.table: t.seats for t in self.tables}

    def seats_of(self, table: str) -> int:
        return self._seats.get(table, self.seats)


Status = Literal["registration", "running", "finished"]
MoveStatus = Literal["leaving", "arriving", "seated", "done", "cancelled", "superseded"]
MoveReason = Literal["draw", "late", "reentry", "balance", "break", "undo"]


class Player(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    club: str | None = None
    entries: int = Field(default=1, ge=1, description="1 + re-entries")
    out: bool = False
    spot: Spot | None = Field(default=None, description="Where the tables last showed him")
    stack: int = Field(default=0, ge=0, description="His stack at the end of the last hand")


class Out(BaseModel):
    """An elimination as the tournament heard it (a table's durable event, or its sealed
    record)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The table's event id (or the record's hand id)")
    bust: Bust
    busted: list[str] = Field(default_factory=list, description="Everyone the table said went "
                              "out in that hand")
    at: float | None = Field(default=None, description="When he went out: the table's time of "
                             "its elimination event (or when its sealed record was heard)")


class Undone(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bust: Bust
    by: str
    at: float
    why: str
    stack: int | None = Field(default=None, description="The chips the floor gave back to a "
                              "player who had lost his seat (issued, RULES T6)")
    spot: Spot | None = Field(default=None, description="The seat drawn for him then")


class Move(BaseModel):
    """A player on his way to a seat: from the draw (no source), a late entry, balancing, a
    broken table or a bust the floor took back. ``leaving`` until the old table shows his seat
    empty, ``arriving`` until the new one shows him there, ``seated``, and ``done`` when his
    chips were read at the new seat (or the floor said so); ``cancelled`` when he went out
    before; ``superseded`` when he moved again while still ``seated`` (he left that seat: his
    chips are counted at the new one, by his newer move)."""

    model_config = ConfigDict(extra="forbid")

    id: int
    player: str
    source: Spot | None = None
    to: Spot
    stack: int = Field(ge=0)
    rule: str
    reason: MoveReason
    status: MoveStatus
    decided: float
    source_hand: int | None = Field(default=None, description="The source table's hand when "
                                    "the move was decided: if it plays another first, the move "
                                    "is decided again")
    sits_out: bool = False
    seed: int | None = Field(default=None, description="The seed of the draw that chose it")


PurchaseKind = Literal["add_on", "rebuy"]
PurchaseStatus = Literal["owed", "given", "void"]


class Purchase(BaseModel):
    """Chips a player bought (an add-on, a rebuy): ``owed`` until his table's state shows them
    added to his stack (between hands), then ``given``; ``void`` if he went out first."""

    model_config = ConfigDict(extra="forbid")

    id: int
    kind: PurchaseKind
    player: str
    chips: int = Field(gt=0)
    price: int = Field(ge=0, description="What it adds to the prize pool")
    by: str
    at: float
    status: PurchaseStatus = "owed"
    table: str | None = Field(default=None, description="The table that added the chips")

    @property
    def ref(self) -> str:
        """The table's key for it (``stack`` command's ``ref``): added once."""
        return f"{self.kind}:{self.id}"


ColourUpStatus = Literal["due", "racing", "done"]


class ColourUpDue(BaseModel):
    """A break's colour-up (RULES T5) at each table in play: ``due`` until the table made it,
    ``racing`` while its chip count waits for the race (until the table's next hand), ``done``.
    """

    model_config = ConfigDict(extra="forbid")

    ref: str
    after_level: int
    chips: list[int]
    unit: int
    method: ColourUpMethod
    tables: dict[str, ColourUpStatus] = Field(default_factory=dict)


class Alert(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    at: float
    text: str
    rule: str | None = None
    table: str | None = None
    hand: int | None = None


class Ledger(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status = "registration"
    seed: int | None = Field(default=None, description="The draw's seed (PVB 08a(1))")
    players: dict[str, Player] = Field(default_factory=dict)
    outs: list[Out] = Field(default_factory=list, description="Eliminations of current entries")
    undone: list[Undone] = Field(default_factory=list, description="Eliminations taken back: "
                                 "by the floor, or by a table's sealed record")
    settled: list[list[Any]] = Field(default_factory=list, description="Groups (hands, "
                                     "hand-for-hand rounds) whose places are given")
    moves: list[Move] = Field(default_factory=list)
    next_move: int = 1
    open_tables: list[str] = Field(default_factory=list, description="Tables in play, in the "
                                   "configuration's order")
    broken: list[str] = Field(default_factory=list)
    closed: list[str] = Field(default_factory=list, description="Broken tables told to close")
    rounds: dict[int, list[str]] = Field(default_factory=dict, description="Hand-for-hand: the "
                                         "tables each round released")
    round_records: dict[int, list[str]] = Field(default_factory=dict, description="Hand-for-"
                                                "hand: the tables whose record of the round "
                                                "came")
    seq: int = 0
    entries: int = Field(default=0, description="Entries, re-entries counted")
    chips: ChipCount = Field(default_factory=ChipCount)
    alerts: list[Alert] = Field(default_factory=list)
    next_alert: int = 1
    strangers: list[str] = Field(default_factory=list, description="table:player of players "
                                 "the tables showed who are not in the tournament (told once)")
    stranded: list[int] = Field(default_factory=list, description="Moves to a table gone on "
                                "without that found no seat elsewhere (the floor told once)")
    in_time: bool = True
    purchases: list[Purchase] = Field(default_factory=list, description="Add-ons and rebuys")
    next_purchase: int = 1
    colour_ups: list[ColourUpDue] = Field(default_factory=list, description="The breaks' "
                                          "colour-ups at the tables (RULES T5)")
    clock_heard: bool = Field(default=False, description="The room has a clock: its state "
                              "came once (after a restart the tournament waits for it again)")
    gone: list[str] = Field(default_factory=list, description="Open tables whose state has "
                            "not come, that the director told the tournament to go on without "
                            "(until their state comes)")

    def settled_keys(self) -> set[GroupKey]:
        return {tuple(k) for k in self.settled}

    def busts(self) -> list[Bust]:
        return [o.bust for o in self.outs]

    def players_in(self) -> list[str]:
        return sorted(n for n, p in self.players.items() if not p.out)

    def move_of(self, player: str) -> Move | None:
        return next((m for m in self.moves if m.player == player and m.status in
                     ("leaving", "arriving")), None)


__all__ = ["Alert", "ColourUpDue", "ColourUpStatus", "Ledger", "Move", "MoveReason", "MoveStatus",
           "Out", "Player", "Purchase", "PurchaseKind", "PurchaseStatus", "Settings", "Status",
           "TableSpec", "Undone"]
