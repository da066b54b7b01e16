"""The waiting lists, one per game and limit (CG "Tischwechsel": a player may put his name on
the list of another limit or game at any time; CG "Must Move": a new player is put on the list),
pure.

- A list keeps the order players signed up in; nothing reorders it (a restart gives it back as
  it was: the store keeps it, and a replay of the journaled commands makes it again).
- The floor calls the first not yet called (to a table, if it names one); a called player who
  has not sat down within the setting's time (default 10 minutes) leaves the list. The CG names
  neither the call nor its time: common practice, the floor's setting (CG "Poker Manager").
- A player sits down from the list once called. Someone not on the list may sit down only
  while nobody waits for that game (a walk-in at an empty list); otherwise he signs up and
  waits his turn.
- Nobody signs up for the game he is playing: changing tables in the same game and limit is a
  table change the floor approves (CG "Tischwechsel"), not a place on the list.
"""

from __future__ import annotations

from controller.room.cash.ledger import CHANGE, FLOOR, MUST_MOVE, Entry, Ledger, Refused, Table


def sign_up(ledger: Ledger, game: str, name: str, initials: str | None, phone: str | None,
            now: float) -> str:
    game = ledger.game(game)
    waiting = ledger.lists[game]
    there = ledger.entry(game, name)
    if there is not None:
        place = _nth(waiting.index(there))
        raise Refused(f"{there.name} is on the {game} list already ({place})", CHANGE)
    seated = ledger.where(name)
    if seated is not None and seated[0].game == game:
        raise Refused(f"{seated[1].name} plays {game} at table {seated[0].table} already: a "
                      "change of table in the same game and limit is the floor's to approve "
                      "(request_change), not a place on the list", CHANGE)
    waiting.append(Entry(name=name, initials=initials, phone=phone, signed=now))
    return ledger.said(now, f"{name} is {_nth(len(waiting) - 1)} on the {game} list")


def remove(ledger: Ledger, game: str, name: str, now: float) -> str:
    game = ledger.game(game)
    entry = _on_list(ledger, game, name)
    ledger.lists[game].remove(entry)
    return ledger.said(now, f"{entry.name} is off the {game} list")


def call(ledger: Ledger, game: str, table: str | None, now: float, seconds: float) -> str:
    """The first on the list not yet called is called (to ``table``: it must have a seat for
    him that no one called before him is promised)."""
    game = ledger.game(game)
    waiting = ledger.lists[game]
    first = next((e for e in waiting if e.called is None), None)
    if first is None:
        called = sum(e.called is not None for e in waiting)
        raise Refused(f"nobody on the {game} list waits to be called" + (
            f" ({called} called already)" if called else " (the list is empty)"), CHANGE)
    if table is not None:
        t = ledger.table(table)
        if t.game != game:
            raise Refused(f"table {t.table} deals {t.game or 'nothing (closed)'}, not {game}",
                          CHANGE)
        held_for_order(ledger, t)
        promised = [e.name for g in ledger.lists.values() for e in g if e.table == t.table]
        if t.open_seats() - len(promised) <= 0:
            raise Refused(f"table {t.table} has no seat left for another call ("
                          f"{t.open_seats()} open" + (f", called to it: {', '.join(promised)}"
                                                      if promised else "") + ")", FLOOR)
    first.called, first.table = now, table
    return ledger.said(now, f"{first.name} is called{f' to table {table}' if table else ''} "
                       f"for {game}: {minutes(seconds)} to sit down")


def take_from_list(ledger: Ledger, table: Table, name: str) -> Entry | None:
    """The list's part of seating ``name`` at ``table`` (open, with a seat): his entry, taken
    off the list; None for a walk-in, allowed only while nobody waits for the game."""
    assert table.game is not None
    game = table.game
    waiting = ledger.lists.setdefault(game, [])
    entry = ledger.entry(game, name)
    if entry is None:
        if waiting:
            raise Refused(f"{len(waiting)} wait on the {game} list (first: {waiting[0].name}): "
                          f"sign {name} up and call in the list's order", CHANGE)
        return None
    if entry.called is None:
        first = next(e for e in waiting if e.called is None)
        if first is entry:
            raise Refused(f"{entry.name} is next on the {game} list, not called yet: call him "
                          "first", CHANGE)
        raise Refused(f"{entry.name} is on the {game} list but not called: the list is called "
                      f"in order (next: {first.name})", CHANGE)
    waiting.remove(entry)
    return entry


def held_for_order(ledger: Ledger, table: Table) -> None:
    """A main table's seats go down its must-move order while there is one: new players start
    at the must-move table (CG "Must Move")."""
    order = ledger.must_move.get(table.table)
    if order:
        feeders = ", ".join(ledger.feeders(table.table))
        raise Refused(f"table {table.table} is a main table: its open seats go down the "
                      f"must-move order ({', '.join(order)}), and a new player starts at the "
                      f"must-move table ({feeders})", MUST_MOVE)


def timed_out(ledger: Ledger, now: float, seconds: float) -> list[str]:
    """Called players who did not sit down within ``seconds`` leave their lists (CG "Poker
    Manager": the CG names no time; they leave rather than go to the end, as most rooms do, so
    that the list stays the order of those who are here)."""
    said = []
    for game, waiting in ledger.lists.items():
        for entry in list(waiting):
            if entry.called is not None and now - entry.called >= seconds:
                waiting.remove(entry)
                said.append(ledger.said(now, f"{entry.name} did not sit down within "
                                        f"{minutes(seconds)} of the call: off the {game} list",
                                        FLOOR))
    return said


def _on_list(ledger: Ledger, game: str, name: str) -> Entry:
    entry = ledger.entry(game, name)
    if entry is None:
        raise Refused(f"{name} is not on the {game} list", CHANGE)
    return entry


def minutes(seconds: float) -> str:
    count = seconds / 60
    return f"{count:g} minute{'' if count == 1 else 's'}"


def _nth(index: int) -> str:
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


__all__ = ["call", "held_for_order", "minutes", "remove", "sign_up", "take_from_list",
           "timed_out"]
