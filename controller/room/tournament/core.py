"""Everything the tournament decides, pure: the floor's commands (registration, the draw,
re-entries, undoing a wrong bust), what the tables say (their states, eliminations and sealed
records) and the clock's state, and what follows: places, moves, breaks, holds, the chip count.
Time and the random source are passed in and what must be sent or stored comes back
(`Outcome`), so the service only moves messages and the property tests drive this very object.

Seats follow the tables: a move is a request the tables carry out between hands (`unseat` at
the old table, `seat` at the new), sent again until their states show it, so a lost command, a
restart or a table that comes back late all end the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.engine.records import HandRecord
from controller.mqtt.messages import ClockState
from controller.room.tournament import colour_ups, names, purchases, seating
from controller.room.tournament.balance import RandomSource, Spot, TableSeating, plan
from controller.room.tournament.commands import (
    COMMANDS,
    AddOnArgs,
    CommandArgs,
    DrawArgs,
    ExportArgs,
    GoOnWithoutArgs,
    MoveDoneArgs,
    RebuyArgs,
    ReenterArgs,
    RegisterArgs,
    UndoBustArgs,
    UnregisterArgs,
    parse,
)
from controller.room.tournament.draw import Entrant, Refused, draw, late_seat
from controller.room.tournament.ledger import (
    Alert,
    Ledger,
    Move,
    Out,
    Player,
    Purchase,
    Settings,
    Undone,
)
from controller.room.tournament.places import Bust, GroupKey, group_words
from controller.room.tournament.prizes import payouts, prize_pool
from controller.room.tournament.seating import Ask, TableSeen
from controller.room.tournament.standings import Standing, standings
from controller.room.tournament.view import (
    ChipLine,
    PublishedState,
    TableLine,
    chip_leader,
    payout_lines,
    seat_lines,
)
from controller.session.outputs import TableState

RETRY_SECONDS = 2.0  # a request not yet shown in the table's state goes again after this
# An open table's state (or the clock's) that has not come this long after the tournament
# started is named on the floor (it still waits for it: the director may go on without it)
MISSING_SECONDS = 10.0
ALERTS_KEPT = 200
# The rules the floor's commands are refused by (docs/tournament.md, "Refusals")
OVER = "APSA 3.1.2.1"  # a freeze-out is played until one player has every chip
REENTRY = "APSA 3.1.2.7"  # a player who is out enters again, where the tournament offers it
UNDO = "PVB 64a(1)"  # the floor sets a busted player's place
COUNTED = "DFO §2(3)"  # a newcomer's chips are checked at his seat


class EliminationData(BaseModel):
    """What a table's elimination event says (``data``)."""

    model_config = ConfigDict(extra="ignore")

    player: str = Field(min_length=1, max_length=40)
    hand: int = Field(ge=0)
    round: int | None = None
    stack: int = Field(default=0, ge=0)
    busted: dict[str, int] = Field(default_factory=dict)
    started: float | None = None


@dataclass
class Outcome:
    asks: list[Ask] = field(default_factory=list)
    save: bool = False
    alerts: list[Alert] = field(default_factory=list)
    finished: bool = False


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
        self._waiting_since: float | None = None  # when it began to wait (its start)
        self._missing_said: set[str] = set()

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
        out = [f"table {t}'s state" for t in self._missing_tables()]
        if ledger.clock_heard and self.clock is None:
            out.append("the clock's state")
        return out

    def _missing_tables(self) -> list[str]:
        return [t for t in self.ledger.open_tables if t not in self.ledger.gone
                and self._no_state(t)]

    def _no_state(self, table: str) -> bool:
        seen = self.tables.get(table)
        return seen is None or seen.state is None

    def _ready(self, rule: str) -> None:
        """Refused while the tournament waits for the room (`waiting_for`)."""
        waiting = self.waiting_for()
        if waiting:
            raise Refused(f"the tournament waits for {_and(waiting)}: no seat is drawn, no "
                          "player moves and no chips are counted before it knows the room",
                          rule)

    def between_hands(self, table: str) -> bool:
        """Between hands, online, and not released for a hand-for-hand round it has yet to
        deal: its players move after that hand (the clock's round waits for it)."""
        seen = self.tables.get(table)
        return bool(seen and seen.online and seen.state is not None
                    and seen.state.stage in ("waiting", "over")
                    and seen.state.released_round is None)

    # ---------------------------------------------------------------- the floor's commands

    def command(self, name: str, args: dict[str, Any], by: str, now: float) -> str:
        """Carry out a floor command; returns what it did in the floor's words, or raises
        `Refused` and changes nothing."""
        parsed = self._as_registered(parse(name, args))  # (a stray argument is refused)
        before = self.ledger.model_copy(deep=True)
        try:
            said: str = getattr(self, f"_cmd_{name}")(parsed, by, now)
        except BaseException:
            self.ledger = before
            raise
        self.dirty = True
        return said

    def _as_registered(self, args: CommandArgs) -> CommandArgs:
        """Every command but ``register`` names a registered player as registration finds
        him (PVB 13: case and look-alike letters ignored, "gus" is Gus), and answers with his
        name as registered."""
        if isinstance(args, RegisterArgs):
            return args
        for key in ("name", "player"):
            given = getattr(args, key, None)
            if isinstance(given, str):
                found = names.registered_as(given, self.ledger.players)
                return args.model_copy(update={key: found}) if found != given else args
        return args

    def _not_finished(self) -> None:
        if self.ledger.status == "finished":
            winner = self.ledger.players_in()
            who = f": {winner[0]} has every chip" if len(winner) == 1 else ""
            raise Refused(f"the tournament is over{who}", OVER)

    def _registration(self) -> None:
        if not self.registration_open():
            last = self.settings.structure.late_registration_ends
            when = f"at the end of level {last}" if last else "when the clock started"
            raise Refused(f"late registration closed {when}, as the structure has it "
                          "(late_registration_ends)", "RULES T6")

    def _reentry_open(self) -> bool | None:
        """Whether a player who is out may enter again now (late registration is open); None
        when the structure offers no re-entry."""
        if not self.settings.structure.entry.reentry:
            return None
        return self.registration_open()

    def _registered(self, name: str) -> Player:
        player = self.ledger.players.get(name)
        if player is None:
            raise Refused(f"{name} is not registered", "PVB 13")
        return player

    def _cmd_register(self, args: RegisterArgs, by: str, now: float) -> str:
        self._not_finished()
        name, club = args.name, args.club
        alike = names.same_name(name, self.ledger.players)  # (case, look-alike letters)
        known = self.ledger.players[alike] if alike is not None else None
        if known is not None:
            again = (" and out" + (": a new entry is reenter" if self._reentry_open() else
                                   "") if known.out else "")
            raise Refused(f"{known.name} is registered already{again}; two players need names "
                          "the tables can tell apart", "PVB 13")
        self._registration()
        ledger = self.ledger
        if ledger.status == "running":
            spot, seed = self._late_spot(now)
            ledger.players[name] = Player(name=name, club=club)
            ledger.entries += 1
            self._seat_late(name, spot, seed, "late", now)
            return (f"{name} registered late and draws table {spot.table}, seat {spot.seat} "
                    f"with {self.settings.start_stack():,} (RULES T6)")
        ledger.players[name] = Player(name=name, club=club)
        ledger.entries += 1
        of = f" ({club})" if club else ""
        return f"{name}{of} registered: {_players(len(ledger.players))}"

    def _cmd_reenter(self, args: ReenterArgs, by: str, now: float) -> str:
        self._not_finished()
        name = args.name
        player = self.ledger.players.get(name)
        if player is None:
            raise Refused(f"{name} is not registered: a first entry is register", "PVB 13")
        if not self.settings.structure.entry.reentry:
            raise Refused(f"the structure {self.settings.structure.name!r} offers no re-entry",
                          REENTRY)
        if not player.out:
            raise Refused(f"{name} is still in the tournament: only a player who is out enters "
                          "again", REENTRY)
        self._registration()
        spot, seed = self._late_spot(now)
        ledger = self.ledger
        out = next(o for o in ledger.outs if o.bust.player == name)
        ledger.outs.remove(out)
        ledger.undone.append(Undone(bust=out.bust, by=by, at=now, why="a new entry"))
        player.out = False
        player.entries += 1
        ledger.entries += 1
        self._seat_late(name, spot, seed, "reentry", now)
        return (f"{name} enters again (entry {player.entries}) and draws table {spot.table}, "
                f"seat {spot.seat} with {self.settings.start_stack():,}")

    def _cmd_unregister(self, args: UnregisterArgs, by: str, now: float) -> str:
        name = args.name
        player = self._registered(name)
        if self.ledger.status != "registration" and player.out:
            raise Refused(f"{name} is out: the draw was made, and a player who went out keeps "
                          "his place in the standings; nothing to unregister", "PVB 12")
        if self.ledger.status != "registration":
            raise Refused(f"{name} has a seat: the draw was made; a player who leaves now is "
                          "blinded off or busts", "PVB 12")
        del self.ledger.players[name]
        self.ledger.entries -= 1
        return f"{name} is no longer registered: {_players(len(self.ledger.players))}"

    def _cmd_draw(self, args: DrawArgs, by: str, now: float) -> str:
        ledger = self.ledger
        if ledger.status != "registration":
            raise Refused("the draw was made already", "PVB 08a(1)")
        if len(ledger.players) < 2:
            raise Refused(f"{len(ledger.players)} player(s) registered: a tournament needs two",
                          "PVB 08a(1)")
        seed = self.new_seed() if args.seed is None else args.seed
        entrants = [Entrant(name=p.name, club=p.club) for p in ledger.players.values()]
        spots = draw(entrants, seating.filling_order(self.settings), self.random_source(seed))
        stack = self.settings.start_stack()
        for name, spot in spots.items():
            self._new_move(name, None, spot, stack, "PVB 08a(1)", "draw", now, seed=seed)
        ledger.chips.issue(stack * len(spots))
        used = {s.table for s in spots.values()}
        ledger.open_tables = [t.table for t in self.settings.tables if t.table in used]
        ledger.status = "running"
        ledger.seed = seed
        return (f"the draw (seed {seed}): {len(spots)} players at {len(used)} "
                f"table{'' if len(used) == 1 else 's'} "
                f"({', '.join(ledger.open_tables)}), {stack:,} chips each (RULES T6)")

    def _cmd_undo_bust(self, args: UndoBustArgs, by: str, now: float) -> str:
        """A wrong elimination taken back (PVB 64a(1): the floor sets a busted player's place).
        He must play on with a seat and chips: one the tables still show with his chips plays
        on there; one who lost his seat gets the chips the floor names (``stack``, issued: the
        chips in play grow by them, RULES T6) and a drawn free seat, as a late registration
        (PVB 08a(1)). Anything short of that is refused."""
        name = args.player
        self._registered(name)
        ledger = self.ledger
        out = next((o for o in ledger.outs if o.bust.player == name), None)
        if out is None:
            raise Refused(f"{name} is not out: there is no elimination to take back",
                          UNDO)
        self._ready(UNDO)  # (where he sits, if anywhere, is the tables' to say)
        where = group_words(out.bust.group())
        why = "a wrong bust, taken back by the floor"
        spot = seating.where(self.tables, name)
        seen = self.tables[spot.table].state if spot is not None else None
        sits = seen.seats[spot.seat].stack if seen is not None and spot is not None else 0
        if spot is not None and sits > 0:
            if args.stack is not None:
                raise Refused(f"{name} still sits at table {spot.table}, seat {spot.seat} with "
                              f"{sits:,} chips: they play on with them; no chips are given "
                              "back (leave out args.stack)", UNDO)
            self._undo(out, by, now, why)
            return (f"{name}'s elimination ({where}) is taken back by {by}: {name} plays on at "
                    f"table {spot.table}, seat {spot.seat} with their {sits:,} chips")
        if args.stack is None:
            raise Refused(f"{name} went out ({where}) and has no seat: to take the bust back, "
                          "name the chips they get back (args.stack); they are seated at a drawn "
                          "free seat", UNDO)
        in_play = ledger.chips.in_play()
        if args.stack > in_play:
            raise Refused(f"args.stack: {args.stack:,} chips is more than every chip in play "
                          f"({in_play:,})", UNDO)
        unit = colour_ups.smallest_in_play(self.settings, ledger)
        if args.stack % unit:  # (the words of the table's own `stack` command)
            raise Refused(f"args.stack: {args.stack:,} cannot be made of the chips in play (the "
                          f"smallest is {unit:,}): count the stack again", "RULES T5")
        seat, seed = self._late_spot(now)  # (refused when every seat in the room is taken)
        self._undo(out, by, now, why, stack=args.stack, spot=seat)
        ledger.chips.give_back(args.stack)
        self._new_move(name, None, seat, args.stack, "PVB 08a(1)", "undo", now, seed=seed)
        return (f"{name}'s elimination ({where}) is taken back by {by}: {name} plays on and draws "
                f"table {seat.table}, seat {seat.seat} with {args.stack:,} chips the floor "
                f"gives back, issued: {ledger.chips.in_play():,} chips in play (RULES T6)")

    def _cmd_move_done(self, args: MoveDoneArgs, by: str, now: float) -> str:
        name = args.player
        player = self._registered(name)
        out = next((o for o in self.ledger.outs if o.bust.player == name), None)
        if player.out and out is not None:
            raise Refused(f"{name} is out ({group_words(out.bust.group())}): there are no "
                          "chips to count, the move is cancelled", COUNTED)
        # The seat he sits at now: a move whose seat he left since is superseded (the latest
        # seated one, should an older journal hold more)
        move = max((m for m in self.ledger.moves if m.player == name and m.status == "seated"),
                   key=lambda m: m.id, default=None)
        if move is None:
            going = self.ledger.move_of(name)
            if going is not None and going.status == "arriving":
                raise Refused(f"{name} is on the way to table {going.to.table}, seat "
                              f"{going.to.seat}: the chips are counted once they sit there",
                              COUNTED)
            raise Refused(f"{name} has no move waiting for a chip count", COUNTED)
        move.status = "done"
        return f"{name}'s chips are counted at table {move.to.table}, seat {move.to.seat}"

    def _cmd_export(self, args: ExportArgs, by: str, now: float) -> str:
        return "the standings are written as CSV and JSON"

    def _cmd_go_on_without(self, args: GoOnWithoutArgs, by: str, now: float) -> str:
        """The director goes on without a table whose state has not come (its Pi is gone for
        good) or without the clock's: the tournament stops waiting for it. A table gone on
        without keeps its players, counted where the tournament last saw them; no player
        moves to or from it and it is not broken until its state comes, which ends this."""
        ledger = self.ledger
        if ledger.status != "running":
            now_is = "in registration" if ledger.status == "registration" else "over"
            raise Refused(f"the tournament is {now_is}: it waits for no table", "RULES T3")
        if args.clock:
            if not ledger.clock_heard or self.clock is not None:
                raise Refused("the tournament is not waiting for the clock's state", "RULES T3")
            ledger.clock_heard = False  # (heard again, it is followed again)
            return (f"{by}: the tournament goes on without the clock's state; breaks and "
                    "late registration follow the clock again when its state comes")
        table = args.table
        assert table is not None
        if table not in ledger.open_tables:
            raise Refused(f"table {table} is not a table in play (in play: "
                          f"{', '.join(ledger.open_tables)})", "RULES T3")
        seen = self.tables.get(table)
        if not self._no_state(table) and seen is not None and seen.online:
            raise Refused(f"table {table} is online and its state is in: the tournament "
                          "follows it", "RULES T3")
        if table not in ledger.gone:
            ledger.gone.append(table)
        there = [p.name for p in ledger.players.values()
                 if not p.out and p.spot is not None and p.spot.table == table]
        going = [m.player for m in ledger.moves
                 if m.to.table == table and m.status in ("leaving", "arriving")]
        again = (f"; {_and(going)}, on their way there, are drawn other seats as soon as the "
                 "tournament waits for no table (PVB 08a(1))" if going else "")
        stay = (f"its {_players(len(there))} stay in, where it last saw them; "
                if there else "")
        return (f"{by}: the tournament goes on without table {table}: {stay}no player moves to "
                f"or from it until its state comes (RULES T3){again}")

    def _cmd_add_on(self, args: AddOnArgs, by: str, now: float) -> str:
        self._ready(purchases.RULE)
        bought = purchases.add_on(self.settings, self.ledger, self.clock, args.player, by, now,
                                  reentry=self._reentry_open())
        return self._bought(bought)

    def _cmd_rebuy(self, args: RebuyArgs, by: str, now: float) -> str:
        self._ready(purchases.RULE)
        bought = purchases.rebuy(self.settings, self.ledger, self.clock, args.player, by, now,
                                 reentry=self._reentry_open())
        return self._bought(bought)

    def _bought(self, bought: Purchase) -> str:
        player = self.ledger.players[bought.player]
        where = (f"table {player.spot.table}, seat {player.spot.seat}" if player.spot
                 else "their seat")
        price = f"; {bought.price:,} {self.settings.structure.entry.currency} to the prize " \
            f"pool" if bought.price else ""
        return (f"{bought.player} takes the {purchases.WORDS[bought.kind]}: {bought.chips:,} "
                f"chips to their stack at {where}, between hands{price} ({purchases.RULE})")

    # ---------------------------------------------------------------- seating decisions

    def _late_spot(self, now: float) -> tuple[Spot, int]:
        """A free seat at the shortest table in play; when every seat is taken a table out of
        play is opened, one not used yet or one broken, alike: the first in the filling order,
        the reverse of the order of breaking (of the broken tables, the last broken, as the
        director brings back the table he just broke). It is not broken again by the rule that
        broke it: the players no longer fit at the other tables (RULES T3)."""
        ledger = self.ledger
        self._ready("PVB 08a(1)")
        seed = self.new_seed()
        room = self._seats_to_draw()
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
                self._alert(now, f"table {opened}, broken before, opens again for a new seat: "
                            "every seat at the tables in play is taken", "RULES T3", opened)
            room = self._seats_to_draw()
        return late_seat(room, self.random_source(seed)), seed

    def _seats_to_draw(self) -> list[TableSeating]:
        """The open tables a late seat may be drawn at: not one gone on without."""
        return [t for t in seating.seating(self.settings, self.ledger, self.tables)
                if t.table not in self.ledger.gone]

    def _seat_late(self, name: str, spot: Spot, seed: int, reason: str, now: float) -> None:
        stack = self.settings.start_stack()
        self.ledger.chips.issue(stack)
        self._new_move(name, None, spot, stack, "RULES T6", reason, now, seed=seed)

    def _new_move(self, player: str, source: Spot | None, to: Spot, stack: int, rule: str,
                  reason: Any, now: float, *, seed: int | None = None,
                  source_hand: int | None = None, sits_out: bool = False) -> Move:
        ledger = self.ledger
        move = Move(id=ledger.next_move, player=player, source=source, to=to, stack=stack,
                    rule=rule, reason=reason, status="leaving" if source else "arriving",
                    decided=now, source_hand=source_hand, sits_out=sits_out, seed=seed)
        ledger.next_move += 1
        ledger.moves.append(move)
        return move

    def _undo(self, out: Out, by: str, now: float, why: str, stack: int | None = None,
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

    # ---------------------------------------------------------------- what the tables say

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
        """A table's elimination event (durable, so it may come twice): True if it changed
        anything. ``at``: when the table said it (the end of the hand), else ``now``."""
        ledger = self.ledger
        if any(o.id == event_id for o in ledger.outs):
            return False
        try:
            said = EliminationData.model_validate(data)
        except ValidationError:
            self._alert(now, f"table {table}: an elimination that does not say who or in "
                        "which hand; the floor checks the table", "PVB 64b", table)
            return True
        player = ledger.players.get(said.player)
        if player is None:
            self._alert(now, f"table {table}, hand {said.hand}: {said.player} is out, but is "
                        "not in the tournament", "PVB 13", table, said.hand)
            return True
        if player.out:
            return False
        bust = Bust(player=said.player, table=table, hand=said.hand, started=said.started,
                    round=said.round, stack=said.stack, seq=ledger.seq)
        ledger.seq += 1
        ledger.outs.append(Out(id=event_id, bust=bust, busted=sorted(said.busted),
                               at=now if at is None else at))
        self._out(player)
        return True

    def _out(self, player: Player) -> None:
        """He is out: his seat and stack are gone, and a move of his not yet done is cancelled
        (nothing more is asked of the tables for it, and no chips of his are left to count)."""
        player.out, player.spot, player.stack = True, None, 0
        for move in self.ledger.moves:
            if move.player == player.name and move.status in ("leaving", "arriving", "seated"):
                move.status = "cancelled"

    def record(self, table: str, record: HandRecord, now: float) -> bool:
        """A table's sealed hand record (public part): the truth of who went out in that hand
        (RULES H3), and for hand-for-hand that the table's hand of the round is over."""
        ledger = self.ledger
        changed = False
        number = record.hand_for_hand_round
        if number is not None:
            tables = ledger.round_records.setdefault(number, [])
            if table not in tables:
                tables.append(table)
                changed = True
        if record.status != "complete":
            return changed
        busted = {player: record.starting_stacks.get(seat, 0)
                  for seat, player in record.players.items()
                  if record.starting_stacks.get(seat, 0) > 0
                  and record.finishing_stacks.get(seat, 1) == 0}
        heard = {(b.player, b.table, b.hand, b.started)
                 for b in [*ledger.busts(), *(u.bust for u in ledger.undone)]}
        for player, stack in sorted(busted.items()):
            known = ledger.players.get(player)
            if known is None or known.out or (player, table, record.hand,
                                              record.started) in heard:
                continue  # (a bust the floor took back, or an entry since re-entered)
            bust = Bust(player=player, table=table, hand=record.hand, started=record.started,
                        round=number, stack=stack, seq=ledger.seq)
            ledger.seq += 1
            ledger.outs.append(Out(id=f"record:{table}:{record.hand}:{player}", bust=bust,
                                   busted=sorted(busted), at=now))
            self._out(known)
            changed = True
        for out in [o for o in ledger.outs if o.bust.table == table
                    and o.bust.hand == record.hand and o.bust.started == record.started
                    and o.bust.player not in busted]:
            self._undo(out, f"table {table}'s sealed record", now, "the hand was corrected")
            self._alert(now, f"table {table}, hand {record.hand}: the sealed record shows "
                        f"{out.bust.player} still with chips; the elimination is taken back",
                        "PVB 64(1)", table, record.hand)
            changed = True
        if number is None:
            key = [
                "hand", table, record.hand, record.started]
            if key not in ledger.settled:
                ledger.settled.append(key)
                changed = True
        return changed

    def clock_state(self, clock: ClockState) -> bool:
        """The clock's state: the registration window, and for hand-for-hand which tables
        each round released (PVB 64b(3): a round's places wait for all of them)."""
        self.clock = clock
        if not self.ledger.clock_heard:
            self.ledger.clock_heard = True
            self.dirty = True
        if clock.hand_for_hand and clock.playing and clock.round:
            playing = sorted(clock.playing)
            if self.ledger.rounds.get(clock.round) != playing:
                self.ledger.rounds[clock.round] = playing
                return True
        return False

    # ---------------------------------------------------------------- what follows

    def reconcile(self, now: float) -> Outcome:
        """Moves that progressed, places that can be given, new moves and breaks, the chip
        count, and every request the tables still need (each sent again every
        ``retry_seconds`` until their states show it)."""
        outcome = Outcome()
        before_alerts = self.ledger.next_alert
        changed = self._back(now)
        changed |= self._settle()
        if self._waiting(now):
            # Nothing follows from a partial room: a table not heard yet is not an empty table,
            # and a break's guard needs the clock. Its news waits (RULES T3, T5).
            if changed or self.dirty:
                outcome.save, self.dirty = True, False
            outcome.alerts = [a for a in self.ledger.alerts if a.id >= before_alerts]
            return outcome
        news, self.news = self.news, set()
        changed |= seating.follow_moves(self.settings, self.ledger, self.tables, news)
        changed |= seating.follow_players(self.ledger, self.tables, news)
        changed |= self._chips_changed(now)
        changed |= self._strangers(now, news)
        if self.ledger.status == "running":
            changed |= self._decide(now)
            changed |= self._count_chips(now, news)
            for difference in colour_ups.ended(self.ledger):
                self._alert(now, difference.words(), "RULES T5", difference.table,
                            difference.hand)
                changed = True
            changed |= self._finish(now)
        if changed or self.dirty:
            outcome.save = True
            self.dirty = False
        outcome.alerts = [a for a in self.ledger.alerts if a.id >= before_alerts]
        outcome.finished = self.ledger.status == "finished" and changed
        outcome.asks = self._asks(now)
        return outcome

    def _waiting(self, now: float) -> bool:
        """Whether the tournament waits (`waiting_for`); what it has waited for too long is
        named once on the floor, with what the director can do."""
        waiting = self.waiting_for()
        if not waiting:
            self._waiting_since = None
            return False
        if self._waiting_since is None:
            self._waiting_since = now
        elif now - self._waiting_since >= MISSING_SECONDS:
            for what in waiting:
                if what in self._missing_said:
                    continue
                self._missing_said.add(what)
                table = next((t for t in self._missing_tables()
                              if what == f"table {t}'s state"), None)
                fix = (f"the floor checks table {table} (powered, online), or if it is gone "
                       f"for good tells the tournament to go on without it (go_on_without, "
                       f"args.table {table!r})" if table is not None else
                       "the floor checks the clock service, or tells the tournament to go on "
                       "without it (go_on_without, args.clock true)")
                self._alert(now, f"{what} has not come {now - self._waiting_since:.0f} s "
                            "after the tournament started: it waits for it (no seat, move, "
                            f"break or chip count until then); {fix}", "RULES T3", table)
        return True

    def _back(self, now: float) -> bool:
        """A table gone on without that is back after all (its state in, and online):
        followed again."""
        changed = False
        for table in [t for t in self.ledger.gone if not self._no_state(t)
                      and self.tables[t].online]:
            self.ledger.gone.remove(table)
            self._alert(now, f"table {table}'s state came: the tournament follows it again",
                        "RULES T3", table)
            changed = True
        return changed

    def _chips_changed(self, now: float) -> bool:
        """What changes the chips a table must hold without a hand, before they are counted:
        chips bought that reached a stack (or are void, the player out first), and colour-ups
        due or made (RULES T5)."""
        ledger = self.ledger
        changed = False
        before = [p.status for p in ledger.purchases]
        for void in purchases.follow(ledger, self.tables):
            price = f"; {void.price:,} {self.settings.structure.entry.currency} back" \
                if void.price else ""
            out = next((o.bust for o in ledger.outs if o.bust.player == void.player), None)
            where = f" (table {out.table}, hand {out.hand})" if out is not None else ""
            self._alert(now, f"{void.player} went out{where} before the chips of their "
                        f"{purchases.WORDS[void.kind]} reached the table: it is void{price}",
                        purchases.RULE, out.table if out else None, out.hand if out else None)
        changed |= before != [p.status for p in ledger.purchases]
        changed |= colour_ups.due(self.settings, ledger, self.clock)
        taken, differences = colour_ups.taken(ledger, self.tables)
        for difference in differences:
            self._alert(now, difference.words(), "RULES T5", difference.table, difference.hand)
        return changed or taken

    def _settle(self) -> bool:
        """Groups whose places can be given: a hand once everyone out in it is heard (or its
        record came); a hand-for-hand round once every table of it has sealed its hand of the
        round (PVB 64b(3))."""
        ledger = self.ledger
        settled = ledger.settled_keys()
        groups: dict[GroupKey, list[Out]] = {}
        for out in ledger.outs:
            groups.setdefault(out.bust.group(), []).append(out)
        changed = False
        for key, members in groups.items():
            if key in settled:
                continue
            if key[0] == "round":
                tables = set(ledger.rounds.get(key[1], [])) | {o.bust.table for o in members}
                done = tables <= set(ledger.round_records.get(key[1], []))
            else:
                expected = {name for o in members for name in o.busted}
                heard = {o.bust.player for o in members}
                done = bool(expected) and expected <= heard
            if done:
                ledger.settled.append(list(key))
                changed = True
        return changed

    def _away_from_gone(self, now: float) -> bool:
        """Players on their way to a table gone on without can never sit there (the draw's or
        a late seat, never seen): each is drawn a free seat elsewhere, as a late seat is (PVB
        08a(1)), with his stack; a balancing move there not begun is dropped (decided again
        among the tables in play). Without a free seat in the room he waits, and the floor is
        told once."""
        ledger = self.ledger
        changed = False
        for move in [m for m in ledger.moves if m.to.table in ledger.gone]:
            if move.status == "leaving":
                ledger.moves.remove(move)
                changed = True
            elif move.status == "arriving":
                gone = move.to.table
                try:
                    spot, seed = self._late_spot(now)
                except Refused as refused:
                    if move.id not in ledger.stranded:
                        ledger.stranded.append(move.id)
                        self._alert(now, f"{move.player}, on his way to table {gone} (gone on "
                                    f"without), has no seat to go to: {refused.reason}",
                                    "PVB 08a(1)", gone)
                        changed = True
                    continue
                move.to, move.seed, move.sits_out = spot, seed, False
                self._alert(now, f"{move.player}, on his way to table {gone} (gone on without), "
                            f"goes to table {spot.table}, seat {spot.seat}", "PVB 08a(1)",
                            spot.table)
                changed = True
        return changed

    def _decide(self, now: float) -> bool:
        """Breaks and balancing moves (RULES T3), committed where the table that gives the
        players is between hands; the rest waits for the end of its hand."""
        if self._away_from_gone(now):
            return True
        ledger = self.ledger
        # A table the director went on without is out of the plan: its players stay where they
        # were last seen, the other tables break and balance among themselves (go_on_without)
        room = [t for t in seating.seating(self.settings, ledger, self.tables)
                if t.table not in ledger.gone]
        under_way = [m for m in ledger.moves if m.status in ("leaving", "arriving")]
        if not room or any(m.reason == "draw" and m.to.table not in ledger.gone
                           for m in under_way):
            return False  # the draw is still being seated (not at a table gone for good)
        seed = self.new_seed()
        order = [t for t in self.settings.order_of_breaking()
                 if t in ledger.open_tables and t not in ledger.gone]
        decided = plan(room, order, self.settings.balancing, self.random_source(seed))
        changed = False
        # A player carries his chips to his new seat: no move while either table colours up;
        # none to or from a table the tournament goes on without (its seats are unknown)
        colouring = colour_ups.colouring(ledger, self.clock) | set(ledger.gone)
        for brk in decided.breaks:
            # (a break waits until each of its players can go: broken, none may stay behind)
            # and until every player on his way to it has sat down there: broken first, a
            # player still arriving would sit down at a broken table, alone (RULES T3)
            if not self.between_hands(brk.table) or brk.table in colouring or any(
                    m.to.table in colouring for m in decided.moves
                    if m.source.table == brk.table) or any(
                    m.to.table == brk.table for m in under_way):
                return changed
            ledger.open_tables.remove(brk.table)
            ledger.broken.append(brk.table)
            changed = True
        hands = {t: (s.state.hand if s.state else 0) for t, s in self.tables.items()}
        for move in decided.moves:
            if (move.reason == "balance" and not self.between_hands(move.source.table)) or {
                    move.source.table, move.to.table} & colouring:
                break
            self._new_move(move.player, move.source, move.to, self._stack_of(move.player),
                           move.rule, move.reason, now, seed=seed,
                           source_hand=hands.get(move.source.table), sits_out=move.sits_out)
            changed = True
        return changed

    def _stack_of(self, name: str) -> int:
        player = self.ledger.players.get(name)
        return player.stack if player is not None else 0

    def _count_chips(self, now: float, news: set[str]) -> bool:
        """RULES T6, T5: every table between hands holds what it should (`ChipCount`)."""
        changed = False
        for name, seen in sorted(self.tables.items()):
            state = seen.state
            if name not in news or state is None:
                continue
            if state.stage not in ("waiting", "over"):
                changed |= self._colour_up_over(name, state.hand, now)
                continue
            key = (state.hand, tuple(sorted((s, v.player, v.stack)
                                            for s, v in state.seats.items())))
            if key == seen.counted:
                continue
            seen.counted = key
            held = sum(v.stack for v in state.seats.values())
            difference = self.ledger.chips.counted(name, state.hand, held)
            changed = True
            if difference is not None:
                self._alert(now, difference.words(), "RULES T5" if difference.after
                            else "RULES T6", name, state.hand)
        return changed

    def _colour_up_over(self, table: str, hand: int, now: float) -> bool:
        """The table began its first hand since its colour-up (RULES T5): the race is over, its
        stacks as last counted between hands are what it left."""
        chips = self.ledger.chips.tables.get(table)
        pending = chips.colour_up if chips is not None else None
        if pending is None or hand <= pending.hand:
            return False
        difference = self.ledger.chips.end_colour_up(table, hand)
        if difference is not None:
            self._alert(now, difference.words(), "RULES T5", table, hand)
        return True

    def _strangers(self, now: float, news: set[str]) -> bool:
        """A player the tables show who is not in the tournament (or is out): said once."""
        changed = False
        for table, seat, player in seating.strangers(self.ledger, self.tables, news):
            key = f"{table}:{player}"
            if key in self.ledger.strangers:
                continue
            self.ledger.strangers.append(key)
            known = self.ledger.players.get(player)
            why = "is out of the tournament" if known else "is not in the tournament"
            self._alert(now, f"table {table}, seat {seat}: {player} {why}; the floor checks "
                        "the table", "PVB 13", table)
            changed = True
        return changed

    def _finish(self, now: float) -> bool:
        ledger = self.ledger
        if len(ledger.players_in()) != 1 or len(ledger.settled_keys()) < len(
                {o.bust.group() for o in ledger.outs}):
            return False
        ledger.status = "finished"
        ledger.in_time = self.clock is None or self.clock.status != "finished"
        return True

    def _alert(self, now: float, text: str, rule: str | None, table: str | None = None,
               hand: int | None = None) -> None:
        ledger = self.ledger
        ledger.alerts.append(Alert(id=ledger.next_alert, at=now, text=text, rule=rule,
                                   table=table, hand=hand))
        ledger.next_alert += 1
        del ledger.alerts[:-ALERTS_KEPT]
        self.dirty = True

    # ---------------------------------------------------------------- the state

    def state(self) -> PublishedState:
        """The retained ``tournament/state``."""
        settings, ledger = self.settings, self.ledger
        players_in = ledger.players_in()
        seats = seat_lines({n: (ledger.players[n].club, ledger.players[n].spot,
                                ledger.players[n].stack) for n in players_in}, ledger.moves)
        entry = settings.structure.entry
        going = [m for m in ledger.moves if m.status in ("leaving", "arriving")]
        transit = sum(m.stack for m in going if m.status == "arriving") + purchases.owed(ledger)
        in_play = ledger.chips.in_play()
        counted = in_play + ledger.chips.room_difference(transit)
        started = ledger.status != "registration"
        tables = []
        for spec in settings.tables:
            seen = self.tables.get(spec.table)
            state = seen.state if seen else None
            status = ("broken" if spec.table in ledger.broken else "open"
                      if spec.table in ledger.open_tables else "not in use")
            gone = spec.table in ledger.gone
            tables.append(TableLine(table=spec.table, seats=spec.seats,
                                    players=len(state.seats) if state else sum(
                                        1 for p in ledger.players.values() if not p.out
                                        and p.spot is not None and p.spot.table == spec.table),
                                    status=status,
                                    held=bool(state and "seating" in state.holds),
                                    online=bool(seen and seen.online),
                                    missing=status == "open" and state is None, gone=gone))
        done = [m for m in ledger.moves if m.status in ("seated", *seating.FINISHED)]
        return PublishedState(
            name=settings.name, entries=ledger.entries, players_left=len(players_in),
            # The chips the players have: what the tables hold (and on their way), so that a
            # race's chips are counted once handed out, never before (RULES T5)
            average_stack=counted // len(players_in) if started and players_in else None,
            chip_leader=chip_leader(seats),
            prize_pool=self.prize_pool(), currency=entry.currency,
            payouts=payout_lines(self.payout_table()), status=ledger.status,
            winner=players_in[0] if ledger.status == "finished" and len(players_in) == 1
            else None,
            registration_open=self.registration_open(),
            late_registration_ends=settings.structure.late_registration_ends, seed=ledger.seed,
            players=len(ledger.players), balancing=settings.balancing, points=settings.points,
            standings=self.standings(), seats=seats, moves=going + done[-20:], tables=tables,
            chips=ChipLine(in_play=in_play, counted=counted,
                           difference=ledger.chips.room_difference(transit),
                given_back=ledger.chips.given_back)
            if started else None,
            alerts=ledger.alerts[-50:],
            add_on_open=ledger.status == "running" and purchases.add_on_open(settings,
                                                                             self.clock),
            add_on_per_player=entry.add_on.per_player if entry.add_on else None,
            add_ons=purchases.add_ons_taken(ledger),
            rebuy_open=ledger.status == "running" and purchases.rebuy_open(settings, self.clock),
            can_rebuy=purchases.may_rebuy(settings, ledger, self.clock),
            purchases=[p for p in ledger.purchases if p.status == "owed"]
            + [p for p in ledger.purchases if p.status != "owed"][-20:],
            colour_up=ledger.colour_ups[-1] if ledger.colour_ups else None,
            waiting_for=self.waiting_for())

    # ---------------------------------------------------------------- requests to the tables

    def _asks(self, now: float) -> list[Ask]:
        wanted = [*seating.wanted(self.settings, self.ledger, self.tables),
                  *colour_ups.asks(self.ledger, self.tables),
                  *purchases.asks(self.ledger, self.tables)]
        keys = {(a.table, a.key) for a in wanted}
        for key in [k for k in self.asked if k not in keys]:
            del self.asked[key]  # shown, or no longer wanted
        out = []
        for ask in wanted:
            seen = self.tables.get(ask.table)
            if seen is None or not seen.online or seen.state is None:
                continue  # (after a restart: nothing asked before the table's state is in)
            last = self.asked.get((ask.table, ask.key))
            # Again only between hands: during one the table has queued a seat for its end (its
            # state shows him when that hand is over) or refuses to let a player go
            if last is None or (now - last >= self.retry_seconds
                                and seating.between_hands(seen.state)):
                self.asked[(ask.table, ask.key)] = now
                out.append(ask)
                if ask.command == "close":  # once: its effect is not in the table's state
                    self.ledger.closed.append(ask.table)
                    self.dirty = True
        return out


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _players(count: int) -> str:
    return f"{count} player{'' if count == 1 else 's'}"


__all__ = ["COMMANDS", "MISSING_SECONDS", "EliminationData", "Outcome", "TournamentCore"]
