"""Registration and the seat draw (PVB 08a, 13; RULES T6; DFO §2(2)), pure.

- A player registers under a name the tables will show (PVB 13: players identify themselves at
  their seats); two players may not share a name, whatever the case of its letters.
- The draw seats everyone at once over the fewest tables that hold them, those that break last
  first, the numbers at the tables differing by one at most. Players of one club are spread
  over the tables as evenly as the numbers allow (PVB 08a(1)): the largest club first, each of
  its players to the table with the fewest of that club so far (then the one with the most
  seats left, then as drawn); the seats at each table are then drawn at random.
- A late registration (or a re-entry) takes a random free seat at the table with the fewest
  players (ties: the configuration's order).
- The start stack is the structure's for the tournament's table size (RULES T6, DFO §2(2)).

The random source comes in (`balance.RandomSource`): the service draws with a seed it journals,
so a draw can be made again from its seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from controller.errors import RuleViolation
from controller.room.tournament import names
from controller.room.tournament.balance import RandomSource, Spot, TableSeating

NAME_PATTERN = r"^[^\x00-\x1f\x7f]+$"


class Refused(RuleViolation):
    """A tournament command refused, with the reason in the floor's words."""


class Entrant(BaseModel):
    """A player for the draw."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    club: str | None = None


def checked_name(raw: object, what: str = "name") -> str:
    """A player's name as the tables show it: 1 to 40 printable characters (the tables'
    limit), spaces at either end dropped."""
    if not isinstance(raw, str) or not raw.strip():
        fault = ("missing" if raw is None else "empty" if isinstance(raw, str)
                 else f"not text ({type(raw).__name__})")
        raise Refused(f"args.{what}: {fault}; give the player's name, as the tables will show "
                      "it", "PVB 13")
    unseen = names.invisible(raw)  # (zero-width spaces, controls: names.py)
    if unseen:
        raise Refused(f"args.{what}: a name with characters nobody sees ({', '.join(unseen[:3])})"
                      ": the tables could not tell it apart", "PVB 13")
    name = names.normalised(raw)
    if not name or len(name) > 40:
        raise Refused(f"args.{what}: a name is 1 to 40 printable characters", "PVB 13")
    return name


def checked_club(raw: object) -> str | None:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or len(raw.strip()) > 60 or any(ord(c) < 32 for c in raw):
        raise Refused("args.club: the player's club, up to 60 printable characters",
                      "PVB 08a(1)")
    return raw.strip()


def table_sizes(players: int, tables: Sequence[TableSeating]) -> dict[str, int]:
    """How many players each table takes at the draw: the fewest tables that seat everyone (in
    the order given: those that break last first), as evenly as can be."""
    if players <= 0:
        return {}
    capacity = 0
    used: list[TableSeating] = []
    for table in tables:
        used.append(table)
        capacity += table.seats
        if capacity >= players:
            break
    if capacity < players:
        raise Refused(f"{players} players and {capacity} seats in the room: add tables to "
                      "the configuration", "PVB 08a(1)")
    sizes = {t.table: 0 for t in used}
    for _ in range(players):  # one at a time to the table with the fewest, as balancing counts
        table = min((t for t in used if sizes[t.table] < t.seats),
                    key=lambda t: (sizes[t.table], used.index(t)))
        sizes[table.table] += 1
    return sizes


def draw(entrants: Sequence[Entrant], tables: Sequence[TableSeating],
         rng: RandomSource) -> dict[str, Spot]:
    """Everyone's seat (PVB 08a(1)). ``tables``: the room's tables, those to fill first first
    (empty; their ``seats`` are what count)."""
    names = [e.name for e in entrants]
    if len({n.casefold() for n in names}) != len(names):
        raise Refused("a name is registered twice", "PVB 13")
    sizes = table_sizes(len(entrants), tables)
    order = list(sizes)
    left = dict(sizes)
    at: dict[str, list[Entrant]] = {t: [] for t in order}
    clubs: dict[str, list[Entrant]] = {}
    loners: list[Entrant] = []
    for entrant in entrants:
        if entrant.club:
            clubs.setdefault(entrant.club.casefold(), []).append(entrant)
        else:
            loners.append(entrant)
    club_order = list(clubs)
    rng.shuffle(club_order)  # clubs of one size: in the order drawn
    club_order.sort(key=lambda c: -len(clubs[c]))
    for club in club_order:
        members = list(clubs[club])
        rng.shuffle(members)
        tie = list(order)
        rng.shuffle(tie)
        for member in members:
            table = min((t for t in order if left[t] > 0),
                        key=lambda t: (sum(1 for e in at[t] if e.club and
                                           e.club.casefold() == club), -left[t], tie.index(t)))
            at[table].append(member)
            left[table] -= 1
    rng.shuffle(loners)
    for table in order:
        while left[table] > 0:
            at[table].append(loners.pop())
            left[table] -= 1
    seats_of = {t.table: t.seats for t in tables}
    spots: dict[str, Spot] = {}
    for table in order:
        seats = list(range(1, seats_of[table] + 1))
        rng.shuffle(seats)
        for entrant, seat in zip(at[table], seats, strict=False):
            spots[entrant.name] = Spot(table=table, seat=seat)
    return spots


def late_seat(tables: Sequence[TableSeating], rng: RandomSource) -> Spot:
    """A late player's (or a re-entry's) seat: a random free seat at the table with the fewest
    players (ties: the order given)."""
    open_tables = [t for t in tables if t.empty() > 0]
    if not open_tables:
        raise Refused("every seat in the room is taken", "PVB 08a(1)")
    table = min(open_tables, key=lambda t: (len(t.players), tables.index(t)))
    free = [s for s in range(1, table.seats + 1) if s not in table.players]
    rng.shuffle(free)
    return Spot(table=table.table, seat=free[0])


__all__ = ["Entrant", "Refused", "checked_club", "checked_name", "draw", "late_seat",
           "table_sizes"]
