"""The waiting lists, one per game and limit (CG "Tischwechsel": a player may put his name on
the list of another limit or game at any time; CG "Must Move": a new player is put on the list),
pure.

- A list keeps the order players signed up in; nothing reorders it (a restart gives it back as
  it was: the store keeps it, and a replay of the journaled commands makes it again).
- The floor calls the first not yet called (to a table, if it names one), promising him a seat;
  a called player who has not sat down within the time he was told at the call (the setting's
  then, default 10 minutes) leaves the list. The CG names neither the call nor its time:
  common practice, the floor's setting (CG "Poker Manager").
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
    him that no one called before him is promised), with ``seconds`` to sit down: what he is
    told is kept with the call (`Entry.until`), whatever the setting says later.

    A call is a promise of a seat (CG "Poker Manager": the CG names no call, so the floor's
    promise is ours to keep): the calls to a table never outnumber its open seats, and all the
    calls of a game never its open seats (`list_seats`), those to any table of it included."""
    game = ledger.game(game)
    waiting = ledger.lists[game]
    first = next((e for e in waiting if e.called is None), None)
    if first is None:
        called = sum(e.called is not None for e in waiting)
        raise Refused(f"nobody on the {game} list waits to be called" + (
            f" ({called} called already)" if called else " (the list is empty)"), CHANGE)
    where = ""
    if table is not None:
        t = ledger.table(table)
        if t.game != game:
            raise Refused(f"table {t.table} deals {t.game or 'nothing (closed)'}, not {game}",
                          CHANGE)
        held_for_order(ledger, t)
        promised = [e.name for e in called_to(ledger, t.table)]
        if t.open_seats() - len(promised) <= 0:
            raise Refused(f"table {t.table} has no seat left for another call ("
                          f"{t.open_seats()} open" + (f", called to it: {', '.join(promised)}"
                                                      if promised else "") + ")", FLOOR)
        where = f"table {t.table} has a seat, but "
    promises = [e.name for e in waiting if e.called is not None]
    seats = list_seats(ledger, game)
    if len(promises) >= seats:
        raise Refused(f"{where}{game} has no seat left for another call ({seats} open" + (
            f", called: {', '.join(promises)}" if promises else "") + ")", FLOOR)
    first.called, first.table, first.until = now, table, now + seconds
    return ledger.said(now, f"{first.name} is called{f' to table {table}' if table else ''} "
                       f"for {game}: {minutes(seconds)} to sit down")


def called_to(ledger: Ledger, table: str) -> list[Entry]:
    """The players called to ``table`` who have not sat down yet: its seats promised."""
    return [e for entries in ledger.lists.values() for e in entries
            if e.called is not None and e.table == table]


def list_seats(ledger: Ledger, game: str) -> int:
    """The seats open at ``game``'s tables that are the list's: not a main table's while it has
    a must-move order (they go down the order, CG "Must Move"; the seat a move frees at the
    must-move table is the list's then)."""
    return sum(t.open_seats() for t in ledger.tables
               if t.game == game and not ledger.must_move.get(t.table))


def keep_promises(ledger: Ledger, table: Table, name: str, entry: Entry | None) -> None:
    """``name`` (``entry``: his call, taken off the list already; None: a walk-in) sits down at
    ``table`` only on a seat nobody else called to it was promised: one called to it himself
    sits down whatever (his seat is one of them).

    Seats open and close between the call and the seat: a player leaving gives the floor one
    more seat to promise. A seat closes under the promises only where the floor closed the
    table or made it a main table (its callers are called to any table of the game then) or
    the dealer seated someone the cash floor does not know (the ledger still counts the seat
    open: the table is asked for the seat when it is free). The floor expects its promises
    kept as they were made: nobody loses his call for it (he is seated when a seat opens, or
    his time runs out), and no new call is made until the seats cover the promises again."""
    if entry is not None and entry.table == table.table:
        return
    others = [e.name for e in called_to(ledger, table.table)]
    if table.open_seats() > len(others):
        return
    open_seats = table.open_seats()
    seats = "1 open seat is" if open_seats == 1 else f"{open_seats} open seats are"
    assert table.game is not None
    raise Refused(f"table {table.table}'s {seats} promised to {and_list(others)}, called to "
                  f"it: {name} sits down at another {table.game} table, or here once another "
                  "seat opens", FLOOR)


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


def timed_out(ledger: Ledger, now: float) -> list[str]:
    """Called players who did not sit down within the time they were told at the call leave
    their lists (CG "Poker Manager": the CG names no time; they leave rather than go to the
    end, as most rooms do, so that the list stays the order of those who are here)."""
    said = []
    for game, waiting in ledger.lists.items():
        for entry in list(waiting):
            if run_out(entry, now):
                assert entry.called is not None and entry.until is not None
                waiting.remove(entry)
                said.append(ledger.said(now, f"{entry.name} did not sit down within "
                                        f"{minutes(entry.until - entry.called)} of the call: "
                                        f"off the {game} list", FLOOR))
    return said


def run_out(entry: Entry, now: float) -> bool:
    """Whether ``entry``'s call has run out at ``now``."""
    return entry.called is not None and entry.until is not None and now >= entry.until


def _on_list(ledger: Ledger, game: str, name: str) -> Entry:
    entry = ledger.entry(game, name)
    if entry is None:
        raise Refused(f"{name} is not on the {game} list", CHANGE)
    return entry


def minutes(seconds: float) -> str:
    """``seconds`` as the floor says it: "1 minute", "10 minutes", "0.5 minutes"."""
    count = round(seconds / 60, 2)  # (a deadline less the call's time: no float noise)
    return f"{count:g} minute{'' if count == 1 else 's'}"


def and_list(items: list[str]) -> str:
    """"Anna", "Anna and Ben", "Anna, Ben and Cleo"."""
    return " and ".join(filter(None, [", ".join(items[:-1]), *items[-1:]]))


def _nth(index: int) -> str:
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


__all__ = ["and_list", "call", "called_to", "held_for_order", "keep_promises", "list_seats",
           "minutes", "remove", "run_out", "sign_up", "take_from_list", "timed_out"]
