"""The tournament's retained state (``tournament/state``): players, seats, moves, tables, chips,
prizes, standings and alerts, as the floor and the screens show them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.room.tournament import purchases, seating
from controller.room.tournament.view import (
    ChipLine,
    PublishedState,
    TableLine,
    chip_leader,
    payout_lines,
    seat_lines,
)

if TYPE_CHECKING:
    from controller.room.tournament.core import TournamentCore



def published_state(core: TournamentCore) -> PublishedState:
    """The retained ``tournament/state``."""
    settings, ledger = core.settings, core.ledger
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
        seen = core.tables.get(spec.table)
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
        prize_pool=core.prize_pool(), currency=entry.currency,
        payouts=payout_lines(core.payout_table()), status=ledger.status,
        winner=players_in[0] if ledger.status == "finished" and len(players_in) == 1
        else None,
        registration_open=core.registration_open(),
        reentry=entry.reentry,
        late_registration_ends=settings.structure.late_registration_ends, seed=ledger.seed,
        players=len(ledger.players), balancing=settings.balancing, points=settings.points,
        standings=core.standings(), seats=seats, moves=going + done[-20:], tables=tables,
        chips=ChipLine(in_play=in_play, counted=counted,
                       difference=ledger.chips.room_difference(transit),
            given_back=ledger.chips.given_back)
        if started else None,
        alerts=ledger.alerts[-50:],
        add_on_open=ledger.status == "running" and purchases.add_on_open(settings,
                                                                         core.clock),
        add_on_per_player=entry.add_on.per_player if entry.add_on else None,
        add_ons=purchases.add_ons_taken(ledger),
        rebuy_open=ledger.status == "running" and purchases.rebuy_open(settings, core.clock),
        can_rebuy=purchases.may_rebuy(settings, ledger, core.clock),
        purchases=[p for p in ledger.purchases if p.status == "owed"]
        + [p for p in ledger.purchases if p.status != "owed"][-20:],
        colour_up=ledger.colour_ups[-1] if ledger.colour_ups else None,
        waiting_for=core.waiting_for())
