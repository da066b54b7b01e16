"""The floor's commands to the tournament (registration, the draw, re-entries, undoing a wrong
bust, moves counted, going on without a table and breaking one gone for good, add-ons and
rebuys), each a function of the core found through one registry by its arguments' model, so the
type checker follows every one. A command either changes the ledger and says what it did, or
raises `Refused` and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.room.tournament import colour_ups, names, purchases, seating
from controller.room.tournament.balance import plan
from controller.room.tournament.commands import (
    AddOnArgs,
    BreakTableArgs,
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
from controller.room.tournament.draw import Entrant, Refused, draw
from controller.room.tournament.ledger import (
    Player,
    Purchase,
    Undone,
)
from controller.room.tournament.places import group_words

if TYPE_CHECKING:
    from controller.room.tournament.core import TournamentCore

# The rules the floor's commands are refused by (docs/tournament.md, "Refusals")
OVER = "APSA 3.1.2.1"  # a freeze-out is played until one player has every chip
REENTRY = "APSA 3.1.2.7"  # a player who is out enters again, where the tournament offers it
UNDO = "PVB 64a(1)"  # the floor sets a busted player's place
COUNTED = "DFO §2(3)"  # a newcomer's chips are checked at his seat


def _as_registered(core: TournamentCore, args: CommandArgs) -> CommandArgs:
    """Every command but ``register`` names a registered player as registration finds
    him (PVB 13: case and look-alike letters ignored, "gus" is Gus), and answers with his
    name as registered."""
    if isinstance(args, RegisterArgs):
        return args
    for key in ("name", "player"):
        given = getattr(args, key, None)
        if isinstance(given, str):
            found = names.registered_as(given, core.ledger.players)
            return args.model_copy(update={key: found}) if found != given else args
    return args

def register(core: TournamentCore, args: RegisterArgs, by: str, now: float) -> str:
    core.not_finished()
    name, club = args.name, args.club
    alike = names.same_name(name, core.ledger.players)  # (case, look-alike letters)
    known = core.ledger.players[alike] if alike is not None else None
    if known is not None:
        again = (" and out" + (": a new entry is reenter" if core.reentry_open() else
                               "") if known.out else "")
        raise Refused(f"{known.name} is registered already{again}; two players need names "
                      "the tables can tell apart", "PVB 13")
    core.check_registration()
    ledger = core.ledger
    if ledger.status == "running":
        spot, seed = core.late_spot(now)
        ledger.players[name] = Player(name=name, club=club)
        ledger.entries += 1
        core.seat_late(name, spot, seed, "late", now)
        return (f"{name} registered late and draws table {spot.table}, seat {spot.seat} "
                f"with {core.settings.start_stack():,} (RULES T6)")
    ledger.players[name] = Player(name=name, club=club)
    ledger.entries += 1
    of = f" ({club})" if club else ""
    return f"{name}{of} registered: {players_words(len(ledger.players))}"

def reenter(core: TournamentCore, args: ReenterArgs, by: str, now: float) -> str:
    core.not_finished()
    name = args.name
    player = core.ledger.players.get(name)
    if player is None:
        raise Refused(f"{name} is not registered: a first entry is register", "PVB 13")
    if not core.settings.structure.entry.reentry:
        raise Refused(f"the structure {core.settings.structure.name!r} offers no re-entry",
                      REENTRY)
    if not player.out:
        raise Refused(f"{name} is still in the tournament: only a player who is out enters "
                      "again", REENTRY)
    core.check_registration()
    spot, seed = core.late_spot(now)
    ledger = core.ledger
    out = next(o for o in ledger.outs if o.bust.player == name)
    ledger.outs.remove(out)
    ledger.undone.append(Undone(bust=out.bust, by=by, at=now, why="a new entry"))
    player.out = False
    player.entries += 1
    ledger.entries += 1
    core.seat_late(name, spot, seed, "reentry", now)
    return (f"{name} enters again (entry {player.entries}) and draws table {spot.table}, "
            f"seat {spot.seat} with {core.settings.start_stack():,}")

def unregister(core: TournamentCore, args: UnregisterArgs, by: str, now: float) -> str:
    name = args.name
    player = core.registered(name)
    if core.ledger.status != "registration" and player.out:
        raise Refused(f"{name} is out: the draw was made, and a player who went out keeps "
                      "his place in the standings; nothing to unregister", "PVB 12")
    if core.ledger.status != "registration":
        raise Refused(f"{name} has a seat: the draw was made; a player who leaves now is "
                      "blinded off or busts", "PVB 12")
    del core.ledger.players[name]
    core.ledger.entries -= 1
    return f"{name} is no longer registered: {players_words(len(core.ledger.players))}"

def draw_seats(core: TournamentCore, args: DrawArgs, by: str, now: float) -> str:
    ledger = core.ledger
    if ledger.status != "registration":
        raise Refused("the draw was made already", "PVB 08a(1)")
    if len(ledger.players) < 2:
        raise Refused(f"{len(ledger.players)} player(s) registered: a tournament needs two",
                      "PVB 08a(1)")
    seed = core.new_seed() if args.seed is None else args.seed
    entrants = [Entrant(name=p.name, club=p.club) for p in ledger.players.values()]
    spots = draw(entrants, seating.filling_order(core.settings), core.random_source(seed))
    stack = core.settings.start_stack()
    for name, spot in spots.items():
        core.new_move(name, None, spot, stack, "PVB 08a(1)", "draw", now, seed=seed)
    ledger.chips.issue(stack * len(spots))
    used = {s.table for s in spots.values()}
    ledger.open_tables = [t.table for t in core.settings.tables if t.table in used]
    ledger.status = "running"
    ledger.seed = seed
    return (f"the draw (seed {seed}): {len(spots)} players at {len(used)} "
            f"table{'' if len(used) == 1 else 's'} "
            f"({', '.join(ledger.open_tables)}), {stack:,} chips each (RULES T6)")

def undo_bust(core: TournamentCore, args: UndoBustArgs, by: str, now: float) -> str:
    """A wrong elimination taken back (PVB 64a(1): the floor sets a busted player's place).
    He must play on with a seat and chips: one the tables still show with his chips plays
    on there; one who lost his seat gets the chips the floor names (``stack``, issued: the
    chips in play grow by them, RULES T6) and a drawn free seat, as a late registration
    (PVB 08a(1)). Anything short of that is refused."""
    name = args.player
    core.registered(name)
    ledger = core.ledger
    out = next((o for o in ledger.outs if o.bust.player == name), None)
    if out is None:
        raise Refused(f"{name} is not out: there is no elimination to take back",
                      UNDO)
    core.ready(UNDO)  # (where he sits, if anywhere, is the tables' to say)
    where = group_words(out.bust.group())
    why = "a wrong bust, taken back by the floor"
    spot = seating.where(core.tables, name)
    seen = core.tables[spot.table].state if spot is not None else None
    sits = seen.seats[spot.seat].stack if seen is not None and spot is not None else 0
    if spot is not None and sits > 0:
        if args.stack is not None:
            raise Refused(f"{name} still sits at table {spot.table}, seat {spot.seat} with "
                          f"{sits:,} chips: they play on with them; no chips are given "
                          "back (leave out args.stack)", UNDO)
        core.undo(out, by, now, why)
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
    unit = colour_ups.smallest_in_play(core.settings, ledger)
    if args.stack % unit:  # (the words of the table's own `stack` command)
        raise Refused(f"args.stack: {args.stack:,} cannot be made of the chips in play (the "
                      f"smallest is {unit:,}): count the stack again", "RULES T5")
    seat, seed = core.late_spot(now)  # (refused when every seat in the room is taken)
    core.undo(out, by, now, why, stack=args.stack, spot=seat)
    ledger.chips.give_back(args.stack)
    core.new_move(name, None, seat, args.stack, "PVB 08a(1)", "undo", now, seed=seed)
    return (f"{name}'s elimination ({where}) is taken back by {by}: {name} plays on and draws "
            f"table {seat.table}, seat {seat.seat} with {args.stack:,} chips the floor "
            f"gives back, issued: {ledger.chips.in_play():,} chips in play (RULES T6)")

def move_done(core: TournamentCore, args: MoveDoneArgs, by: str, now: float) -> str:
    name = args.player
    player = core.registered(name)
    out = next((o for o in core.ledger.outs if o.bust.player == name), None)
    if player.out and out is not None:
        raise Refused(f"{name} is out ({group_words(out.bust.group())}): there are no "
                      "chips to count, the move is cancelled", COUNTED)
    # The seat he sits at now: a move whose seat he left since is superseded (the latest
    # seated one, should an older journal hold more)
    move = max((m for m in core.ledger.moves if m.player == name and m.status == "seated"),
               key=lambda m: m.id, default=None)
    if move is None:
        going = core.ledger.move_of(name)
        if going is not None and going.status == "arriving":
            raise Refused(f"{name} is on the way to table {going.to.table}, seat "
                          f"{going.to.seat}: the chips are counted once they sit there",
                          COUNTED)
        raise Refused(f"{name} has no move waiting for a chip count", COUNTED)
    move.status = "done"
    return f"{name}'s chips are counted at table {move.to.table}, seat {move.to.seat}"

def export(core: TournamentCore, args: ExportArgs, by: str, now: float) -> str:
    return "the standings are written as CSV and JSON"

def go_on_without(core: TournamentCore, args: GoOnWithoutArgs, by: str, now: float) -> str:
    """The director goes on without a table whose state has not come (its Pi is gone for
    good) or without the clock's: the tournament stops waiting for it. A table gone on
    without keeps its players, counted where the tournament last saw them; no player
    moves to or from it and it is not broken until its state comes, which ends this."""
    ledger = core.ledger
    if ledger.status != "running":
        now_is = "in registration" if ledger.status == "registration" else "over"
        raise Refused(f"the tournament is {now_is}: it waits for no table", "RULES T3")
    if args.clock:
        if not ledger.clock_heard or core.clock is not None:
            raise Refused("the tournament is not waiting for the clock's state", "RULES T3")
        ledger.clock_heard = False  # (heard again, it is followed again)
        return (f"{by}: the tournament goes on without the clock's state; breaks and "
                "late registration follow the clock again when its state comes")
    table = args.table
    assert table is not None
    if table not in ledger.open_tables:
        raise Refused(f"table {table} is not a table in play (in play: "
                      f"{', '.join(ledger.open_tables)})", "RULES T3")
    seen = core.tables.get(table)
    if not core.no_state(table) and seen is not None and seen.online:
        raise Refused(f"table {table} is online and its state is in: the tournament "
                      "follows it", "RULES T3")
    if table not in ledger.gone:
        ledger.gone.append(table)
    there = [p.name for p in ledger.players.values()
             if not p.out and p.spot is not None and p.spot.table == table]
    going = [m.player for m in ledger.moves
             if m.to.table == table and m.status in ("leaving", "arriving")]
    again = (f"; {and_words(going)}, on their way there, are drawn other seats as soon as the "
             "tournament waits for no table (PVB 08a(1))" if going else "")
    stay = (f"its {players_words(len(there))} stay in, where it last saw them; "
            if there else "")
    return (f"{by}: the tournament goes on without table {table}: {stay}no player moves to "
            f"or from it until its state comes (RULES T3){again}")

def break_table(core: TournamentCore, args: BreakTableArgs, by: str, now: float) -> str:
    """The director breaks a table gone on without (its Pi gone for good: the tournament
    cannot break it by itself, nor move anyone from it). Its players are drawn seats at the
    other tables in play as a break draws them (PVB 10(1)), each with the stack the tournament
    last saw him with between hands; they are on their way at once (the table can no longer
    show them leaving), and each move ends when his chips are counted at the new seat
    (DFO §2(3)). Refused, changing nothing, when they would not fit."""
    ledger, table = core.ledger, args.table
    assert table is not None
    if ledger.status != "running":
        raise Refused("only a table of a running tournament is broken", "RULES T3")
    if table not in ledger.gone:
        what = (f"table {table} is in play and the tournament follows it: it breaks tables "
                "itself, by the order of breaking" if table in ledger.open_tables
                else f"table {table} is not a table in play")
        raise Refused(f"{what}; only a table gone on without (go_on_without) is broken by "
                      "the director", "RULES T3")
    core.ready("RULES T3")
    room = [t for t in seating.seating(core.settings, ledger, core.tables)
            if t.table == table or t.table not in ledger.gone]
    leaving = next(t for t in room if t.table == table)
    seed = core.new_seed()
    decided = plan(room, [table], core.settings.balancing, core.random_source(seed))
    if not decided.breaks or decided.breaks[0].table != table:
        free = sum(t.empty() for t in room if t is not leaving)
        raise Refused(f"table {table}'s {players_words(len(leaving.players))} do not fit in "
                      f"the {free} free seats at the other tables in play; nothing was done",
                      "RULES T3")
    drawn = [m for m in decided.moves if m.source.table == table]
    for planned in drawn:
        stack = ledger.players[planned.player].stack  # (as the table last showed it)
        move = core.new_move(planned.player, planned.source, planned.to, stack, planned.rule,
                             planned.reason, now, seed=seed, sits_out=planned.sits_out)
        move.status = "arriving"  # (gone: the table cannot show his seat empty)
        ledger.chips.left(table, stack)
    ledger.gone.remove(table)
    ledger.open_tables.remove(table)
    ledger.broken.append(table)  # (told to close if it ever comes back: `seating.wanted`)
    where = "; ".join(f"{m.player} to table {m.to.table}, seat {m.to.seat}" for m in drawn)
    return (f"{by}: table {table} is broken; its players are drawn new seats (PVB 10(1)) "
            f"with the stacks last seen there, counted again at their new seats (DFO §2(3)): "
            f"{where or 'nobody was left there'}")


def add_on(core: TournamentCore, args: AddOnArgs, by: str, now: float) -> str:
    core.ready(purchases.RULE)
    bought = purchases.add_on(core.settings, core.ledger, core.clock, args.player, by, now,
                              reentry=core.reentry_open())
    return _bought(core, bought)

def rebuy(core: TournamentCore, args: RebuyArgs, by: str, now: float) -> str:
    core.ready(purchases.RULE)
    bought = purchases.rebuy(core.settings, core.ledger, core.clock, args.player, by, now,
                             reentry=core.reentry_open())
    return _bought(core, bought)

def _bought(core: TournamentCore, bought: Purchase) -> str:
    player = core.ledger.players[bought.player]
    where = (f"table {player.spot.table}, seat {player.spot.seat}" if player.spot
             else "their seat")
    price = f"; {bought.price:,} {core.settings.structure.entry.currency} to the prize " \
        f"pool" if bought.price else ""
    return (f"{bought.player} takes the {purchases.WORDS[bought.kind]}: {bought.chips:,} "
            f"chips to their stack at {where}, between hands{price} ({purchases.RULE})")


# Each command's handler, found by its arguments' model (commands.py parses them).
Handler = Callable[["TournamentCore", Any, str, float], str]
HANDLERS: dict[type[CommandArgs], Handler] = {
    RegisterArgs: register, ReenterArgs: reenter, UnregisterArgs: unregister, DrawArgs: draw_seats,
    UndoBustArgs: undo_bust, MoveDoneArgs: move_done, ExportArgs: export,
    GoOnWithoutArgs: go_on_without, AddOnArgs: add_on, RebuyArgs: rebuy,
    BreakTableArgs: break_table,
}


def run(core: TournamentCore, name: str, args: dict[str, Any], by: str, now: float) -> str:
    """Carry out a floor command; returns what it did in the floor's words, or raises
    `Refused` and changes nothing."""
    parsed = _as_registered(core, parse(name, args))  # (a stray argument is refused)
    before = core.ledger.model_copy(deep=True)
    try:
        said = HANDLERS[type(parsed)](core, parsed, by, now)
    except BaseException:
        core.ledger = before
        raise
    core.dirty = True
    return said


def and_words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def players_words(count: int) -> str:
    return f"{count} player{'' if count == 1 else 's'}"
