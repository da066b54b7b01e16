"""Who sits where, and who moves when a seat opens, pure: the must-move tables (CG "Must Move")
and the table changes the floor approved (CG "Tischwechsel").

When a seat opens, in this order:

1. At a main table with a must-move order, the seat is offered down the order: the first is
   asked, then the next; the first who says yes moves; if all say no, the first must move
   (CG "Must Move"). While the offer runs, the seat is the order's: nobody else sits there.
2. Otherwise the earliest approved change to that table is made at once (the CG leaves when to
   the floor, CG "Tischwechsel": its approval says "when a seat opens"). Changes come before the
   waiting list: the player plays this game already and the floor said yes (common practice,
   CG "Poker Manager"); but a seat the floor already called a listed player to stays his.
3. Otherwise the seat is the waiting list's: the floor calls the next (`waiting`).

A move opens a seat in turn (the must-move table's, the changing player's old table's), which
goes the same way. A player the floor moves pays no blind to come in (CG "Blinds": one the floor
asks to change tables brings none); one who asked to change in the same game and limit brings
the whole table stake (CG "Tischwechsel", CG "Table Stake"): the table sees that, not this.
Each arrival and departure here is made true at the tables themselves by the service
(at_tables.py: a departure from a table that showed the player is a request to let him go).

The must-move order of a main table holds the players at its must-move tables: those there when
a table becomes must-move in the order they came (the waiting list's) or drawn, as the settings
say (CG "Must Move": "drawn at the start and/or the waiting list's"), then every newcomer at the
end. The draw is a hash of the journaled seed and the names: pure, and the same on a replay.
"""

from __future__ import annotations

import hashlib

from controller.room.cash.at_tables import Leaving
from controller.room.cash.ledger import (
    CHANGE,
    FLOOR,
    MUST_MOVE,
    Change,
    Ledger,
    MustMoveOrder,
    Offer,
    Refused,
    Seated,
    Table,
)
from controller.room.cash.waiting import and_list, called_to
from controller.room.tournament import names

Opened = tuple[str, int | None]  # a table and the number of the seat that opened (if known)


# ---------------------------------------------------------------------------- arriving, leaving


def arrive(ledger: Ledger, table: Table, name: str, seat: int | None) -> Seated:
    ledger.arrivals += 1
    seated = Seated(name=name, seat=seat, arrived=ledger.arrivals)
    table.players.append(seated)
    if table.feeds is not None:  # a newcomer at a must-move table joins the order at its end
        ledger.must_move.setdefault(table.feeds, []).append(name)
    side = ledger.at_tables
    still = next((g for g in side.leaving if g.table == table.table and g.to is None
                  and names.skeleton(g.name) == names.skeleton(name)), None)
    if still is not None:  # seated again where the table still shows him: he never left it
        side.leaving.remove(still)
        side.sat.append(seated.arrived)
    return seated


def depart(ledger: Ledger, table: Table, seated: Seated, now: float,
           ends_play: str | None = None) -> Opened:
    """``seated`` leaves ``table``: out of its must-move order, his change request void; a
    table that showed him at his seat is asked to let him go (at_tables.py). ``ends_play``: the
    game he ends his play at, the floor naming no stake: the one the table shows him with
    between hands is kept for the day (CG "Table Stake"; at_tables.py)."""
    table.players.remove(seated)
    change = ledger.change_of(seated.name)
    if change is not None and change.source == table.table:
        ledger.changes.remove(change)
    if table.feeds is not None:
        _out_of_order(ledger, table.feeds, [seated.name], now)
    side = ledger.at_tables
    if seated.arrived in side.sat:
        side.sat.remove(seated.arrived)
        side.leaving.append(Leaving(name=seated.name, table=table.table,
                                    arrival=seated.arrived, game=ends_play))
    side.brings.pop(seated.arrived, None)
    if seated.arrived in side.moved:
        side.moved.remove(seated.arrived)
    return table.table, seated.seat


def settle(ledger: Ledger, opened: list[Opened], now: float) -> list[str]:
    """What the open seats set going (the module's order), until nothing more moves."""
    said: list[str] = []
    queue = list(opened)
    while True:
        if queue:
            table_id, seat = queue.pop(0)
        else:  # and a seat open that was not just opened: one a newcomer's order now wants
            waiting = next((t.table for t in ledger.tables if _unsettled(ledger, t)), None)
            if waiting is None:
                return said
            table_id, seat = waiting, None
        table = ledger.table(table_id)
        if table.game is None or table.open_seats() <= 0:
            continue
        order = ledger.must_move.get(table_id)
        if order:
            if ledger.offer(table_id) is None:
                ledger.offers.append(Offer(main=table_id, seat=seat, asking=order[0]))
                said.append(ledger.said(now, f"a seat is open at main table {table_id}: "
                                        f"{order[0]}, first in its must-move order, is asked "
                                        "whether to move", MUST_MOVE))
            continue
        change = next((c for c in ledger.changes if c.approved and c.to == table_id), None)
        if change is not None and table.open_seats() > promised(ledger, table_id):
            ledger.changes.remove(change)
            source = ledger.table(change.source)
            queue.append(_move(ledger, change.player, source, table, seat, now))
            said.append(ledger.said(now, f"{change.player} changes from table {source.table} "
                                    f"to table {table_id}, as the floor approved, bringing "
                                    "the whole table stake", CHANGE))


def _unsettled(ledger: Ledger, table: Table) -> bool:
    """A seat open at ``table`` that its must-move order (no offer yet) or an approved change
    wants."""
    if table.game is None or table.open_seats() <= 0:
        return False
    if ledger.must_move.get(table.table):
        return ledger.offer(table.table) is None
    return table.open_seats() > promised(ledger, table.table) and any(
        c.approved and c.to == table.table for c in ledger.changes)


def promised(ledger: Ledger, table: str) -> int:
    """Seats at ``table`` the floor called players from a list to: an approved change does
    not take one from under a player on his way (CG "Poker Manager": the floor's call came
    first)."""
    return sum(e.called is not None and e.table == table
               for entries in ledger.lists.values() for e in entries)


def _move(ledger: Ledger, name: str, source: Table, to: Table, seat: int | None,
          now: float) -> Opened:
    found = next(p for p in source.players if names.skeleton(p.name) == names.skeleton(name))
    side = ledger.at_tables
    pending = side.brings.get(found.arrived)  # (a seat asked for that he never reached)
    opened = depart(ledger, source, found, now)
    free = to.free_seat_numbers()
    moved = arrive(ledger, to, found.name, seat if seat in free else None)
    leaving = side.leaving[-1] if side.leaving else None
    if leaving is not None and leaving.arrival == found.arrived:
        leaving.to = moved.arrived  # he brings what his old table shows him with (`carries`)
        side.moved.append(moved.arrived)  # ... and the table is told he was moved (CG Blinds)
    elif pending is not None:
        side.brings[moved.arrived] = pending
    return opened


# ---------------------------------------------------------------------------- must move


def designate(ledger: Ledger, table: str, main: str, order_by: MustMoveOrder, seed: int | None,
              now: float) -> list[str]:
    """``table`` becomes a must-move table feeding ``main`` (CG "Must Move")."""
    t, m = _open(ledger, table), _open(ledger, main)
    if t is m:
        raise Refused(f"table {table} cannot feed itself: name the main table it protects",
                      MUST_MOVE)
    if t.game != m.game:
        raise Refused(f"a must-move table feeds a main table of its own game and limit: table "
                      f"{table} deals {t.game}, table {main} {m.game}", MUST_MOVE)
    if t.feeds is not None:
        raise Refused(f"table {table} is a must-move table for table {t.feeds} already",
                      MUST_MOVE)
    # One level only (the CG speaks of a main table and its must-move tables; chains of them
    # are no room's practice we know): CG "Poker Manager".
    if m.feeds is not None:
        raise Refused(f"table {main} is itself a must-move table (for table {m.feeds}): a "
                      "must-move table feeds a main table", FLOOR)
    if ledger.feeders(table):
        raise Refused(f"table {table} is a main table (fed by {', '.join(ledger.feeders(table))})"
                      ": it cannot be a must-move table too", FLOOR)
    if order_by == "draw" and seed is None:
        raise Refused("the must-move order is drawn (the settings' must_move_order): the draw "
                      "needs a seed (args.seed; the service gives one)", MUST_MOVE)
    players = sorted(t.players, key=lambda p: p.arrived)
    if order_by == "draw":
        players.sort(key=lambda p: _drawn(seed or 0, p.name))
    t.feeds = main
    for change in [c for c in ledger.changes if c.to == main]:  # the main table's seats now
        ledger.changes.remove(change)                            # go down its order
        ledger.said(now, f"{change.player}'s change to table {main} is off: it is a main "
                    "table now, its seats go down the must-move order", MUST_MOVE)
    for entry in called_to(ledger, main):  # its seats are the order's now, not the list's:
        entry.table = None  # still called (a promise kept), for another table of the game
    order = ledger.must_move.setdefault(main, [])
    order += [p.name for p in players]
    how = "drawn" if order_by == "draw" else "in the order they came"
    said = [ledger.said(now, f"table {table} is a must-move table for main table {main}; the "
                        f"order ({how}): {', '.join(order) or 'nobody yet'}", MUST_MOVE)]
    return said + settle(ledger, [(main, None)], now)


def undesignate(ledger: Ledger, table: str, now: float) -> list[str]:
    t = ledger.table(table)
    if t.feeds is None:
        raise Refused(f"table {table} is no must-move table", MUST_MOVE)
    main = t.feeds
    t.feeds = None
    said = [ledger.said(now, f"table {table} is no longer a must-move table for table {main}",
                        MUST_MOVE)]
    said += _out_of_order(ledger, main, [p.name for p in t.players], now)
    return said + settle(ledger, [(main, None)], now)


def answer(ledger: Ledger, main: str, name: str, accept: bool, now: float) -> list[str]:
    """The player asked for a main table's open seat says yes or no (CG "Must Move")."""
    offer = ledger.offer(main)
    if offer is None:
        raise Refused(f"no seat of table {main} is being offered down a must-move order",
                      MUST_MOVE)
    if names.skeleton(name) != names.skeleton(offer.asking):
        raise Refused(f"table {main}'s seat is offered to {offer.asking} now: the order is asked "
                      "one by one", MUST_MOVE)
    if accept:
        return _take_offer(ledger, offer, offer.asking, now, f"{offer.asking} says yes")
    offer.declined.append(offer.asking)
    return _next_asked(ledger, offer, now, [ledger.said(now, f"{offer.asking} stays at the "
                                                        "must-move table", MUST_MOVE)])


def _next_asked(ledger: Ledger, offer: Offer, now: float, said: list[str]) -> list[str]:
    order = ledger.must_move.get(offer.main, [])
    if not order:  # nobody left to ask: the seat is the waiting list's
        ledger.offers.remove(offer)
        return said
    declined = {names.skeleton(n) for n in offer.declined}
    following = next((n for n in order if names.skeleton(n) not in declined), None)
    if following is None:
        return said + _take_offer(ledger, offer, order[0], now, "everyone in the must-move "
                                  f"order said no: {order[0]}, the first, must move")
    offer.asking = following
    return [*said, ledger.said(now, f"{following} is asked next for the seat at table "
                               f"{offer.main}", MUST_MOVE)]


def _take_offer(ledger: Ledger, offer: Offer, name: str, now: float, why: str) -> list[str]:
    ledger.offers.remove(offer)
    main = ledger.table(offer.main)
    source = next(ledger.table(f) for f in ledger.feeders(offer.main)
                  if any(names.skeleton(p.name) == names.skeleton(name)
                         for p in ledger.table(f).players))
    opened = _move(ledger, name, source, main, offer.seat, now)
    said = [ledger.said(now, f"{why}: {name} moves from table {source.table} to main table "
                        f"{main.table} (no blind to bring: moved by the floor)", MUST_MOVE)]
    return said + settle(ledger, [opened, (main.table, None)], now)


def _out_of_order(ledger: Ledger, main: str, gone: list[str], now: float) -> list[str]:
    """``gone`` leave ``main``'s must-move order (they left their table, or it stopped feeding),
    all at once: an offer asking one of them goes on to the next who stays."""
    wanted = {names.skeleton(n) for n in gone}
    order = [n for n in ledger.must_move.get(main, []) if names.skeleton(n) not in wanted]
    if order:
        ledger.must_move[main] = order
    else:
        ledger.must_move.pop(main, None)
    offer = ledger.offer(main)
    if offer is None:
        return []
    offer.declined = [n for n in offer.declined if names.skeleton(n) not in wanted]
    if names.skeleton(offer.asking) in wanted:
        return _next_asked(ledger, offer, now, [])
    return []


def _drawn(seed: int, name: str) -> bytes:
    return hashlib.sha256(f"{seed}:{names.skeleton(name)}".encode()).digest()


# ---------------------------------------------------------------------------- table changes


def request_change(ledger: Ledger, name: str, table: str, now: float) -> list[str]:
    seated = ledger.where(name)
    if seated is None:
        raise Refused(f"{name} sits at no table: a player who is not playing signs up for the "
                      "game's waiting list", CHANGE)
    source, player = seated
    to = ledger.table(table)
    if to is source:
        raise Refused(f"{player.name} sits at table {table} already", CHANGE)
    if to.game is None:
        raise Refused(f"table {table} is closed", FLOOR)
    if to.game != source.game:
        raise Refused(f"table {table} deals {to.game}, {player.name}'s table {source.game}: for "
                      "another game or limit he signs up for its waiting list", CHANGE)
    if ledger.feeders(table):
        raise Refused(f"table {table} is a main table: its seats go down the must-move order of "
                      f"table(s) {', '.join(ledger.feeders(table))}", MUST_MOVE)
    asked = ledger.change_of(player.name)
    if asked is not None:
        raise Refused(f"{player.name} asked for table {asked.to} already (cancel_change first)",
                      CHANGE)
    ledger.changes.append(Change(player=player.name, source=source.table, to=table, asked=now))
    return [ledger.said(now, f"{player.name} asks to change from table {source.table} to table "
                        f"{table}: the floor decides whether and when", CHANGE)]


def approve_change(ledger: Ledger, name: str, now: float) -> list[str]:
    change = _change(ledger, name)
    if change.approved:
        raise Refused(f"{change.player}'s change to table {change.to} is approved already",
                      CHANGE)
    change.approved = True
    said = [ledger.said(now, f"the floor approves {change.player}'s change to table "
                        f"{change.to}: the move is made when a seat opens there", CHANGE)]
    return said + settle(ledger, [(change.to, None)], now)


def cancel_change(ledger: Ledger, name: str, now: float) -> list[str]:
    change = _change(ledger, name)
    ledger.changes.remove(change)
    return [ledger.said(now, f"{change.player}'s change to table {change.to} is off", CHANGE)]


def _change(ledger: Ledger, name: str) -> Change:
    change = ledger.change_of(name)
    if change is None:
        raise Refused(f"{name} has asked for no table change", CHANGE)
    return change


# ---------------------------------------------------------------------------- opening, closing


def open_table(ledger: Ledger, table: str, game: str, now: float) -> list[str]:
    t = ledger.table(table)
    game = ledger.game(game)
    if t.game is not None:
        raise Refused(f"table {table} is open already, dealing {t.game}", FLOOR)
    t.game = game
    waiting = len(ledger.lists[game])
    return [ledger.said(now, f"table {table} opens with {game} ({t.seats} seats; {waiting} on "
                        "its list)")]


def close_table(ledger: Ledger, table: str, now: float) -> list[str]:
    t = ledger.table(table)
    if t.game is None:
        raise Refused(f"table {table} is closed already", FLOOR)
    if t.players:
        there = [p.name for p in t.players]
        who = (f"{there[0]} still sits at table {table}: the table closes once {there[0]} has"
               if len(there) == 1 else f"{and_list(there)} still sit at table {table}: the "
               "table closes once they have")
        raise Refused(f"{who} left or moved", FLOOR)
    feeders = ledger.feeders(table)
    if feeders:
        raise Refused(f"table {table} is the main table of must-move table(s) "
                      f"{', '.join(feeders)}: end_must_move first", MUST_MOVE)
    t.game, t.feeds = None, None
    said = [ledger.said(now, f"table {table} is closed")]
    for change in [c for c in ledger.changes if c.to == table]:
        ledger.changes.remove(change)
        said.append(ledger.said(now, f"{change.player}'s change to table {table} is off: the "
                                "table closed", CHANGE))
    for entry in called_to(ledger, table):
        entry.table = None  # still called: for another table of the game (waiting.py
        # keep_promises: a promise the closed seats no longer cover stands)
    return said


def _open(ledger: Ledger, table: str) -> Table:
    t = ledger.table(table)
    if t.game is None:
        raise Refused(f"table {table} is closed", FLOOR)
    return t


__all__ = ["Opened", "answer", "approve_change", "arrive", "cancel_change", "close_table",
           "depart", "designate", "open_table", "promised", "request_change", "settle",
           "undesignate"]
