"""Everything the tournament decides, pure: the floor's commands (registration, the draw,
re-entries, undoing a wrong bust), what the tables say (their states, eliminations and sealed
records) and the clock's state, and what follows: places, moves, breaks, holds, the chip count.
Time and the random source are passed in and what must be sent or stored comes back
(`Outcome`), so the service only moves messages and the property tests drive this very object.

Seats follow the tables: a move is a request the tables carry out between hands (`unseat` at
the old table, `seat` at the new), sent again until their states show it, so a lost command, a
restart or a table that comes back late all end the same way.

The core is the room's state and what its parts share (reading it, drawing a seat, starting a
move, raising an alert); each thing it answers to has a module of its own: the floor's commands
(floor_commands.py), the tables' and the clock's inputs (table_inputs.py), what follows
(reconcile.py) and the published state (published.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.engine.records import HandRecord
from controller.mqtt.messages import ClockState
from controller.room.tournament import (
    floor_commands,
    published,
    purchases,
    reconcile,
    seating,
    table_inputs,
)
from controller.room.tournament.balance import RandomSource, Spot, TableSeating
from controller.room.tournament.commands import (
    COMMANDS,
)
from controller.room.tournament.draw import Refused, late_seat
from controller.room.tournament.floor_commands import OVER, and_words
from controller.room.tournament.ledger import (
    Alert,
    Ledger,
    Move,
    Out,
    Player,
    Settings,
    Undone,
)
from controller.room.tournament.prizes import payouts, prize_pool
from controller.room.tournament.reconcile import MISSING_SECONDS, Outcome
from controller.room.tournament.seating import TableSeen
from controller.room.tournament.standings import Standing, standings
from controller.room.tournament.table_inputs import EliminationData
from controller.room.tournament.view import (
    PublishedState,
)
from controller.session.outputs import TableState

RETRY_SECONDS = 2.0  # a request not yet shown in the table's state goes again after this
ALERTS_KEPT = 200


class TournamentCore:
    def __init__(self, settings: Settings, ledger: Ledger | None = None, *,
                 random_source: Callable[[int], RandomSource],
                 new_seed: Callable[[], int], retry_seconds: float = RETRY_SECONDS) -> None:
        self.settings = settings
        self.ledger = ledger or Ledger()
        self.random_source = random_source
        self.new_seed = new_seed
        self.retry_seconds = retry_seconds
        self.tables: dict[str, TableSeen] = {}
        self.clock: ClockState | None = None
        self.asked: dict[tuple[str, str], float] = {}
        self.dirty = False  # the ledger changed since the last save
        self.news: set[str] = set()  # tables whose state changed since the last reconcile
        self._standings: tuple[tuple[Any, ...], list[Standing]] | None = None
        self.waiting_since: float | None = None  # when it began to wait (its start)
        self.missing_said: set[str] = set()

    # ---------------------------------------------------------------- reading

    def registration_open(self) -> bool:
        """Until the end of the structure's ``late_registration_ends`` level (before the
        clock starts, always; without such a level, until the clock starts)."""
        clock = self.clock
        if self.ledger.status == "finished":
            return False
        if clock is None or clock.status in (None, "not_started"):
            return True
        last = self.settings.structure.late_registration_ends
        return last is not None and clock.level <= last and clock.status != "finished"

    def prize_pool(self) -> int:
        """Every entry's buy-in and the price of every add-on and rebuy."""
        entry = self.settings.structure.entry
        return prize_pool(self.ledger.entries, entry.buy_in) + purchases.prices(self.ledger)

    def payout_table(self) -> list[int]:
        """The prize of each place (places run 1..players: a re-entry adds money and no
        place)."""
        return payouts(self.settings.structure.prizes, self.prize_pool(), self.ledger.entries,
                       places=len(self.ledger.players))

    def standings(self) -> list[Standing]:
        """Everyone's place, prize and points (computed again only when an elimination, a
        registration or a settled group changed them: a thousand rows)."""
        ledger = self.ledger
        key = (ledger.entries, tuple(ledger.players), tuple(o.id for o in ledger.outs),
               len(ledger.settled), ledger.status, ledger.in_time, self.prize_pool())
        if self._standings is None or self._standings[0] != key:
            prizes = self.settings.structure.prizes
            rows = standings(ledger.players_in(), ledger.busts(), ledger.settled_keys(),
                             self.payout_table(), self.settings.points, len(ledger.players),
                             clubs={n: p.club for n, p in ledger.players.items()},
                             in_time=ledger.in_time, unit=prizes.unit if prizes else 1,
                             out_at={o.bust.player: o.at for o in ledger.outs
                                     if o.at is not None})
            self._standings = (key, rows)
        return self._standings[1]

    def waiting_for(self) -> list[str]:
        """What the tournament must hear before it decides anything about seats or chips: the
        state of every open table (after a restart they come back one by one; a table not yet
        heard is not an empty table) and, where the room has a clock, the clock's state (the
        breaks' guards follow it). Tables the director went on without are not waited for."""
        ledger = self.ledger
        if ledger.status != "running":
            return []
        out = [f"table {t}'s state" for t in self.missing_tables()]
        if ledger.clock_heard and self.clock is None:
            out.append("the clock's state")
        return out

    def missing_tables(self) -> list[str]:
        return [t for t in self.ledger.open_tables if t not in self.ledger.gone
                and self.no_state(t)]

    def no_state(self, table: str) -> bool:
        seen = self.tables.get(table)
        return seen is None or seen.state is None

    def ready(self, rule: str) -> None:
        """Refused while the tournament waits for the room (`waiting_for`)."""
        waiting = self.waiting_for()
        if waiting:
            raise Refused(f"the tournament waits for {and_words(waiting)}: no seat is drawn, no "
                          "player moves and no chips are counted before it knows the room",
                          rule)

    def between_hands(self, table: str) -> bool:
        """Between hands, online, and not released for a hand-for-hand round it has yet to
        deal: its players move after that hand (the clock's round waits for it)."""
        seen = self.tables.get(table)
        return bool(seen and seen.online and seen.state is not None
                    and seen.state.stage in ("waiting", "over")
                    and seen.state.released_round is None
                    and self.owes_round(table) is None)

    def owes_round(self, table: str) -> int | None:
        """The hand-for-hand round the clock released this table for (its state's
        ``playing``) whose hand the table has not dealt yet (its state's ``played_round``
        is another and its record of the round has not come), else None. The clock's state
        may come before the table shows its release (``released_round``): the table owes the
        round its hand all the same, and is neither broken nor left by a player before it
        dealt it. Broken first, it could never deal it, and the round's places would wait for
        its record for ever (PVB 35a, PVB 64b(3))."""
        clock = self.clock
        if clock is None or not clock.hand_for_hand or not clock.round \
                or table not in clock.playing:
            return None
        seen = self.tables.get(table)
        if seen is not None and seen.state is not None \
                and seen.state.played_round == clock.round:
            return None
        if table in self.ledger.round_records.get(clock.round, []):
            return None
        return clock.round

    # ---------------------------------------------------------------- what it answers to

    def command(self, name: str, args: dict[str, Any], by: str, now: float) -> str:
        """Carry out a floor command; returns what it did in the floor's words, or raises
        `Refused` and changes nothing (controller/room/tournament/floor_commands.py)."""
        return floor_commands.run(self, name, args, by, now)

    # ---------------------------------------------------------------- shared by its parts

    def not_finished(self) -> None:
        if self.ledger.status == "finished":
            winner = self.ledger.players_in()
            who = f": {winner[0]} has every chip" if len(winner) == 1 else ""
            raise Refused(f"the tournament is over{who}", OVER)

    def check_registration(self) -> None:
        if not self.registration_open():
            last = self.settings.structure.late_registration_ends
            when = f"at the end of level {last}" if last else "when the clock started"
            raise Refused(f"late registration closed {when}, as the structure has it "
                          "(late_registration_ends)", "RULES T6")

    def reentry_open(self) -> bool | None:
        """Whether a player who is out may enter again now (late registration is open); None
        when the structure offers no re-entry."""
        if not self.settings.structure.entry.reentry:
            return None
        return self.registration_open()

    def registered(self, name: str) -> Player:
        player = self.ledger.players.get(name)
        if player is None:
            raise Refused(f"{name} is not registered", "PVB 13")
        return player

    def late_spot(self, now: float) -> tuple[Spot, int]:
        """A free seat at the shortest table in play; when every seat is taken a table out of
        play is opened, one not used yet or one broken, alike: the first in the filling order,
        the reverse of the order of breaking (of the broken tables, the last broken, as the
        director brings back the table he just broke). It is not broken again by the rule that
        broke it: the players no longer fit at the other tables (RULES T3)."""
        ledger = self.ledger
        self.ready("PVB 08a(1)")
        seed = self.new_seed()
        room = self.seats_to_draw()
        if all(t.empty() == 0 for t in room):
            closed = [t.table for t in seating.filling_order(self.settings)
                      if t.table not in ledger.open_tables]
            if not closed:
                raise Refused("every seat in the room is taken", "PVB 08a(1)")
            opened = closed[0]
            ledger.open_tables = [t.table for t in self.settings.tables
                                  if t.table in {*ledger.open_tables, opened}]
            if opened in ledger.broken:  # (told to close again if it breaks again)
                ledger.broken.remove(opened)
                ledger.closed = [t for t in ledger.closed if t != opened]
                self.alert(now, f"table {opened}, broken before, opens again for a new seat: "
                            "every seat at the tables in play is taken", "RULES T3", opened)
            room = self.seats_to_draw()
        return late_seat(room, self.random_source(seed)), seed

    def seats_to_draw(self) -> list[TableSeating]:
        """The open tables a late seat may be drawn at: not one gone on without."""
        return [t for t in seating.seating(self.settings, self.ledger, self.tables)
                if t.table not in self.ledger.gone]

    def seat_late(self, name: str, spot: Spot, seed: int, reason: str, now: float) -> None:
        stack = self.settings.start_stack()
        self.ledger.chips.issue(stack)
        self.new_move(name, None, spot, stack, "RULES T6", reason, now, seed=seed)

    def new_move(self, player: str, source: Spot | None, to: Spot, stack: int, rule: str,
                  reason: Any, now: float, *, seed: int | None = None,
                  source_hand: int | None = None, sits_out: bool = False) -> Move:
        ledger = self.ledger
        move = Move(id=ledger.next_move, player=player, source=source, to=to, stack=stack,
                    rule=rule, reason=reason, status="leaving" if source else "arriving",
                    decided=now, source_hand=source_hand, sits_out=sits_out, seed=seed)
        ledger.next_move += 1
        ledger.moves.append(move)
        return move

    def undo(self, out: Out, by: str, now: float, why: str, stack: int | None = None,
              spot: Spot | None = None) -> None:
        ledger = self.ledger
        ledger.outs.remove(out)
        ledger.undone.append(Undone(bust=out.bust, by=by, at=now, why=why, stack=stack,
                                    spot=spot))
        player = ledger.players.get(out.bust.player)
        if player is not None:
            player.out = False
        if ledger.status == "finished" and len(ledger.players_in()) > 1:
            ledger.status = "running"

    def alert(self, now: float, text: str, rule: str | None, table: str | None = None,
               hand: int | None = None) -> None:
        ledger = self.ledger
        ledger.alerts.append(Alert(id=ledger.next_alert, at=now, text=text, rule=rule,
                                   table=table, hand=hand))
        ledger.next_alert += 1
        del ledger.alerts[:-ALERTS_KEPT]
        self.dirty = True

    # ---------------------------------------------------------------- what the room says

    def table_status(self, table: str, online: bool) -> None:
        seen = self.tables.setdefault(table, TableSeen())
        seen.online = online
        if not online:  # what was asked went nowhere: asked again when it is back
            for key in [k for k in self.asked if k[0] == table]:
                del self.asked[key]

    def table_state(self, state: TableState, live: bool = True) -> None:
        """``live`` False: the broker's retained copy (after our restart), which says nothing
        of whether the table is online now (its status does)."""
        seen = self.tables.setdefault(state.table, TableSeen())
        seen.state = state
        if live:
            seen.online = True
        self.news.add(state.table)

    def elimination(self, table: str, event_id: str, data: dict[str, Any], now: float,
                    at: float | None = None) -> bool:
        """A table's elimination event (controller/room/tournament/table_inputs.py)."""
        return table_inputs.elimination(self, table, event_id, data, now, at)

    def record(self, table: str, record: HandRecord, now: float) -> bool:
        """A table's sealed hand record (controller/room/tournament/table_inputs.py)."""
        return table_inputs.record(self, table, record, now)

    def clock_state(self, clock: ClockState) -> bool:
        """The clock's state (controller/room/tournament/table_inputs.py)."""
        return table_inputs.clock_state(self, clock)

    def reconcile(self, now: float) -> Outcome:
        """What follows from everything heard (controller/room/tournament/reconcile.py)."""
        return reconcile.reconcile(self, now)

    def state(self) -> PublishedState:
        """The retained ``tournament/state`` (controller/room/tournament/published.py)."""
        return published.published_state(self)


__all__ = ["COMMANDS", "MISSING_SECONDS", "EliminationData", "Outcome", "TournamentCore"]
