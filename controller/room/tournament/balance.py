"""Balancing and breaking tables (RULES T3; PVB 09, 10; APSA 3.1.2.4-5; BPS 24), pure.

Given where everyone sits (each table with the button and the big blind of the hand it just
played, or in play), `plan` says what the room must do, in order:

1. **Break.** While the players fit at one table fewer, the next table in the break order breaks
   and its players go to the free seats of the others, each to the table with the fewest
   players (ties: the order of the tables in the configuration), in an order the random source
   draws. They take any free seat; one who lands between the button and the small blind sits out
   that hand (PVB 10(1), APSA 3.1.2.5: the table itself deals him out, RULES B4). A broken
   table's player has no claim to an equal seat (PVB 10(2)).
2. **Balance.** While the largest table has two or more players more than the smallest, one
   player moves from the largest to the smallest (ties: the order of the tables).
3. **Hold.** A table receiving players while it has three or more empty seats stops until they
   have taken their seats (PVB 09(3)).

**A seat's position** is measured the one way the tables move the blinds: the number of hands
until that seat posts the big blind (`_Table.hands_to_big_blind`). The big blind moves exactly
one player clockwise every hand, whoever holds the button, whether it is dead, and whether a
newcomer sits there (RULES B2, B4: a newcomer is in the order at once, and one who sits out a
hand between the button and the small blind still lies where the big blind reaches him last).
So from the seat that posted the last big blind, the first player clockwise posts it in the
next hand (1), the second in the one after (2), ..., and that seat's own player last of all: he
has just posted it. A free seat is counted as if its newcomer sat there already. Both tables
are measured at the moment of the move: the long table between hands, the short table as it
will be when he sits down (after the hand it may be playing, whose big blind is then its last).
Before a table's first hand, its first big blind is 1 (button on the first player from seat 1,
PVB 26a, DFO §2(4); heads-up the other player, else the second after the button).

- **The seat** is the free seat at the short table whose newcomer posts the big blind soonest
  (ties: the first clockwise from the last big blind): the free seat its big blind reaches
  first. Never the last big blind's own seat while another is free: it is the next small
  blind's, and the newcomer would sit out there (APSA 3.1.2.4, BPS 24).
- **The player**, under ``apsa-2010``: the one at the long table due the next big blind (1)
  moves into it (APSA 3.1.2.4, BPS 24: "the big blind into the worst position"). Under
  ``pvb-2020``: the one whose hands until the big blind at the long table equal the free
  seat's at the short table (PVB 09(1): "no worse position", and no better), so he pays it
  neither twice in a row nor skips one. Such a player always exists: the short table has at
  least two fewer players, so the free seat's count is below the long table's.

Which table gives the player and when is the director's (PVB 09(2)); this is the rule the
director set in the configuration. Nothing here knows time or I/O; the random source comes in.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.room.tournament.balance_profiles import PROFILES, BalanceProfile


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
    """One table as balancing sees it: who sits where now, and the positions of the hand it
    just played or is playing (None before its first hand), as its state shows them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(min_length=1, max_length=32)
    seats: int = Field(default=9, ge=2, le=10)
    button: int | None = Field(default=None, ge=1, le=10)
    small_blind: int | None = Field(default=None, ge=1, le=10, description="Where the small "
                                    "blind was posted; None: it was dead, and the next "
                                    "hand's button stays (PVB 27(1))")
    big_blind: int | None = Field(default=None, ge=1, le=10)
    players: dict[int, str] = Field(default_factory=dict, description="Player by seat")
    newcomers: frozenset[int] = Field(default=frozenset(), description="Seats of players who "
                                      "sat down since that hand (RULES B4): only where a "
                                      "newcomer sits out his first hand depends on them")

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
        self.newcomers = set(seating.newcomers)  # and this plan's arrivals

    def clockwise(self, after: int) -> list[int]:
        """Every seat, clockwise, starting with the one after ``after``."""
        return [(after + k - 1) % self.seats + 1 for k in range(1, self.seats + 1)]

    def free_seats(self) -> list[int]:
        return [s for s in range(1, self.seats + 1) if s not in self.players]

    def hands_to_big_blind(self, seat: int) -> int:
        """Hands until ``seat`` posts the big blind here (1: the next hand), counting a free
        ``seat`` as taken by a newcomer (module docstring)."""
        taken = sorted(set(self.players) | {seat})  # seat order is clockwise order
        if self.big_blind is not None:
            last = self.big_blind
            due = next((s for s in taken if s > last), taken[0])  # the big blind moves on one
        else:  # the first hand's: button on the first player from seat 1 (PVB 26a)
            due = taken[1 if len(taken) == 2 else 2] if len(taken) >= 2 else taken[0]
        return (taken.index(seat) - taken.index(due)) % len(taken) + 1

    def seat_for_newcomer(self) -> int:
        """The free seat whose newcomer posts the big blind soonest; of equals, the first
        clockwise from the last big blind (so that seat itself comes last: it is the next
        small blind's)."""
        start = self.big_blind if self.big_blind is not None else self.seats
        free = [s for s in self.clockwise(start) if s not in self.players]
        return min(free, key=self.hands_to_big_blind)  # min keeps the first of equals

    def player_due_in(self, hands: int) -> int:
        """The seat of the player who posts the big blind in ``hands`` hands."""
        return next(s for s in self.players if self.hands_to_big_blind(s) == hands)

    def between_button_and_small_blind(self, seat: int) -> bool:
        """Whether a newcomer at ``seat`` gets no cards in the next hand: he sits after its
        button and before its small blind (the last big blind's seat), or on that seat while
        it is a dead small blind (PVB 10(1), APSA 3.1.2.5, RULES B4). The table decides (its
        engine deals him out); this says beforehand what it will do, following its button
        (RULES B2): onto the last small blind's seat if he posted it and still plays and no
        newcomer is the next big blind, else it stays (PVB 27(1)); where the big blind has gone
        round past it, just before the small blind (APSA 5.3). ``small_blind`` None is a dead
        small blind, as the tables' states say it. Heads-up, and before the first hand, nobody
        sits out."""
        last_bb = self.big_blind
        if self.button is None or last_bb is None:
            return False
        taken = sorted(set(self.players) | {seat})
        if len(taken) <= 2:
            return False
        next_bb = next((s for s in taken if s > last_bb), taken[0])
        moves_on = (self.small_blind is not None and self.small_blind in self.players
                    and self.small_blind not in self.newcomers
                    and next_bb != seat and next_bb not in self.newcomers)
        button = self.small_blind if moves_on and self.small_blind is not None else self.button
        if not self.strictly_between(button, next_bb, last_bb):
            if self.small_blind is not None and self.strictly_between(
                    self.small_blind, next_bb, last_bb):
                button = self.small_blind
            else:
                button = [s for s in self.clockwise(next_bb)[:-1]
                          if s in taken and self.strictly_between(s, next_bb, last_bb)][-1]
        dead_small_blind = last_bb not in self.players or last_bb in self.newcomers
        return (self.strictly_between(seat, button, last_bb)
                or (seat == last_bb and dead_small_blind))

    def strictly_between(self, seat: int, after: int, before: int) -> bool:
        """Whether ``seat`` lies clockwise after ``after`` and before ``before``."""
        order = self.clockwise(after)
        return order.index(seat) < order.index(before) and seat != after


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
            target.newcomers.add(to)
            target.receives = True
            result.moves.append(Move(player, Spot(table=table.name, seat=seat),
                                     Spot(table=target.name, seat=to), "PVB 10(1)", "break",
                                     sits_out))


def _balance(room: list[_Table], profile: BalanceProfile, result: Plan) -> None:
    while len(room) >= 2:
        long = max(room, key=lambda t: (len(t.players), -t.order))
        # (a smaller table that is full takes nobody: tables may differ in size)
        receiving = [t for t in room if t.free_seats()]
        if not receiving:
            return
        short = min(receiving, key=lambda t: (len(t.players), t.order))
        if len(long.players) - len(short.players) < 2:
            return
        seat = short.seat_for_newcomer()
        if profile == "apsa-2010":
            source, rule = long.player_due_in(1), "APSA 3.1.2.4"
        else:
            source, rule = long.player_due_in(short.hands_to_big_blind(seat)), "PVB 09(1)"
        sits_out = short.between_button_and_small_blind(seat)
        player = long.players.pop(source)
        short.players[seat] = player
        short.newcomers.add(seat)
        short.receives = True
        result.moves.append(Move(player, Spot(table=long.name, seat=source),
                                 Spot(table=short.name, seat=seat), rule, "balance", sits_out))


__all__ = ["PROFILES", "BalanceProfile", "Break", "Hold", "Move", "Plan", "RandomSource",
           "Spot", "TableSeating", "plan"]
