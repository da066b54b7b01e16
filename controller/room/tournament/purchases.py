"""Chips bought after the entry (pure): add-ons and rebuys, when the structure offers them
(``[entry.add_on]``, ``[entry.rebuy]``; PVB 20(1) allows neither in the PVB's own tournaments,
so a structure offers them only by saying so).

- **Add-on**: every player still in, at the break after the structure's level (by default the
  one late registration ends with), as often as it allows (once by default).
- **Rebuy**: a player still in whose stack is at most the structure's limit (by default the
  start stack), until the end of its level (by default late registration's), as often as it
  allows. A player who is out enters again instead (re-entry, a new seat).

A purchase is issued at once (the chips in play and the prize pool grow; the payout bracket
still counts entries) and reaches the player's stack at their table between hands: a ``stack``
request with the purchase's ref, asked again until the table's state shows the ref. If they go
out before, it is void: the chips were never in play and the price goes back.
"""

from __future__ import annotations

from typing import Any

from controller.mqtt.messages import ClockState
from controller.room.clock.structure import AddOnSpec, RebuySpec
from controller.room.tournament.draw import Refused
from controller.room.tournament.ledger import Ledger, Purchase, PurchaseKind, Settings
from controller.room.tournament.seating import Ask, TableSeen, between_hands, where

RULE = "RULES T6"  # chips issued to a player; the chip count follows them
NOT_OFFERED = "PVB 20(1)"  # no re-buys and no add-ons in the PVB's own tournaments
WORDS: dict[PurchaseKind, str] = {"add_on": "add-on", "rebuy": "rebuy"}


def taken(ledger: Ledger, player: str, kind: PurchaseKind) -> int:
    return sum(1 for p in ledger.purchases if p.player == player and p.kind == kind
               and p.status != "void")


def add_ons_taken(ledger: Ledger) -> dict[str, int]:
    """Add-ons each player has taken (void ones not counted): the page offers no more."""
    count: dict[str, int] = {}
    for p in ledger.purchases:
        if p.kind == "add_on" and p.status != "void":
            count[p.player] = count.get(p.player, 0) + 1
    return count


def add_on_open(settings: Settings, clock: ClockState | None) -> bool:
    """During the break after the structure's add-on level (the clock's state names the level
    that follows a break)."""
    level = settings.structure.add_on_level()
    return level is not None and clock is not None and clock.on_break and \
        clock.level == level + 1


def rebuy_open(settings: Settings, clock: ClockState | None) -> bool:
    """Until the end of the structure's rebuy level (before the clock starts, always)."""
    until = settings.structure.rebuy_until()
    if until is None:
        return False
    if clock is None or clock.status in (None, "not_started"):
        return True
    return clock.level <= until and clock.status != "finished"


def add_on(settings: Settings, ledger: Ledger, clock: ClockState | None, name: str, by: str,
           now: float, *, reentry: bool | None = None) -> Purchase:
    """An add-on for ``name``, or `Refused` saying why not (``reentry``: whether a player who is
    out may enter again now, None if the structure offers no re-entry; the refusal of one who is
    out says so)."""
    spec = settings.structure.entry.add_on
    if spec is None:
        raise Refused(f"the structure {settings.structure.name!r} offers no add-on (none in "
                      "the PVB's tournaments)", NOT_OFFERED)
    _playing(ledger, name, "add-on", reentry)
    level = settings.structure.add_on_level()
    if not add_on_open(settings, clock):
        raise Refused(_add_on_window(level, clock), RULE)
    if taken(ledger, name, "add_on") >= spec.per_player:
        times = "their add-on" if spec.per_player == 1 else f"{spec.per_player} add-ons"
        raise Refused(f"{name} has taken {times} (the structure allows {spec.per_player})",
                      RULE)
    return _buy(ledger, "add_on", name, spec, by, now)


def rebuy(settings: Settings, ledger: Ledger, clock: ClockState | None, name: str, by: str,
          now: float, *, reentry: bool | None = None) -> Purchase:
    """A rebuy for ``name``, or `Refused` saying why not (``reentry`` as `add_on`'s)."""
    spec = settings.structure.entry.rebuy
    if spec is None:
        raise Refused(f"the structure {settings.structure.name!r} offers no rebuy (none in "
                      "the PVB's tournaments)", NOT_OFFERED)
    _playing(ledger, name, "rebuy", reentry)
    if not rebuy_open(settings, clock):
        raise Refused(f"rebuys closed at the end of level {settings.structure.rebuy_until()} "
                      "(the structure's entry.rebuy)", RULE)
    refused = _rebuy_refused(settings, spec, name, taken(ledger, name, "rebuy"),
                             stack_of(ledger, name))
    if refused is not None:
        raise refused
    return _buy(ledger, "rebuy", name, spec, by, now)


def may_rebuy(settings: Settings, ledger: Ledger, clock: ClockState | None) -> list[str]:
    """The players a rebuy is sold to now (the page offers it to them alone): the checks of
    `rebuy`, every player still in at once."""
    spec = settings.structure.entry.rebuy
    if spec is None or ledger.status != "running" or not rebuy_open(settings, clock):
        return []
    counts: dict[str, int] = {}
    for p in ledger.purchases:
        if p.kind == "rebuy" and p.status != "void":
            counts[p.player] = counts.get(p.player, 0) + 1
    stacks = stacks_of(ledger)
    return [name for name in ledger.players_in()
            if _rebuy_refused(settings, spec, name, counts.get(name, 0), stacks[name]) is None]


def _rebuy_refused(settings: Settings, spec: RebuySpec, name: str, rebuys: int,
                   stack: int) -> Refused | None:
    """Why a player still in, during the rebuy period, who has taken ``rebuys`` and has
    ``stack`` (`stack_of`) may not rebuy; None: they may."""
    if spec.at_most is not None and rebuys >= spec.at_most:
        return Refused(f"{name} has taken {spec.at_most} rebuy(s), all the structure allows",
                       RULE)
    limit = spec.below or settings.start_stack()
    if stack > limit:
        return Refused(f"{name} has {stack:,} chips: a rebuy while the stack is at most "
                       f"{limit:,}", RULE)
    return None


def stack_of(ledger: Ledger, name: str) -> int:
    """A player's stack as the tables last showed it between hands (or as they carry it to a
    new seat), with the chips they bought that have not reached it."""
    return stacks_of(ledger, [name])[name]


def stacks_of(ledger: Ledger, names: list[str] | None = None) -> dict[str, int]:
    """`stack_of` for ``names`` (by default every player still in), in one pass over the
    moves and purchases."""
    wanted = ledger.players_in() if names is None else names
    out = {name: ledger.players[name].stack for name in wanted}
    moving: set[str] = set()
    for m in ledger.moves:  # (the first under way, as `Ledger.move_of`)
        if m.player in out and m.player not in moving and m.status in ("leaving", "arriving"):
            out[m.player] = m.stack
            moving.add(m.player)
    for p in ledger.purchases:
        if p.player in out and p.status == "owed":
            out[p.player] += p.chips
    return out


def _playing(ledger: Ledger, name: str, what: str, reentry: bool | None) -> None:
    if ledger.status != "running":
        raise Refused(f"no {what} before the draw or after the end: chips are bought while "
                      "the tournament runs", RULE)
    player = ledger.players.get(name)
    if player is None:
        raise Refused(f"{name} is not registered", "PVB 13")
    if player.out:
        again = {True: ": a new entry is reenter", False: " (re-entry closed with late "
                 "registration)", None: ""}[reentry]
        raise Refused(f"{name} is out: chips are bought by a player still in{again}", RULE)


def _add_on_window(level: int | None, clock: ClockState | None) -> str:
    when = f"the add-on is taken at the break after level {level}"
    if clock is None or clock.status in (None, "not_started"):
        return f"{when}; the clock has not started"
    if level is not None and (clock.level > level + 1 or (clock.level == level + 1
                              and not clock.on_break)):
        return f"{when}, which is over"
    return f"{when}; the clock is at level {clock.level}"


def _buy(ledger: Ledger, kind: PurchaseKind, name: str, spec: AddOnSpec | RebuySpec, by: str,
         now: float) -> Purchase:
    purchase = Purchase(id=ledger.next_purchase, kind=kind, player=name, chips=spec.chips,
                        price=spec.price, by=by, at=now)
    ledger.next_purchase += 1
    ledger.purchases.append(purchase)
    ledger.chips.issue(spec.chips)
    return purchase


def follow(ledger: Ledger, tables: dict[str, TableSeen]) -> list[Purchase]:
    """Purchases the tables' states show added (the chip count expects them there), and those
    void because the player went out first (returned, for the floor)."""
    voided = []
    for purchase in ledger.purchases:
        if purchase.status != "owed":
            continue
        table = next((name for name, seen in sorted(tables.items()) if seen.state is not None
                      and purchase.ref in seen.state.stack_refs), None)
        if table is not None:
            purchase.status, purchase.table = "given", table
            ledger.chips.arrived(table, purchase.chips)
        elif ledger.players[purchase.player].out:
            purchase.status = "void"
            ledger.chips.withdraw(purchase.chips)
            voided.append(purchase)
    return voided


def owed(ledger: Ledger) -> int:
    """Chips sold that have not reached a table: on their way, for the room's count."""
    return sum(p.chips for p in ledger.purchases if p.status == "owed")


def prices(ledger: Ledger) -> int:
    """What add-ons and rebuys added to the prize pool."""
    return sum(p.price for p in ledger.purchases if p.status != "void")


def asks(ledger: Ledger, tables: dict[str, TableSeen]) -> list[Ask]:
    """The chips still owed, to the tables where their players sit, between hands."""
    out = []
    for purchase in ledger.purchases:
        if purchase.status != "owed" or ledger.move_of(purchase.player) is not None:
            continue
        spot = where(tables, purchase.player)
        if spot is None or not between_hands(tables[spot.table].state):
            continue
        args: dict[str, Any] = {"seat": spot.seat, "player": purchase.player,
                                "add": purchase.chips, "ref": purchase.ref,
                                "reason": WORDS[purchase.kind], "rule": RULE}
        out.append(Ask(spot.table, "stack", args, f"stack:{purchase.ref}"))
    return out


__all__ = ["NOT_OFFERED", "RULE", "WORDS", "add_on", "add_on_open", "asks", "follow", "may_rebuy",
           "owed", "prices", "rebuy", "rebuy_open", "stack_of", "stacks_of", "taken"]
