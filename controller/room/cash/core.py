"""Everything the cash floor decides, pure: the floor's commands on the waiting lists, the
tables, the must-move orders and the table changes, and time passing (`tick`). Time comes in
with each command (``now``); a draw's randomness comes in as a journaled seed. So the ledger is
a function of the commands carried out: `replay` of the journal makes it again, the lists in
the same order (tests/room/cash/test_cash_replay.py).

A refused command changes nothing: each works on a copy of the ledger, kept only when it went
through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.room.cash import seating, waiting
from controller.room.cash.at_tables import (
    Ask,
    Observed,
    Seating,
    between_hands,
    carried,
    needs_stack,
    observed,
    shown,
    wanted,
)
from controller.room.cash.commands import (
    AnswerArgs,
    ApproveChangeArgs,
    AtTableArgs,
    CallArgs,
    CancelChangeArgs,
    CarriesArgs,
    CloseTableArgs,
    CommandArgs,
    EndMustMoveArgs,
    GoneArgs,
    LeaveArgs,
    LeftSeatArgs,
    MustMoveArgs,
    OpenTableArgs,
    RemoveArgs,
    RequestChangeArgs,
    SeatArgs,
    SignUpArgs,
    TickArgs,
    parse,
)
from controller.room.cash.ledger import (
    CHANGE,
    FLOOR,
    STAKE,
    CashSettings,
    Happening,
    Ledger,
    Refused,
    Seated,
    Table,
)
from controller.room.cash.view import CashContacts, CashState, contacts, published
from controller.room.tournament import names
from controller.session.outputs import TableState

# A journaled command: name, arguments, who, when (the store's rows, as `replay` takes them)
Journaled = tuple[str, dict[str, Any], str | None, float]


def _still_dealt(settings: CashSettings, game: str) -> None:
    """A game taken out of cash.toml keeps its list and tables until they are empty, and takes
    no new player or table (the floor took it out: nobody new should wait for it)."""
    if game not in settings.games:
        raise Refused(f"{game} is no longer in cash.toml's games: it takes nobody new (its "
                      "list and tables stay until they are empty)", FLOOR)


class CashCore:
    def __init__(self, settings: CashSettings, ledger: Ledger | None = None) -> None:
        self.settings = settings
        self.ledger = (ledger or Ledger.new(settings)).brought_up_to(settings)

    def command(self, name: str, args: dict[str, Any], by: str | None, now: float) -> str:
        """Carry out one command; what was done, in the floor's words. Raises `Refused` (with
        the CG section) and changes nothing."""
        parsed = parse(name, args)
        work = self.ledger.model_copy(deep=True)
        before = {id(h) for h in work.recent}
        result = self._apply(work, parsed, now)
        # Whatever the command freed (a call off a seat, a list emptied) may let a waiting
        # change or must-move offer go on: every command ends with the room settled.
        seating.settle(work, [], now)
        side = work.at_tables
        if side.epoch is None and (side.sat or side.brings or side.leaving):
            side.epoch = now  # (the requests' ids begin with it: at_tables.py)
        self.ledger = work
        done = [h.text for h in work.recent if id(h) not in before]
        return "; ".join(done) or result

    def tick(self, now: float) -> bool:
        """Whether time passing changed anything (a called player timed out). The service then
        journals it as the ``tick`` command, so that a replay times out the same players."""
        return any(waiting.run_out(e, now)
                   for waiting_list in self.ledger.lists.values() for e in waiting_list)

    def state(self, tables: Mapping[str, TableState] | None = None) -> CashState:
        """The published state; ``tables``: the tables' latest states (who sits with no
        chips)."""
        broke: set[tuple[str, str]] = set()
        for line in self.ledger.tables:
            table_state = (tables or {}).get(line.table)
            if table_state is None:
                continue
            for player in line.players:
                here = shown(table_state, player.name)
                # All in, he has no chips before him until the pot is pushed: only one out of
                # the hand in play (or any between hands) has none (CG Table Stake).
                if here is not None and here[1].stack == 0 and (
                        between_hands(table_state) or not here[1].in_hand):
                    broke.add((line.table, player.name))
        return published(self.ledger, self.settings, frozenset(broke))

    # ---------------------------------------------------------------- the tables' side

    def observed(self, state: TableState, before: TableState | None = None) -> list[Observed]:
        """The cash floor's own commands a table's published state calls for (none for a
        table that is not the cash floor's); ``before``: its state just before, if known."""
        table = next((t for t in self.ledger.tables if t.table == state.table), None)
        if table is None:
            return []
        return observed(self.ledger.at_tables, _players(table), state, before)

    def wanted(self, states: dict[str, TableState]) -> list[Ask]:
        """Every seat and unseat the tables still need (at_tables.py)."""
        ledger = self.ledger
        tables = [Seating(table=t.table, seats=t.seats, open=t.game is not None,
                          players=_players(t)) for t in ledger.tables]
        destination = {p.arrived: t.table for t in ledger.tables for p in t.players}
        return wanted(ledger.at_tables, tables, states, destination)

    def contacts(self) -> CashContacts:
        return contacts(self.ledger)

    # ---------------------------------------------------------------- the commands

    def _apply(self, ledger: Ledger, args: CommandArgs, now: float) -> str:
        s = self.settings
        match args:
            case SignUpArgs():
                _still_dealt(s, ledger.game(args.game))
                return waiting.sign_up(ledger, args.game, args.name, args.initials, args.phone,
                                       now)
            case RemoveArgs():
                return waiting.remove(ledger, args.game, args.name, now)
            case CallArgs():
                # (the time the service journaled with the call; a call journaled without one,
                # or the tests' core: the setting's)
                seconds = s.call_seconds if args.seconds is None else args.seconds
                return waiting.call(ledger, args.game, args.table, now, seconds)
            case SeatArgs():
                game = ledger.table(args.table).game
                if game is not None:  # CG "Table Stake": not back today with less
                    ledger.comeback_refusal(s, args.name, game, args.stack, now)
                return _seat(ledger, args, now)
            case LeaveArgs():
                there = ledger.where(args.name)
                done = _leave(ledger, args, now)
                if args.stack is not None and there is not None and there[0].game is not None:
                    ledger.ended_play(s, there[1].name, there[0].game, args.stack, now)
                return done
            case OpenTableArgs():
                _still_dealt(s, ledger.game(args.game))
                if all(spec.table != args.table for spec in s.tables):
                    ledger.table(args.table)  # (says first when there is no such table)
                    raise Refused(f"table {args.table} is no longer in cash.toml's tables: it "
                                  "opens no more (it goes at the first start once it is empty)",
                                  FLOOR)
                return _joined(seating.open_table(ledger, args.table, args.game, now))
            case CloseTableArgs():
                return _joined(seating.close_table(ledger, args.table, now))
            case MustMoveArgs():
                return _joined(seating.designate(ledger, args.table, args.main,
                                                 s.must_move_order, args.seed, now))
            case EndMustMoveArgs():
                return _joined(seating.undesignate(ledger, args.table, now))
            case AnswerArgs():
                return _joined(seating.answer(ledger, args.table, args.name, args.accept, now))
            case RequestChangeArgs():
                return _joined(seating.request_change(ledger, args.name, args.table, now))
            case ApproveChangeArgs():
                return _joined(seating.approve_change(ledger, args.name, now))
            case CancelChangeArgs():
                return _joined(seating.cancel_change(ledger, args.name, now))
            case TickArgs():
                gone = waiting.timed_out(ledger, now)
                if not gone:
                    raise Refused("nobody's call has run out", FLOOR)
                return _joined(gone)
            case AtTableArgs():
                return _at_table(ledger, args, now)
            case LeftSeatArgs():
                there = ledger.where(args.name)
                done = _left_seat(ledger, args, now)
                if args.stack is not None and there is not None and there[0].game is not None:
                    ledger.ended_play(s, there[1].name, there[0].game, args.stack, now)
                return done
            case CarriesArgs():
                return _carries(ledger, args)
            case GoneArgs():
                return _gone(ledger, s, args, now)
        raise Refused(f"{args.command}: not a cash command", FLOOR)  # (every model is above)


def _seat(ledger: Ledger, args: SeatArgs, now: float) -> str:
    table = ledger.table(args.table)
    if table.game is None:
        raise Refused(f"table {table.table} is closed: open it with a game first", FLOOR)
    if table.open_seats() <= 0:
        raise Refused(f"table {table.table} has no seat open ({table.seats} seated)", FLOOR)
    if args.seat is not None and args.seat not in table.free_seat_numbers():
        raise Refused(f"seat {args.seat} at table {table.table} is " + (
            "taken" if args.seat <= table.seats else f"not there ({table.seats} seats)"), FLOOR)
    there = ledger.where(args.name)
    if there is not None and there[0] is table:
        raise Refused(f"{there[1].name} sits at table {table.table} already", FLOOR)
    if there is not None and there[0].game == table.game:
        raise Refused(f"{there[1].name} plays {table.game} at table {there[0].table}: a change "
                      "of table in the same game and limit is the floor's to approve "
                      "(request_change, approve_change)", CHANGE)
    waiting.held_for_order(ledger, table)
    entry = waiting.take_from_list(ledger, table, args.name)
    name = entry.name if entry is not None else args.name
    waiting.keep_promises(ledger, table, name, entry)  # (a call is a promise of a seat)
    opened = []
    if there is not None:  # from another game's table (CG "Tischwechsel": the floor seats him)
        opened.append(seating.depart(ledger, there[0], there[1], now, ends_play=there[0].game))
        ledger.said(now, f"{name} leaves table {there[0].table} ({there[0].game}) for "
                    f"{table.game}", CHANGE)
    seated = seating.arrive(ledger, table, name, args.seat)
    side = ledger.at_tables
    if args.stack is not None and seated.arrived not in side.sat:
        side.brings[seated.arrived] = args.stack  # the table is asked to seat him with it
    where = f"table {table.table}" + (f", seat {args.seat}" if args.seat else "")
    must = (f"; table {table.table} is a must-move table for table {table.feeds}: {name} is "
            "last in its order") if table.feeds else ""
    buy_in = f" with {args.stack:,}" if args.stack is not None else ""
    ledger.said(now, f"{name} sits down at {where} ({table.game}){buy_in}{must}")
    seating.settle(ledger, opened, now)
    return ""


def _leave(ledger: Ledger, args: LeaveArgs, now: float) -> str:
    table = ledger.table(args.table)
    there = ledger.where(args.name)
    if there is None or there[0] is not table:
        raise Refused(f"{args.name} does not sit at table {table.table}", FLOOR)
    ledger.said(now, f"{there[1].name} leaves table {table.table}: a seat is open")
    # (without a stake named, the one his table shows him with between hands is the day's)
    opened = seating.depart(ledger, table, there[1], now,
                            ends_play=table.game if args.stack is None else None)
    seating.settle(ledger, [opened], now)
    return ""


def _players(table: Table) -> list[tuple[str, int, int | None]]:
    return [(p.name, p.arrived, p.seat) for p in table.players]


def _seated(ledger: Ledger, table: str, name: str) -> tuple[Table, Seated]:
    there = ledger.where(name)
    if there is None or there[0].table != table:
        raise Refused(f"{name} does not sit at table {table} for the cash floor", FLOOR)
    return there


def _at_table(ledger: Ledger, args: AtTableArgs, now: float) -> str:
    table, seated = _seated(ledger, args.table, args.name)
    side = ledger.at_tables
    if seated.arrived in side.sat and seated.seat == args.seat:
        raise Refused(f"{seated.name} is at table {table.table}, seat {args.seat} already",
                      FLOOR)
    other = next((p for p in table.players if p is not seated and p.seat == args.seat), None)
    if other is not None:
        other.seat = None  # the table's seat is the truth: his own comes with his state
    if seated.arrived in side.sat:
        seated.seat = args.seat
        return ledger.said(now, f"{seated.name} changes to seat {args.seat} at table "
                           f"{table.table}")
    side.sat.append(seated.arrived)
    side.brings.pop(seated.arrived, None)
    if seated.arrived in side.moved:
        side.moved.remove(seated.arrived)
    seated.seat = args.seat
    return ledger.said(now, f"{seated.name} takes seat {args.seat} at table {table.table}")


def _left_seat(ledger: Ledger, args: LeftSeatArgs, now: float) -> str:
    """The table showed him at his seat and shows it empty now: he left the table (busted and
    gone home, or the dealer let him go), so his seat is open (CG "Must Move": for the main
    table's order; else the list's)."""
    table, seated = _seated(ledger, args.table, args.name)
    side = ledger.at_tables
    if seated.arrived not in side.sat:
        raise Refused(f"table {table.table} never showed {seated.name} at a seat", FLOOR)
    side.sat.remove(seated.arrived)  # (gone from the table already: nothing to ask of it)
    where = f"seat {seated.seat}" if seated.seat else "his seat"
    ledger.said(now, f"table {table.table} shows {where} empty: {seated.name} has left the "
                "table; a seat is open")
    opened = seating.depart(ledger, table, seated, now)
    seating.settle(ledger, [opened], now)
    return ""


def _carries(ledger: Ledger, args: CarriesArgs) -> str:
    """A mover's stack as his old table shows it (what his new seat gets), or a leaver's whose
    stake the ledger keeps for the day (CG "Table Stake")."""
    side = ledger.at_tables
    wanted = names.skeleton(args.name)
    leaving = next((g for g in side.leaving
                    if needs_stack(g) and names.skeleton(g.name) == wanted), None)
    if leaving is None:
        raise Refused(f"{args.name} is moving to no table", FLOOR)
    if carried(side, leaving) == args.stack:
        raise Refused(f"{leaving.name} brings {args.stack:,} already", STAKE)
    if leaving.to is None:
        leaving.stack = args.stack
        return (f"{leaving.name} leaves table {leaving.table} with {args.stack:,}, as the "
                "table shows him between hands")
    side.brings[leaving.to] = args.stack
    return (f"{leaving.name} takes his {args.stack:,} from table {leaving.table} along: the "
            "whole table stake")


def _gone(ledger: Ledger, settings: CashSettings, args: GoneArgs, now: float) -> str:
    side = ledger.at_tables
    wanted = names.skeleton(args.name)
    leaving = next((g for g in side.leaving
                    if g.table == args.table and names.skeleton(g.name) == wanted), None)
    if leaving is None:
        raise Refused(f"nobody called {args.name} is leaving table {args.table}", FLOOR)
    side.leaving.remove(leaving)
    said = f"table {args.table} let {leaving.name} go"
    if leaving.game is not None and leaving.stack is not None:  # CG "Table Stake"
        told = ledger.ended_play(settings, leaving.name, leaving.game, leaving.stack, now)
        said += f" with {leaving.stack:,}" + (f"; {told}" if told else "")
    return said


def _joined(said: list[str]) -> str:
    return "; ".join(said)


def replay(settings: CashSettings, commands: Iterable[Journaled]) -> CashCore:
    """The core the journal's commands make, in order (each went through when it was
    journaled: a refusal now means the journal or the code changed, and is raised)."""
    core = CashCore(settings)
    for name, args, by, at in commands:
        core.command(name, args, by, at)
    return core


__all__ = ["CashCore", "Happening", "Journaled", "replay"]
