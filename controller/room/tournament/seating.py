"""Where everyone sits, as the tables show it, and the moves the tournament asked for (pure).

The tables' retained states are the truth of who sits where. A move goes through them: the old
table shows the seat empty (``leaving`` -> ``arriving``), the new one shows the player
(``seated``), and his chips read at the new seat end it (``done``). `wanted` is every request
the tables still need for that, and for the holds of PVB 09(3) and closing broken tables;
`seating` is the room as balancing must see it, each player counted where he is going.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.room.tournament.balance import Spot, TableSeating
from controller.room.tournament.ledger import Ledger, Move, Settings
from controller.session.outputs import TableState

DONE_KEPT = 100  # moves finished (done, cancelled, superseded) that the floor still sees
FINISHED = ("done", "cancelled", "superseded")
HOLD_EMPTY = 3  # PVB 09(3): a table with this many empty seats or more stops for its newcomers


@dataclass(frozen=True)
class Ask:
    """A command the tournament wants a table to carry out (``table/<id>/cmd/<command>``)."""

    table: str
    command: str
    args: dict[str, Any]
    key: str  # the same key is the same request, sent again


@dataclass
class TableSeen:
    online: bool = False
    state: TableState | None = None
    counted: tuple[Any, ...] | None = None  # the end of hand the chip count took last


def between_hands(state: TableState | None) -> bool:
    return state is not None and state.stage in ("waiting", "over")


def filling_order(settings: Settings) -> list[TableSeating]:
    """The tables in the order they are filled (at the draw, and when late entries need one
    more): those that never break, then those that break last."""
    breaking = settings.order_of_breaking()
    never = [t.table for t in settings.tables if t.table not in breaking]
    return [empty_table(settings, t) for t in never + list(reversed(breaking))]


def empty_table(settings: Settings, table: str) -> TableSeating:
    return TableSeating(table=table, seats=settings.seats_of(table))


def seating(settings: Settings, ledger: Ledger, tables: dict[str, TableSeen]
            ) -> list[TableSeating]:
    """The open tables in the configuration's order, as their states show them, with each
    player on the way counted at the seat they are going to."""
    going = {m.player: m for m in ledger.moves if m.status in ("leaving", "arriving")}
    out = []
    for name in ledger.open_tables:
        seen = tables.get(name)
        state = seen.state if seen else None
        if state is not None:
            players = {s: v.player for s, v in state.seats.items() if v.player not in going}
        elif name in ledger.gone:  # gone on without: its players where it last saw them
            players = {p.spot.seat: p.name for p in ledger.players.values()
                       if not p.out and p.spot is not None and p.spot.table == name
                       and p.name not in going}
        else:  # (not heard yet: the core decides nothing before it is, `waiting_for`)
            players = {}
        for move in going.values():
            if move.to.table == name and move.to.seat not in players:
                players[move.to.seat] = move.player
        out.append(TableSeating(
            table=name, seats=settings.seats_of(name),
            button=state.button if state else None, small_blind=state.sb if state else None,
            big_blind=state.bb if state else None, players=players,
            # Players on their way here have not played a hand at this table yet: a newcomer
            # between the button and the small blind sits out a hand (PVB 10(1)).
            newcomers=frozenset(m.to.seat for m in going.values() if m.to.table == name)))
    return out


def where(tables: dict[str, TableSeen], player: str) -> Spot | None:
    for name, seen in tables.items():
        if seen.state is None:
            continue
        for seat, view in seen.state.seats.items():
            if view.player == player:
                return Spot(table=name, seat=seat)
    return None


def follow_moves(settings: Settings, ledger: Ledger, tables: dict[str, TableSeen],
                 news: set[str] | None = None) -> bool:
    """Each move as far as the tables' states carry it (``news``: only the tables whose state
    changed can have carried one); True if any changed."""
    changed = False
    for move in list(ledger.moves):
        if move.status in FINISHED or (
                news is not None and move.to.table not in news
                and (move.source is None or move.source.table not in news)):
            continue
        if move.status == "leaving":
            changed |= _leaving(ledger, tables, move)
        if move.status == "arriving":
            changed |= _arriving(settings, ledger, tables, move)
        if move.status == "seated":
            changed |= _seated(tables, move)
    done = [m for m in ledger.moves if m.status in FINISHED]
    if len(done) > DONE_KEPT:
        for move in done[:-DONE_KEPT]:
            ledger.moves.remove(move)
        changed = True
    return changed


def _leaving(ledger: Ledger, tables: dict[str, TableSeen], move: Move) -> bool:
    assert move.source is not None
    seen = tables.get(move.source.table)
    state = seen.state if seen else None
    if state is None:
        return False
    view = state.seats.get(move.source.seat)
    played_on = move.source_hand is not None and state.hand > move.source_hand
    if view is not None and view.player == move.player:
        if not between_hands(state):
            return False
        if played_on and move.reason == "balance":
            ledger.moves.remove(move)  # he played another hand there: decided again (PVB 09)
            return True
        if view.stack != move.stack:
            move.stack = view.stack  # what he takes with him
            return True
        return False
    elsewhere = where(tables, move.player)
    if elsewhere is not None and elsewhere.table == move.to.table:
        ledger.chips.left(move.source.table, move.stack)
        ledger.chips.arrived(move.to.table, move.stack)
        move.to, move.status = elsewhere, "seated"
        _superseded(ledger, move)
        return True
    if played_on or elsewhere is not None:
        # Gone after another hand there (out: the elimination says so), or seated elsewhere by
        # the floor: this move is no more.
        ledger.moves.remove(move)
        return True
    ledger.chips.left(move.source.table, move.stack)
    move.status = "arriving"
    _superseded(ledger, move)
    return True


def _superseded(ledger: Ledger, move: Move) -> None:
    """He left his seat for ``move``: an older move of his still waiting for his chips at that
    seat is over (they are counted at the new one, for this move)."""
    for older in ledger.moves:
        if older.player == move.player and older.id < move.id and older.status == "seated":
            older.status = "superseded"


def _arriving(settings: Settings, ledger: Ledger, tables: dict[str, TableSeen],
              move: Move) -> bool:
    seen = tables.get(move.to.table)
    state = seen.state if seen else None
    if state is None:
        return False
    at = {v.player: s for s, v in state.seats.items()}
    if move.player in at:
        move.to = Spot(table=move.to.table, seat=at[move.player])
        move.status = "seated"
        ledger.chips.arrived(move.to.table, move.stack)
        return True
    if move.to.seat not in state.seats:
        return False
    # Someone else took the seat (the floor): the next free seat its big blind reaches.
    capacity = settings.seats_of(move.to.table)
    promised = {m.to.seat for m in ledger.moves if m is not move and m.to.table == move.to.table
                and m.status in ("leaving", "arriving")}
    free = [s for s in range(1, capacity + 1) if s not in state.seats and s not in promised]
    if not free:
        return False
    last = state.bb or capacity
    move.to = Spot(table=move.to.table, seat=min(free, key=lambda s: (s - last - 1) % capacity))
    return True


def _seated(tables: dict[str, TableSeen], move: Move) -> bool:
    seen = tables.get(move.to.table)
    state = seen.state if seen else None
    if state is None:
        return False
    view = state.seats.get(move.to.seat)
    if view is not None and view.player == move.player and view.counted:
        move.status = "done"  # his chips were read at the new seat
        return True
    return False


def follow_players(ledger: Ledger, tables: dict[str, TableSeen],
                   news: set[str] | None = None) -> bool:
    """Every player's seat and, between hands, his stack, as the tables show them (``news``:
    only those tables)."""
    changed = False
    # Players a table still shows though they left it for another (a table broken while it
    # was gone, back after all: `wanted` unseats them): it is not where they are
    latest = {m.player: m for m in ledger.moves if m.status not in ("cancelled", "superseded")}
    left = {(m.source.table, p) for p, m in latest.items() if m.source is not None
            and m.status in ("arriving", "seated", "done") and m.source.table != m.to.table}
    for name, seen in sorted(tables.items()):
        state = seen.state
        if state is None or (news is not None and name not in news):
            continue
        for seat, view in state.seats.items():
            player = ledger.players.get(view.player)
            if player is None or player.out or (name, view.player) in left:
                continue
            if player.spot is None or (player.spot.table, player.spot.seat) != (name, seat):
                player.spot = Spot(table=name, seat=seat)
                changed = True
            if between_hands(state) and player.stack != view.stack:
                player.stack = view.stack
                changed = True
    return changed


def strangers(ledger: Ledger, tables: dict[str, TableSeen], news: set[str] | None = None
              ) -> list[tuple[str, int, str]]:
    """Players the tables show who are not in the tournament (or are out)."""
    out = []
    for name, seen in sorted(tables.items()):
        if seen.state is None or (news is not None and name not in news):
            continue
        for seat, view in sorted(seen.state.seats.items()):
            player = ledger.players.get(view.player)
            if player is None or player.out:
                out.append((name, seat, view.player))
    return out


def wanted(settings: Settings, ledger: Ledger, tables: dict[str, TableSeen]) -> list[Ask]:
    """Every request the tables still need: players to leave their seats (between hands) and
    to sit down, the holds of PVB 09(3) and their release, and broken tables closed."""
    asks: list[Ask] = []
    coming_to: dict[str, int] = {}
    for move in ledger.moves:
        if move.status in ("leaving", "arriving"):
            coming_to[move.to.table] = coming_to.get(move.to.table, 0) + 1
    for name, seen in sorted(tables.items()):
        state = seen.state
        if state is None:
            continue
        coming = coming_to.get(name, 0)
        empty = settings.seats_of(name) - len(state.seats)
        hold = bool(coming) and empty >= HOLD_EMPTY
        if hold and "seating" not in state.holds:
            asks.append(Ask(name, "hold", {
                "kind": "seating", "reason": f"seating: {coming} player(s) on their way "
                f"and {empty} seats free (PVB 09(3))"}, "seating:on"))
        elif not hold and "seating" in state.holds:
            asks.append(Ask(name, "release", {"kind": "seating"}, "seating:off"))
        if name in ledger.broken and name not in ledger.closed and not state.seats:
            asks.append(Ask(name, "close", {"reason": "the table is broken (PVB 10)"}, "close"))
    # (after the holds: a table that is to wait for its newcomers holds before the first sits)
    for move in ledger.moves:
        if (move.reason == "break" and move.status not in ("leaving", "cancelled")
                and move.source is not None and move.source.table in ledger.broken):
            # A table broken while it was gone (`break_table`) that came back after all still
            # shows him: he sits elsewhere now, and it is told so (then, empty, to close)
            back = tables.get(move.source.table)
            view = back.state.seats.get(move.source.seat) if back and back.state else None
            if view is not None and view.player == move.player:
                asks.append(_unseat(move, ": the table was broken while it was gone (RULES T3)"))
        if move.status == "leaving" and move.source is not None:
            asks.append(_unseat(move, f" ({move.rule})"))
        elif move.status == "arriving":
            asks.append(Ask(move.to.table, "seat", {
                "seat": move.to.seat, "player": move.player, "stack": move.stack},
                f"seat:{move.id}"))
    return asks


def _unseat(move: Move, why: str) -> Ask:
    """His old table is asked to let him go: the reason says where he goes (then ``why``)."""
    assert move.source is not None
    return Ask(move.source.table, "unseat", {
        "seat": move.source.seat, "player": move.player,
        "reason": f"table {move.to.table}, seat {move.to.seat}{why}"}, f"unseat:{move.id}")


__all__ = ["DONE_KEPT", "FINISHED", "HOLD_EMPTY", "Ask", "TableSeen", "between_hands",
           "empty_table", "filling_order", "follow_moves", "follow_players", "seating",
           "strangers", "wanted", "where"]
