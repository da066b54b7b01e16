"""Balancing and breaking tables (RULES T3; PVB 09, 10; APSA 3.1.2.4-5; BPS 24), pure.

Given where everyone sits (each table with the button and the big blind of the hand it just
played), `plan` says what the room must do, in order:

1. **Break.** While the players fit at one table fewer, the next table in the break order breaks
   and its players go to the free seats of the others, each to the table with the fewest
   players (ties: the order of the tables in the configuration), in an order the random source
   draws. They take any free seat; one who lands between the button and the small blind sits out
   that hand (PVB 10(1), APSA 3.1.2.5: the table itself deals him out, RULES B4).
2. **Balance.** While the largest table has two or more players more than the smallest, one
   player moves from the largest to the smallest (ties: the order of the tables). The seat is the
   free seat at the short table that its big blind reaches first, counted clockwise from the seat
   that posted the last big blind there (never that seat itself: it is the small blind's next,
   APSA 3.1.2.4). The player: under ``apsa-2010`` the one who would be big blind next at the long
   table (APSA 3.1.2.4, BPS 24); under ``pvb-2020`` the one whose position at the long table,
   counted in occupied seats clockwise from its button (small blind 1, big blind 2, ...), is the
   position the free seat would take at the short table (PVB 09(1): no better, no worse).
3. **Hold.** A table receiving players while it has three or more empty seats stops until they
   have taken their seats (PVB 09(3)).

Which table gives the player and when is the director's (PVB 09(2)); this is the rule the
director set in the configuration. Nothing here knows time or I/O; the random source comes in.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

BalanceProfile = Literal["pvb-2020", "apsa-2010"]
PROFILES: tuple[BalanceProfile, ...] = ("pvb-2020", "apsa-2010")


class RandomSource(Protocol):
    """What the rules draw with: `random.Random(seed)` in the service, so the same seed (which
    the service journals) gives the same draw."""

    def shuffle(self, x: MutableSequence[Any]) -> None: ...


class Spot(BaseModel):
    """A seat in the room."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    seat: int = Field(ge=1, le=10)


class TableSeating(BaseModel):
    """One table as balancing sees it: who sits where, and the positions of the hand it just
    played (None before its first hand)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(min_length=1, max_length=32)
    seats: int = Field(default=9, ge=2, le=10)
    button: int | None = Field(default=None, ge=1, le=10)
    small_blind: int | None = Field(default=None, ge=1, le=10, description="Optional: where "
                                    "the next hand's button goes")
    big_blind: int | None = Field(default=None, ge=1, le=10)
    players: dict[int, str] = Field(default_factory=dict, description="Player by seat")

    @model_validator(mode="after")
    def _seats_exist(self) -> TableSeating:
        bad = [s for s in self.players if not 1 <= s <= self.seats]
        if bad:
            raise ValueError(f"table {self.table}: seat {bad[0]} does not exist (seats 1 to "
                             f"{self.seats})")
        return self

    def empty(self) -> int:
        return self.seats - len(self.players)


@dataclass(frozen=True)
class Break:
    table: str


@dataclass(frozen=True)
class Move:
    player: str
    source: Spot
    to: Spot
    rule: str
    reason: Literal["balance", "break"]
    sits_out: bool = False  # lands between the button and the small blind: out one hand


@dataclass(frozen=True)
class Hold:
    table: str
    empty: int  # empty seats when the players were sent


@dataclass
class Plan:
    breaks: list[Break] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    holds: list[Hold] = field(default_factory=list)

    def lines(self) -> list[dict[str, Any]]:
        """What `pokertable tournament balance` prints, in order."""
        out: list[dict[str, Any]] = [{"break": b.table} for b in self.breaks]
        for m in self.moves:
            line: dict[str, Any] = {"move": m.player,
                                    "from": {"table": m.source.table, "seat": m.source.seat},
                                    "to": {"table": m.to.table, "seat": m.to.seat},
                                    "rule": m.rule}
            if m.sits_out:
                line["sits_out"] = True
            out.append(line)
        out += [{"hold": h.table} for h in self.holds]
        return out


class _Table:
    """A table being planned: its seats change as the plan moves players."""

    def __init__(self, seating: TableSeating, order: int) -> None:
        self.name = seating.table
        self.seats = seating.seats
        self.button = seating.button
        self.small_blind = seating.small_blind
        self.big_blind = seating.big_blind
        self.players = dict(seating.players)
        self.order = order
        self.start_empty = seating.empty()
        self.receives = False

    def clockwise(self, after: int) -> list[int]:
        """Every seat, clockwise, starting with the one after ``after``."""
        return [(after + k - 1) % self.seats + 1 for k in range(1, self.seats + 1)]

    def free_seats(self) -> list[int]:
        return [s for s in range(1, self.seats + 1) if s not in self.players]

    def last_big_blind(self) -> int:
        """Where the count starts: the seat that posted the last big blind; before the first
        hand, the button's seat (seat 1, DFO §2(4)) so that the count runs from seat 2."""
        if self.big_blind is not None:
            return self.big_blind
        return self.button if self.button is not None else 1

    def seat_for_newcomer(self) -> int:
        """The free seat the big blind reaches first, clockwise from the last big blind (that
        seat itself last of all: it is the small blind's in the next hand)."""
        last = self.last_big_blind()
        free = [s for s in self.clockwise(last) if s not in self.players]
        return free[0]

    def button_seat(self) -> int:
        return self.button if self.button is not None else self.seats  # before seat 1

    def position(self, seat: int, counted_as_occupied: bool = False) -> int:
        """Occupied seats counted clockwise from the button (small blind 1, big blind 2, ...)
        up to ``seat``; ``counted_as_occupied``: ``seat`` counts as if taken (a free seat)."""
        count = 0
        for s in self.clockwise(self.button_seat()):
            if s in self.players or (s == seat and counted_as_occupied):
                count += 1
            if s == seat:
                return count
        raise AssertionError(seat)  # pragma: no cover (every seat is on the way round)

    def player_at_position(self, position: int) -> int:
        occupied = [s for s in self.clockwise(self.button_seat()) if s in self.players]
        return occupied[min(position, len(occupied)) - 1]

    def next_big_blind(self) -> int:
        """The player who would post the next big blind: the first occupied seat clockwise
        after the last big blind."""
        return next(s for s in self.clockwise(self.last_big_blind()) if s in self.players)

    def between_button_and_small_blind(self, seat: int) -> bool:
        """Whether a newcomer at ``seat`` sits between the next hand's button (the last small
        blind's seat) and its small blind (the last big blind's seat), or on that small blind
        seat: he gets no cards that hand (PVB 10(1), RULES B4). The table decides (its engine
        deals him out); this says beforehand what it will do when the button moves on normally
        (after a dead small blind it stays, PVB 27(1), and more seats sit out). Before the first
        hand nobody sits out."""
        if self.button is None or self.big_blind is None:
            return False
        next_button = self.small_blind
        if next_button is None:  # the small blind sat on the first occupied seat after it
            next_button = next((s for s in self.clockwise(self.button)
                                if s in self.players and s != seat), self.button)
        between = []
        for s in self.clockwise(next_button):
            between.append(s)
            if s == self.big_blind:
                break
        return seat in between and seat != next_button


def plan(tables: list[TableSeating], break_order: list[str], profile: BalanceProfile,
         rng: RandomSource | None = None) -> Plan:
    """What the room must do now: breaks, then moves, then holds (module docstring).
    ``tables``: the open tables in the configuration's order. ``break_order``: the order in
    which tables break (a table not named in it never breaks). ``rng``: the draw of the broken
    tables' players (None: in seat order)."""
    names = [t.table for t in tables]
    if len(set(names)) != len(names):
        raise ValueError("a table is listed twice")
    room = [_Table(t, k) for k, t in enumerate(tables)]
    everyone = [p for t in tables for p in t.players.values()]
    if len(set(everyone)) != len(everyone):
        raise ValueError("a player sits at two seats")
    result = Plan()
    _breaks(room, break_order, rng, result)
    _balance(room, profile, result)
    result.holds = [Hold(t.name, t.start_empty) for t in room
                    if t.receives and t.start_empty >= 3]
    return result


def _breaks(room: list[_Table], break_order: list[str], rng: RandomSource | None,
            result: Plan) -> None:
    while True:
        open_names = [t.name for t in room]
        breaking = next((n for n in break_order if n in open_names), None)
        if breaking is None or len(room) < 2:
            return
        table = next(t for t in room if t.name == breaking)
        rest = [t for t in room if t is not table]
        players = sum(len(t.players) for t in room)
        if players > sum(t.seats for t in rest):
            return
        room.remove(table)
        result.breaks.append(Break(table.name))
        leaving = [(seat, table.players[seat]) for seat in sorted(table.players)]
        if rng is not None:
            rng.shuffle(leaving)
        for seat, player in leaving:
            target = min((t for t in rest if t.free_seats()),
                         key=lambda t: (len(t.players), t.order))
            free = target.free_seats()
            if rng is not None:
                rng.shuffle(free)
            to = free[0]
            sits_out = target.between_button_and_small_blind(to)
            target.players[to] = player
            target.receives = True
            result.moves.append(Move(player, Spot(table=table.name, seat=seat),
                                     Spot(table=target.name, seat=to), "PVB 10(1)", "break",
                                     sits_out))


def _balance(room: list[_Table], profile: BalanceProfile, result: Plan) -> None:
    while len(room) >= 2:
        long = max(room, key=lambda t: (len(t.players), -t.order))
        short = min(room, key=lambda t: (len(t.players), t.order))
        if len(long.players) - len(short.players) < 2:
            return
        seat = short.seat_for_newcomer()
        if profile == "apsa-2010":
            source, rule = long.next_big_blind(), "APSA 3.1.2.4"
        else:
            wanted = short.position(seat, counted_as_occupied=True)
            source, rule = long.player_at_position(wanted), "PVB 09(1)"
        player = long.players.pop(source)
        short.players[seat] = player
        short.receives = True
        result.moves.append(Move(player, Spot(table=long.name, seat=source),
                                 Spot(table=short.name, seat=seat), rule, "balance"))


__all__ = ["PROFILES", "BalanceProfile", "Break", "Hold", "Move", "Plan", "RandomSource",
           "Spot", "TableSeating", "plan"]
