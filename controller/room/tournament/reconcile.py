"""What follows from everything heard: moves that progressed, places that can be given, breaks
and balancing moves, the chip count, alerts, and every request the tables still need (each sent
again every ``retry_seconds`` until their states show it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.room.tournament import colour_ups, purchases, seating
from controller.room.tournament.balance import plan
from controller.room.tournament.draw import Refused
from controller.room.tournament.ledger import (
    Alert,
    Out,
)
from controller.room.tournament.places import GroupKey
from controller.room.tournament.seating import Ask

if TYPE_CHECKING:
    from controller.room.tournament.core import TournamentCore

# An open table's state (or the clock's) that has not come this long after the tournament
# started is named on the floor (it still waits for it: the director may go on without it)
MISSING_SECONDS = 10.0


@dataclass
class Outcome:
    asks: list[Ask] = field(default_factory=list)
    save: bool = False
    alerts: list[Alert] = field(default_factory=list)
    finished: bool = False


def reconcile(core: TournamentCore, now: float) -> Outcome:
    """Moves that progressed, places that can be given, new moves and breaks, the chip
    count, and every request the tables still need (each sent again every
    ``retry_seconds`` until their states show it)."""
    outcome = Outcome()
    before_alerts = core.ledger.next_alert
    changed = _back(core, now)
    changed |= _settle(core, )
    if _waiting(core, now):
        # Nothing follows from a partial room: a table not heard yet is not an empty table,
        # and a break's guard needs the clock. Its news waits (RULES T3, T5).
        if changed or core.dirty:
            outcome.save, core.dirty = True, False
        outcome.alerts = [a for a in core.ledger.alerts if a.id >= before_alerts]
        return outcome
    news, core.news = core.news, set()
    changed |= seating.follow_moves(core.settings, core.ledger, core.tables, news)
    changed |= seating.follow_players(core.ledger, core.tables, news)
    changed |= _chips_changed(core, now)
    changed |= _strangers(core, now, news)
    if core.ledger.status == "running":
        changed |= _decide(core, now)
        changed |= _count_chips(core, now, news)
        for difference in colour_ups.ended(core.ledger):
            core.alert(now, difference.words(), "RULES T5", difference.table,
                        difference.hand)
            changed = True
        changed |= _finish(core, now)
    if changed or core.dirty:
        outcome.save = True
        core.dirty = False
    outcome.alerts = [a for a in core.ledger.alerts if a.id >= before_alerts]
    outcome.finished = core.ledger.status == "finished" and changed
    outcome.asks = _asks(core, now)
    return outcome

def _waiting(core: TournamentCore, now: float) -> bool:
    """Whether the tournament waits (`waiting_for`); what it has waited for too long is
    named once on the floor, with what the director can do."""
    waiting = core.waiting_for()
    if not waiting:
        core.waiting_since = None
        return False
    if core.waiting_since is None:
        core.waiting_since = now
    elif now - core.waiting_since >= MISSING_SECONDS:
        for what in waiting:
            if what in core.missing_said:
                continue
            core.missing_said.add(what)
            table = next((t for t in core.missing_tables()
                          if what == f"table {t}'s state"), None)
            fix = (f"the floor checks table {table} (powered, online), or if it is gone "
                   f"for good tells the tournament to go on without it (go_on_without, "
                   f"args.table {table!r})" if table is not None else
                   "the floor checks the clock service, or tells the tournament to go on "
                   "without it (go_on_without, args.clock true)")
            core.alert(now, f"{what} has not come {now - core.waiting_since:.0f} s "
                        "after the tournament started: it waits for it (no seat, move, "
                        f"break or chip count until then); {fix}", "RULES T3", table)
    return True

def _back(core: TournamentCore, now: float) -> bool:
    """A table gone on without that is back after all (its state in, and online):
    followed again."""
    changed = False
    for table in [t for t in core.ledger.gone if not core.no_state(t)
                  and core.tables[t].online]:
        core.ledger.gone.remove(table)
        core.alert(now, f"table {table}'s state came: the tournament follows it again",
                    "RULES T3", table)
        changed = True
    return changed

def _chips_changed(core: TournamentCore, now: float) -> bool:
    """What changes the chips a table must hold without a hand, before they are counted:
    chips bought that reached a stack (or are void, the player out first), and colour-ups
    due or made (RULES T5)."""
    ledger = core.ledger
    changed = False
    before = [p.status for p in ledger.purchases]
    for void in purchases.follow(ledger, core.tables):
        price = f"; {void.price:,} {core.settings.structure.entry.currency} back" \
            if void.price else ""
        out = next((o.bust for o in ledger.outs if o.bust.player == void.player), None)
        where = f" (table {out.table}, hand {out.hand})" if out is not None else ""
        core.alert(now, f"{void.player} went out{where} before the chips of their "
                    f"{purchases.WORDS[void.kind]} reached the table: it is void{price}",
                    purchases.RULE, out.table if out else None, out.hand if out else None)
    changed |= before != [p.status for p in ledger.purchases]
    changed |= colour_ups.due(core.settings, ledger, core.clock)
    taken, differences = colour_ups.taken(ledger, core.tables)
    for difference in differences:
        core.alert(now, difference.words(), "RULES T5", difference.table, difference.hand)
    return changed or taken

def _settle(core: TournamentCore) -> bool:
    """Groups whose places can be given: a hand once everyone out in it is heard (or its
    record came); a hand-for-hand round once every table of it has sealed its hand of the
    round (PVB 64b(3)), or can no longer deal it (`_cannot_deal`)."""
    ledger = core.ledger
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
            owed = tables - set(ledger.round_records.get(key[1], []))
            done = all(_cannot_deal(core, t, key[1]) for t in owed)
        else:
            expected = {name for o in members for name in o.busted}
            heard = {o.bust.player for o in members}
            done = bool(expected) and expected <= heard
        if done:
            ledger.settled.append(list(key))
            changed = True
    return changed

def _cannot_deal(core: TournamentCore, table: str, number: int) -> bool:
    """A table released for hand-for-hand round ``number`` that can no longer deal its hand:
    between hands, not having played the round, with fewer than two players with chips (its
    players left it: broken, PVB 10). The clock waits for no such table (PVB 35a), and no
    record of the round will come from it: the round's places are given from the records
    that came (PVB 64b(3)), as the offline standings give them. A table owing the round is
    not broken (`TournamentCore.owes_round`); this is what is left if it was all the same."""
    seen = core.tables.get(table)
    state = seen.state if seen is not None else None
    return (state is not None and state.stage in ("waiting", "over")
            and state.played_round != number
            and sum(1 for view in state.seats.values() if view.stack > 0) < 2)

def _away_from_gone(core: TournamentCore, now: float) -> bool:
    """Players on their way to a table gone on without can never sit there (the draw's or
    a late seat, never seen): each is drawn a free seat elsewhere, as a late seat is (PVB
    08a(1)), with his stack; a balancing move there not begun is dropped (decided again
    among the tables in play). Without a free seat in the room he waits, and the floor is
    told once."""
    ledger = core.ledger
    changed = False
    for move in [m for m in ledger.moves if m.to.table in ledger.gone]:
        if move.status == "leaving":
            ledger.moves.remove(move)
            changed = True
        elif move.status == "arriving":
            gone = move.to.table
            try:
                spot, seed = core.late_spot(now)
            except Refused as refused:
                if move.id not in ledger.stranded:
                    ledger.stranded.append(move.id)
                    core.alert(now, f"{move.player}, on his way to table {gone} (gone on "
                                f"without), has no seat to go to: {refused.reason}",
                                "PVB 08a(1)", gone)
                    changed = True
                continue
            move.to, move.seed, move.sits_out = spot, seed, False
            core.alert(now, f"{move.player}, on his way to table {gone} (gone on without), "
                        f"goes to table {spot.table}, seat {spot.seat}", "PVB 08a(1)",
                        spot.table)
            changed = True
    return changed

def _decide(core: TournamentCore, now: float) -> bool:
    """Breaks and balancing moves (RULES T3), committed where the table that gives the
    players is between hands; the rest waits for the end of its hand."""
    if _away_from_gone(core, now):
        return True
    ledger = core.ledger
    # A table the director went on without is out of the plan: its players stay where they
    # were last seen, the other tables break and balance among themselves (go_on_without)
    room = [t for t in seating.seating(core.settings, ledger, core.tables)
            if t.table not in ledger.gone]
    under_way = [m for m in ledger.moves if m.status in ("leaving", "arriving")]
    if not room or any(m.reason == "draw" and m.to.table not in ledger.gone
                       for m in under_way):
        return False  # the draw is still being seated (not at a table gone for good)
    seed = core.new_seed()
    order = [t for t in core.settings.order_of_breaking()
             if t in ledger.open_tables and t not in ledger.gone]
    decided = plan(room, order, core.settings.balancing, core.random_source(seed))
    changed = False
    # A player carries his chips to his new seat: no move while either table colours up;
    # none to or from a table the tournament goes on without (its seats are unknown)
    colouring = colour_ups.colouring(ledger, core.clock) | set(ledger.gone)
    for brk in decided.breaks:
        # (a break waits until each of its players can go: broken, none may stay behind)
        # and until every player on his way to it has sat down there: broken first, a
        # player still arriving would sit down at a broken table, alone (RULES T3)
        if not core.between_hands(brk.table) or brk.table in colouring or any(
                m.to.table in colouring for m in decided.moves
                if m.source.table == brk.table) or any(
                m.to.table == brk.table for m in under_way):
            return changed
        ledger.open_tables.remove(brk.table)
        ledger.broken.append(brk.table)
        changed = True
    hands = {t: (s.state.hand if s.state else 0) for t, s in core.tables.items()}
    for move in decided.moves:
        if (move.reason == "balance" and not core.between_hands(move.source.table)) or {
                move.source.table, move.to.table} & colouring:
            break
        core.new_move(move.player, move.source, move.to, _stack_of(core, move.player),
                       move.rule, move.reason, now, seed=seed,
                       source_hand=hands.get(move.source.table), sits_out=move.sits_out)
        changed = True
    return changed

def _stack_of(core: TournamentCore, name: str) -> int:
    player = core.ledger.players.get(name)
    return player.stack if player is not None else 0

def _count_chips(core: TournamentCore, now: float, news: set[str]) -> bool:
    """RULES T6, T5: every table between hands holds what it should (`ChipCount`)."""
    changed = False
    for name, seen in sorted(core.tables.items()):
        state = seen.state
        if name not in news or state is None:
            continue
        if state.stage not in ("waiting", "over"):
            changed |= _colour_up_over(core, name, state.hand, now)
            continue
        key = (state.hand, tuple(sorted((s, v.player, v.stack)
                                        for s, v in state.seats.items())))
        if key == seen.counted:
            continue
        seen.counted = key
        held = sum(v.stack for v in state.seats.values())
        difference = core.ledger.chips.counted(name, state.hand, held)
        changed = True
        if difference is not None:
            core.alert(now, difference.words(), "RULES T5" if difference.after
                        else "RULES T6", name, state.hand)
    return changed

def _colour_up_over(core: TournamentCore, table: str, hand: int, now: float) -> bool:
    """The table began its first hand since its colour-up (RULES T5): the race is over, its
    stacks as last counted between hands are what it left."""
    chips = core.ledger.chips.tables.get(table)
    pending = chips.colour_up if chips is not None else None
    if pending is None or hand <= pending.hand:
        return False
    difference = core.ledger.chips.end_colour_up(table, hand)
    if difference is not None:
        core.alert(now, difference.words(), "RULES T5", table, hand)
    return True

def _strangers(core: TournamentCore, now: float, news: set[str]) -> bool:
    """A player the tables show who is not in the tournament (or is out): said once."""
    changed = False
    for table, seat, player in seating.strangers(core.ledger, core.tables, news):
        key = f"{table}:{player}"
        if key in core.ledger.strangers:
            continue
        core.ledger.strangers.append(key)
        known = core.ledger.players.get(player)
        why = "is out of the tournament" if known else "is not in the tournament"
        core.alert(now, f"table {table}, seat {seat}: {player} {why}; the floor checks "
                    "the table", "PVB 13", table)
        changed = True
    return changed

def _finish(core: TournamentCore, now: float) -> bool:
    """One player has every chip (APSA 3.1.2.1), and every place is given: a place still
    pending (a hand-for-hand round whose records have not all come, PVB 64b(3)) pays nothing,
    so the tournament is not over before it is settled. (``settled`` also holds every hand
    sealed without a bust: it is compared group by group, not counted.)"""
    ledger = core.ledger
    if len(ledger.players_in()) != 1 or not {
            o.bust.group() for o in ledger.outs} <= ledger.settled_keys():
        return False
    ledger.status = "finished"
    ledger.in_time = core.clock is None or core.clock.status != "finished"
    return True

def _asks(core: TournamentCore, now: float) -> list[Ask]:
    wanted = [*seating.wanted(core.settings, core.ledger, core.tables),
              *colour_ups.asks(core.ledger, core.tables),
              *purchases.asks(core.ledger, core.tables)]
    keys = {(a.table, a.key) for a in wanted}
    for key in [k for k in core.asked if k not in keys]:
        del core.asked[key]  # shown, or no longer wanted
    out = []
    for ask in wanted:
        seen = core.tables.get(ask.table)
        if seen is None or not seen.online or seen.state is None:
            continue  # (after a restart: nothing asked before the table's state is in)
        last = core.asked.get((ask.table, ask.key))
        # Again only between hands: during one the table has queued a seat for its end (its
        # state shows him when that hand is over) or refuses to let a player go
        if last is None or (now - last >= core.retry_seconds
                            and seating.between_hands(seen.state)):
            core.asked[(ask.table, ask.key)] = now
            out.append(ask)
            if ask.command == "close":  # once: its effect is not in the table's state
                core.ledger.closed.append(ask.table)
                core.dirty = True
    return out
