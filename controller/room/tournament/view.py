"""The retained ``tournament/state``: the base fields every screen reads (`TournamentState`:
name, entries, players left, average stack, chip leader, prize pool, payouts) and the floor's
own (standings, the seat list, moves to make, tables, the chip count, alerts). Pure."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from controller.mqtt.messages import ChipLeader, Payout, TournamentState
from controller.room.tournament.balance import Spot
from controller.room.tournament.ledger import (
    Alert,
    ColourUpDue,
    Move,
    MoveStatus,
    Purchase,
    Status,
)
from controller.room.tournament.standings import Standing


class SeatLine(BaseModel):
    """A player still in: where he sits (or is going), and his stack."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    club: str | None = None
    table: str | None = None
    seat: int | None = None
    stack: int = 0
    moving: MoveStatus | None = Field(default=None, description="On his way to table/seat")
    chips_read: bool = Field(default=True, description="False: seated by the draw or a move, "
                             "his chips not yet read at this seat")


class TableLine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    seats: int
    players: int
    status: str = Field(description="open, broken, or not in use")
    held: bool = Field(default=False, description="Stopped for its newcomers (PVB 09(3))")
    online: bool = False
    missing: bool = Field(default=False, description="Open, and its state has not come (since "
                          "the tournament started): the tournament waits for it")
    gone: bool = Field(default=False, description="Missing, and the director told the "
                       "tournament to go on without it")


class ChipLine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    in_play: int = Field(description="Issued (entries, re-entries, add-ons, rebuys, chips the "
                         "floor gave back) less what left play at colour-ups")
    counted: int = Field(description="Every table's stacks at the end of its last hand, the "
                         "stacks on their way between tables and chips bought on their way to "
                         "a stack")
    difference: int
    given_back: int = Field(default=0, description="Of the chips issued: those the floor gave "
                            "back with busts it took back")


class PublishedState(TournamentState):
    """``tournament/state`` as the tournament service publishes it: validates as
    `TournamentState` (whose extra fields are allowed)."""

    status: Status = "registration"
    registration_open: bool = True
    reentry: bool = Field(default=False, description="The structure offers re-entry")
    late_registration_ends: int | None = None
    seed: int | None = Field(default=None, description="The draw's seed (PVB 08a(1))")
    players: int = Field(default=0, description="Players registered")
    balancing: str = "pvb-2020"
    points: str = "none"
    standings: list[Standing] = Field(default_factory=list)
    seats: list[SeatLine] = Field(default_factory=list)
    moves: list[Move] = Field(default_factory=list, description="Moves under way, then the "
                              "latest seated, done, cancelled or superseded")
    tables: list[TableLine] = Field(default_factory=list)
    waiting_for: list[str] = Field(default_factory=list, description="What the tournament "
                                   "waits for before it seats, moves, breaks or counts anything "
                                   "(after a restart: every open table's state, the clock's)")
    chips: ChipLine | None = None
    alerts: list[Alert] = Field(default_factory=list)
    add_on_open: bool = Field(default=False, description="The structure's add-on break is on")
    add_on_per_player: int | None = Field(default=None, description="Add-ons each player may "
                                          "take (None: the structure offers none)")
    add_ons: dict[str, int] = Field(default_factory=dict, description="Add-ons each player "
                                    "has taken (void ones not counted), those who took any")
    rebuy_open: bool = Field(default=False, description="The structure's rebuy period lasts")
    can_rebuy: list[str] = Field(default_factory=list, description="Players a rebuy is sold "
                                 "to now (the checks of the rebuy command: still in, the "
                                 "period, the structure's at_most, the stack limit)")
    purchases: list[Purchase] = Field(default_factory=list, description="Add-ons and rebuys "
                                      "on their way to a stack, then the latest")
    colour_up: ColourUpDue | None = Field(default=None, description="The latest break's "
                                          "colour-up, table by table (RULES T5)")


def chip_leader(seats: list[SeatLine]) -> ChipLeader | None:
    """The one player with the most chips; None while nobody has chips or the top stack is
    shared (before the first hand everyone has the starting stack: no one leads)."""
    top = max((s.stack for s in seats), default=0)
    leaders = [s for s in seats if s.stack == top]
    if top <= 0 or len(leaders) > 1:
        return None
    (leader,) = leaders
    return ChipLeader(player=leader.player, stack=leader.stack, table=leader.table)


_SEAT_LINES = TypeAdapter(list[SeatLine])


def seat_lines(players: dict[str, tuple[str | None, Spot | None, int]],
               moves: list[Move]) -> list[SeatLine]:
    going = {m.player: m for m in moves if m.status in ("leaving", "arriving")}
    unread = {m.player for m in moves if m.status == "seated"}
    out = []
    for name, (club, spot, stack) in players.items():
        move = going.get(name)
        where = move.to if move is not None else spot
        out.append({"player": name, "club": club, "table": where.table if where else None,
                    "seat": where.seat if where else None,
                    "stack": move.stack if move is not None else stack,
                    "moving": move.status if move is not None else None,
                    "chips_read": name not in unread})
    out.sort(key=lambda s: (s["table"] is None, s["table"] or "", s["seat"] or 0, s["player"]))
    return _SEAT_LINES.validate_python(out)  # (in one go: a thousand lines after every hand)


def payout_lines(table: list[int]) -> list[Payout]:
    return [Payout(place=k, amount=prize) for k, prize in enumerate(table, start=1)]


__all__ = ["ChipLine", "PublishedState", "SeatLine", "TableLine", "chip_leader",
           "payout_lines", "seat_lines"]
