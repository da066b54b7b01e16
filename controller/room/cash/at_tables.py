"""The cash floor's seats made true at the tables, pure: the ledger says who sits where; the
tables' published states say who really sits there. In between:

- A player the floor seats with a buy-in (``seat`` with ``stack``) or moves (a must-move player,
  an approved change) is asked to his table: ``table/<id>/cmd/seat`` with a seat and his chips,
  again until its state shows him (`wanted`). A mover brings the stack his old table showed
  last, between hands (CG "Tischwechsel": the whole table stake), and the request says he was
  moved (``arrival: "moved"``): the table takes his stake whatever the buy-in, and he brings no
  blind (CG "Blinds"). A player seated without a buy-in is not asked for: the dealer seats him
  there, and the floor learns it from the state.
- A player the floor takes off a table he was seen at (he leaves, he moves) is asked off it,
  between hands, by name (``unseat``: the seat may have changed hands meanwhile), again until
  its state no longer shows him; a mover sits down at his new table only then: one player, one
  seat. One who ends his play there without the floor naming his stake leaves with the stack
  the table showed him with between hands, and that is the stake the ledger keeps for the day
  (CG "Table Stake": not back today with less).
- What the states say comes back as the cash floor's own commands, journaled like the floor's
  (`observed`): ``at_table`` (the table shows him at seat N), ``left_seat`` (a seat the table
  showed him at is empty: he left, the seat is open for the must-move order or the list; with
  the stack the table showed him with just before, when that was between hands),
  ``carries`` (the stack a mover takes along, or a leaver ends play with, as his table shows it
  between hands) and ``gone`` (his old table let him go).

A request's id is the same each time it is sent, made of the cash floor's epoch and the ledger's
arrival number of the player: a table applies an id once (the session's command ids), so a
request repeated after the table applied it does nothing twice, and one it refused (a hand in
play) is tried again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from controller.room.tournament import names
from controller.session.outputs import SeatView, TableState


class Leaving(BaseModel):
    """A player the floor took off a table whose state showed him there: he is asked off it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    table: str
    arrival: int = Field(description="His arrival at that table (the unseat's id)")
    to: int | None = Field(default=None, description="A move: his arrival at the new table, "
                           "which gets the stack he takes along")
    game: str | None = Field(default=None, description="He ends his play at this game, the "
                             "floor naming no stake: the stake the table shows him with "
                             "between hands (`stack`) is the day's (CG Table Stake), kept once "
                             "the table let him go")
    stack: int | None = Field(default=None, description="That stake, as the table showed it")


class AtTables(BaseModel):
    """What the cash floor knows of its seats at the tables themselves (kept in its ledger)."""

    model_config = ConfigDict(extra="forbid")

    epoch: float | None = Field(default=None, description="When the first table-side fact came "
                                "in: the requests' ids begin with it, so that a new journal's "
                                "arrival 1 is not an old one's at the same table")
    sat: list[int] = Field(default_factory=list, description="Arrivals the tables showed at "
                           "their seats: a seat that empties after that is the player leaving")
    brings: dict[int, int] = Field(default_factory=dict, description="Arrival -> the chips he "
                                   "sits down with (the buy-in, or a mover's stack)")
    moved: list[int] = Field(default_factory=list, description="Arrivals the floor moved "
                             "(a must-move player, an approved change): the table is told, "
                             "so he brings his whole stake and no blind (CG Blinds)")
    leaving: list[Leaving] = Field(default_factory=list)


@dataclass(frozen=True)
class Ask:
    """A command the cash floor wants a table to carry out (``table/<id>/cmd/<command>``)."""

    table: str
    command: str
    args: dict[str, Any]
    id: str


def between_hands(state: TableState) -> bool:
    return state.stage in ("waiting", "over")


def shown(state: TableState, name: str) -> tuple[int, SeatView] | None:
    """Where the table shows ``name`` (names compared as the screens show them)."""
    wanted = names.skeleton(name)
    return next(((seat, view) for seat, view in sorted(state.seats.items())
                 if names.skeleton(view.player) == wanted), None)


Observed = tuple[str, dict[str, Any]]


def carried(side: AtTables, leaving: Leaving) -> int | None:
    """The stack journaled for a player leaving a table: a mover's (what his new seat gets), a
    leaver's whose stake the ledger keeps (`Leaving.game`)."""
    return side.brings.get(leaving.to) if leaving.to is not None else leaving.stack


def needs_stack(leaving: Leaving) -> bool:
    """Whether his stack is journaled (`carries`) before the table is asked to let him go."""
    return leaving.to is not None or leaving.game is not None


def observed(side: AtTables, players: list[tuple[str, int, int | None]],
             state: TableState, before: TableState | None = None) -> list[Observed]:
    """The cash floor's own commands a table's state calls for. ``players``: (name, arrival,
    seat) of those the ledger seats at that table; ``before``: the table's state just before
    this one, if known (a player gone from between hands left with what it showed)."""
    table = state.table
    out: list[Observed] = []
    for name, arrival, seat in players:
        here = shown(state, name)
        if here is not None:
            if arrival not in side.sat or seat != here[0]:
                out.append(("at_table", {"table": table, "name": name, "seat": here[0]}))
        elif arrival in side.sat:
            args: dict[str, Any] = {"table": table, "name": name}
            was = shown(before, name) if before is not None and between_hands(before) else None
            if was is not None:
                args["stack"] = was[1].stack
            out.append(("left_seat", args))
    for leaving in side.leaving:
        if leaving.table != table:
            continue
        here = shown(state, leaving.name)
        if here is None:
            out.append(("gone", {"table": table, "name": leaving.name}))
        elif (needs_stack(leaving) and between_hands(state)
              and carried(side, leaving) != here[1].stack):
            out.append(("carries", {"name": leaving.name, "stack": here[1].stack}))
    return out


@dataclass(frozen=True)
class Seating:
    """One table as `wanted` needs it from the ledger."""

    table: str
    seats: int
    open: bool
    players: list[tuple[str, int, int | None]]  # (name, arrival, seat), in the order they came


def wanted(side: AtTables, tables: list[Seating], states: Mapping[str, TableState],
           destination: Mapping[int, str]) -> list[Ask]:
    """Every request the tables still need: players off the tables they left (between hands)
    and players onto their seats. ``destination``: a mover's new arrival -> its table."""
    epoch = int(side.epoch or 0)
    asks: list[Ask] = []
    for leaving in side.leaving:
        state = states.get(leaving.table)
        here = shown(state, leaving.name) if state is not None else None
        if state is None or here is None or not between_hands(state):
            continue
        seat, view = here
        if needs_stack(leaving) and carried(side, leaving) != view.stack:
            continue  # what he takes along (or ends play with) is journaled first (`carries`)
        where = destination.get(leaving.to) if leaving.to is not None else None
        reason = (f"table {where} (the cash floor moves him)" if where is not None
                  else "the cash floor: he leaves the table")
        asks.append(Ask(leaving.table, "unseat", {"seat": seat, "player": view.player,
                                                  "reason": reason},
                        f"cash:{epoch}:unseat:{leaving.arrival}"))
    elsewhere = {names.skeleton(leaving.name) for leaving in side.leaving}
    for table in tables:
        state = states.get(table.table)
        if state is None or not table.open:
            continue
        claimed: set[int] = set()
        reserved = {given for _, arrival, given in table.players
                    if given is not None and arrival not in side.sat}
        for name, arrival, given in table.players:
            stack = side.brings.get(arrival)
            if (arrival in side.sat or names.skeleton(name) in elsewhere or not stack
                    or shown(state, name) is not None):
                continue
            chosen = _seat_for(given, state, table, claimed, reserved - {given}, side)
            if chosen is None:
                continue
            claimed.add(chosen)
            args: dict[str, Any] = {"seat": chosen, "player": name, "stack": stack}
            if arrival in side.moved:  # CG Tischwechsel, CG Blinds: his stake, no blind
                args["arrival"] = "moved"
            asks.append(Ask(table.table, "seat", args, f"cash:{epoch}:seat:{arrival}"))
    return asks


def _seat_for(seat: int | None, state: TableState, table: Seating, claimed: set[int],
              reserved: set[int], side: AtTables) -> int | None:
    """The seat to ask for: the one the floor gave him if the table has it free; none yet if
    the player there is leaving it; else the first seat free at the table and not promised."""
    capacity = min(table.seats, state.seat_count)
    if seat is not None and seat <= capacity:
        if seat not in state.seats and seat not in claimed:
            return seat
        occupant = state.seats.get(seat)
        going = {names.skeleton(leaving.name) for leaving in side.leaving
                 if leaving.table == table.table}
        if occupant is not None and names.skeleton(occupant.player) in going:
            return None  # his seat opens once the player leaving it has gone
    return next((s for s in range(1, capacity + 1)
                 if s not in state.seats and s not in claimed and s not in reserved), None)


__all__ = ["Ask", "AtTables", "Leaving", "Observed", "Seating", "between_hands", "carried",
           "needs_stack", "observed", "shown", "wanted"]
