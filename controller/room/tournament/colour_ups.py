"""The breaks' colour-ups at the tables (RULES T5), pure.

When the clock is on (or past) a break whose structure colours chips up, every table in play is
asked to make the colour-up between hands (``colour_up`` with the chips leaving, the smallest
chip left and the tournament's method: ``race``, APSA 2.1.18 and BPS 2, or ``chip-up``, PVB
15b(1)), once no player is on his way to or from it, and again until its state shows it made.
The table's state then shows the stacks before it, from which the rules bound what may leave
play there (`chips_leaving`); the chip count follows the race within those bounds until the
table's next hand, and says what is beyond them (`ChipCount`).

No player moves to or from a table whose colour-up is still to be made, nor while it races
during the break: a player carries his chips to his new seat, and they must be of one kind
with those there. After the break a racing table gives and takes players again (its stacks
are read after the race), and its colour-up ends with its next hand.
"""

from __future__ import annotations

from typing import Any

from controller.mqtt.messages import ClockState
from controller.room.tournament.chip_count import Difference, PendingColourUp
from controller.room.tournament.ledger import ColourUpDue, Ledger, Settings
from controller.room.tournament.seating import Ask, TableSeen, between_hands
from controller.session.colour_up import chips_leaving


def due(settings: Settings, ledger: Ledger, clock: ClockState | None) -> bool:
    """The colour-ups of every break the clock is on or past (a tournament away during one
    still has its tables make it: a stack in chips of the unit already is left as it is)."""
    if clock is None or ledger.status != "running" or clock.status in (None, "not_started"):
        return False
    structure = settings.structure
    changed = False
    known = {d.after_level for d in ledger.colour_ups}
    for brk in structure.breaks:
        if not brk.colour_up or brk.after_level in known or brk.after_level >= clock.level:
            continue
        ledger.colour_ups.append(ColourUpDue(
            ref=f"colour-up:{brk.after_level}", after_level=brk.after_level,
            chips=list(brk.colour_up), unit=structure.in_play_after(brk.after_level)[0],
            method=settings.colour_up, tables={t: "due" for t in ledger.open_tables}))
        changed = True
    return changed


def smallest_in_play(settings: Settings, ledger: Ledger) -> int:
    """The smallest chip in play (RULES T5): the structure's smallest, or once a break's
    colour-up is due, the smallest it leaves (its unit). Every stack is made of it."""
    last = max((d.after_level for d in ledger.colour_ups), default=0)
    return settings.structure.in_play_after(last)[0]


def on_its_break(up: ColourUpDue, clock: ClockState | None) -> bool:
    return clock is not None and clock.on_break and clock.level == up.after_level + 1


def taken(ledger: Ledger, tables: dict[str, TableSeen]) -> tuple[bool, list[Difference]]:
    """Tables whose state shows the colour-up made: their chip count follows the race, within
    what the rules let leave play there (the differences of an earlier race that this one
    ended). A table out of play has nothing to colour up."""
    changed = False
    differences = []
    for up in ledger.colour_ups:
        for table, status in up.tables.items():
            if status != "due":
                continue
            seen = tables.get(table)
            state = seen.state if seen else None
            if table not in ledger.open_tables or (state is not None and not state.seats
                                                   and table in ledger.broken):
                up.tables[table] = "done"
                changed = True
                continue
            if state is None or up.ref not in state.stack_refs:
                continue
            view = state.colour_up
            words = f"the colour-up at the break after level {up.after_level}"
            if view is not None and view.ref == up.ref:
                least, most = chips_leaving(view.before, view.unit, view.method)
                pending = PendingColourUp(ref=up.ref, hand=view.hand, least=least, most=most,
                                          words=words)
            else:  # made while the tournament was away: whatever left is taken
                pending = PendingColourUp(ref=up.ref, hand=state.hand, words=words)
            difference = ledger.chips.colouring(table, pending)
            if difference is not None:
                differences.append(difference)
            up.tables[table] = "racing"
            changed = True
    return changed, differences


def ended(ledger: Ledger) -> list[Difference]:
    """Racing tables whose colour-up the chip count has ended (a hand since), and broken
    tables that race no more: done; the differences found at the end."""
    differences = []
    for up in ledger.colour_ups:
        for table, status in up.tables.items():
            if status != "racing":
                continue
            chips = ledger.chips.tables.get(table)
            pending = chips.colour_up if chips is not None else None
            if pending is None or pending.ref != up.ref:
                up.tables[table] = "done"
            elif table in ledger.broken:
                difference = ledger.chips.end_colour_up(table)
                if difference is not None:
                    differences.append(difference)
                up.tables[table] = "done"
    return differences


def colouring(ledger: Ledger, clock: ClockState | None) -> set[str]:
    """Tables no player moves to or from: their colour-up is still to be made, or they race
    during the break."""
    out = set()
    for up in ledger.colour_ups:
        for table, status in up.tables.items():
            if status == "due" or (status == "racing" and on_its_break(up, clock)):
                out.add(table)
    return out


def asks(ledger: Ledger, tables: dict[str, TableSeen]) -> list[Ask]:
    """The colour-ups still to be made, to tables between hands that no player is on his way
    to or from."""
    moving = {t for m in ledger.moves if m.status in ("leaving", "arriving")
              for t in (m.to.table, m.source.table if m.source else None) if t}
    out = []
    for up in ledger.colour_ups:
        for table, status in up.tables.items():
            seen = tables.get(table)
            if status != "due" or table in moving or seen is None \
                    or not between_hands(seen.state):
                continue
            args: dict[str, Any] = {"chips": up.chips, "unit": up.unit, "method": up.method,
                                    "ref": up.ref}
            out.append(Ask(table, "colour_up", args, f"colour_up:{up.ref}"))
    return out


__all__ = ["asks", "colouring", "due", "ended", "on_its_break", "smallest_in_play", "taken"]
