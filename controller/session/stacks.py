"""A seat's stack changed between hands, from the tournament or the floor (never from a hand):
chips bought (an add-on, a rebuy), a stack counted by hand, and the colour-up with its chip race
(RULES T5). Over MQTT ``table/<id>/cmd/stack`` and ``cmd/colour_up``; the broker lets only the
floor and the tournament send them.

Both are made once per ``ref`` (the requester's key, shown in the state's ``stack_refs``): the
tournament asks again until the table's state shows its change, and a change made already is
not made twice, whatever the delivery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.table_play import SetStack
from controller.events import CommandEvent
from controller.session import colour_up as rules
from controller.session.model import STACK_REFS_KEPT, Refused, SessionSnapshot
from controller.session.parts import Core

if TYPE_CHECKING:
    from controller.session.table_stakes import TableStakes

MAX_CHIPS = 10**9
BETWEEN_HANDS = "CG Table Stake"  # a stake grows between hands, never during one


class StackCore(Core, Protocol):
    """What the stack commands read of the core beyond every part's view: the table stakes
    (a cash player with no chips buys in again)."""

    @property
    def stakes(self) -> TableStakes: ...


class StackCommands:
    """``stack`` and ``colour_up``, and the race's readings on the seats' zones. Its own state,
    kept in the snapshot: the last colour-up (``colour_up``, its race open until the next hand)
    and the refs of the changes made (``stack_refs``)."""

    def __init__(self, core: StackCore, snapshot: SessionSnapshot) -> None:
        self.core = core
        self.colour_up = snapshot.colour_up
        self.stack_refs = list(snapshot.stack_refs)

    def snapshot_fields(self) -> dict[str, Any]:
        return {"colour_up": self.colour_up, "stack_refs": list(self.stack_refs)}

    def cmd_stack(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """Chips added to a seat's stack (``add``: an add-on or rebuy the tournament sold) or
        its stack as counted (``stack``: the floor's count, a race a table without chip readers
        made), for the player named only, between hands only."""
        seat = self.core._seat_arg(args, "stack")
        player = args.get("player")
        add, stack = args.get("add"), args.get("stack")
        if (add is None) == (stack is None) or not _chips(add if stack is None else stack):
            raise Refused("stack: args.add (chips added: an add-on, a rebuy) or args.stack (the "
                          f"stack as counted), a whole number of chips from 1 to {MAX_CHIPS:,}",
                          "DFO")
        ref = _ref(args)
        if ref is not None and ref in self.stack_refs:
            self.core._say("seat", f"seat {seat}: {ref} was made already; nothing changes",
                           seat=seat)
            return False
        current = self.core.table.seats.get(seat)
        if current is None or current.player != player:
            sits = f"{current.player} sits there" if current else "it is empty"
            raise Refused(f"stack: seat {seat} is not {player}'s ({sits})", "PVB 09")
        self._no_hand(f"seat {seat}: {player}'s stack changes between hands")
        was = current.stack
        new = was + add if add is not None else stack
        assert isinstance(new, int)
        # A stack is made of the chips in play (RULES T5): after a colour-up, of its unit
        unit = self.colour_up.unit if self.colour_up is not None else \
            self.core.table.level.smallest_chip
        if stack is not None and new % unit:
            raise Refused(f"stack: {new:,} cannot be made of the chips in play (the smallest is "
                          f"{unit:,}): count the stack again", "RULES T5")
        limits = self.core.config.buy_in
        if self.core.profile.cash and was == 0:  # no chips: a buy-in again (CG Buy-in)
            refusal = self.core.stakes.rebuy_refusal(seat, str(player), new)
            if refusal is not None:
                raise Refused(*refusal)
        elif add is not None and limits is not None and limits.max is not None \
                and new > limits.max:  # a top-up goes to the maximum buy-in at most
            raise Refused(f"stack: seat {seat}: {player} tops up to {new:,}: this table's "
                          f"maximum buy-in is {limits.max:,}", "CG Limits")
        rule = str(args.get("rule", ""))[:40] or "DFO"
        reason = str(args.get("reason", ""))[:120]
        self.core.table.apply(SetStack(seat=seat, stack=new))
        self._made(ref)
        up = self.colour_up
        if up is not None:
            self.colour_up = (rules.chips_added(up, seat, add) if add is not None
                              else rules.counted_by_hand(up, seat, new))
        if add is not None:
            text = f"seat {seat}: {player} gets {add:,} chips ({reason or 'chips added'}): " \
                f"{new:,} (by {by})"
        else:
            text = f"seat {seat}: {player}'s stack is {new:,} as counted, was {was:,} " \
                f"({reason or 'a count'}; by {by})"
        self.core._say("decision", text, rule=rule, seat=seat, player=player, stack=new, was=was,
                       ref=ref, by=by)
        return True

    def cmd_colour_up(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """The ``chips`` leave play (RULES T5): every stack keeps what changes into chips of
        the ``unit`` (the smallest chip left in play); the leftovers are raced for (``race``:
        APSA 2.1.18, BPS 2) or each becomes one chip of the unit (``chip-up``: PVB 15b(1)).
        Nobody is eliminated by it (PVB 15b(2)). A racer's stack read on his zone afterwards
        says whether he won a chip; the race is over when the next hand begins."""
        chips, unit = args.get("chips"), args.get("unit")
        method = args.get("method", "race")
        if not isinstance(chips, list) or not 0 < len(chips) <= 10 or not all(
                _chips(c) for c in chips) or not _chips(unit) or unit <= max(chips):
            raise Refused("colour_up: args.chips (the denominations leaving play) and args.unit "
                          "(the smallest chip left in play, larger than those)", "PVB 15b(1)")
        if method not in rules.COLOUR_UP_METHODS:
            raise Refused(f"colour_up: args.method is {' or '.join(rules.COLOUR_UP_METHODS)}, "
                          f"not {method!r}", "RULES T5")
        ref = _ref(args) or f"colour-up:{'-'.join(map(str, sorted(chips)))}"
        if ref in self.stack_refs:
            self.core._say("seat", f"{ref} was made already; nothing changes")
            return False
        self._no_hand("the chips colour up between hands")
        assert isinstance(unit, int)
        self.close_colour_up()
        up = rules.colour_up(ref, chips, unit, method, self.core.table.hand_number, {
            seat: (s.player, s.stack) for seat, s in self.core.table.seats.items() if s.stack > 0})
        for seat, stack in up.stacks().items():
            self.core.table.apply(SetStack(seat=seat, stack=stack))
        self.colour_up = up
        self._made(ref)
        self.core._say("decision", f"colour-up ({by}): {rules.race_words(up)}", rule=up.rule,
                       ref=ref, chips=up.chips, unit=unit, method=method, race=up.race_chips)
        return True

    def race_reading(self, seat: int, total: int) -> bool:
        up = self.colour_up
        state = self.core.table.seats.get(seat)
        if up is None or state is None or up.race.get(seat) is None \
                or up.race[seat].player != state.player:
            return False
        read = rules.reading(up, seat, total)
        if read is None:
            return False
        self.colour_up = read
        self.core.table.apply(SetStack(seat=seat, stack=total))
        won = read.race[seat].won
        what = f"a chip of {up.unit:,} won in the race" if won else "no chip from the race"
        self.core._say("seat", f"seat {seat}: {state.player}'s {total:,} chips are read: {what}",
                       rule=rules.RACE_RULE, seat=seat, player=state.player, stack=total, won=won)
        return True

    def close_colour_up(self) -> None:
        up = self.colour_up
        if up is None or not up.open:
            return
        self.colour_up = up.model_copy(update={"open": False})
        if not up.contested:  # (a chip-up, or a chip for every racer: nothing was raced)
            return
        winners, entered = up.winners(), up.entered()
        won = f"seat(s) {', '.join(map(str, winners))}" if winners else "no seat"
        # (a stack the floor entered counts as a reading does: a table without chip readers)
        how = "with" if entered else "read with"
        by_floor = (f"; the floor entered seat(s) {', '.join(map(str, entered))}"
                    if entered else "")
        self.core._say("seat", f"the chip race is over: {won} {how} a chip of {up.unit:,} "
                       f"({up.race_chips} raced{by_floor})", rule=rules.RACE_RULE, winners=winners,
                       race=up.race_chips, entered=entered)

    def _no_hand(self, what: str) -> None:
        if not self.core._between_hands():
            raise Refused(f"{what}; hand {self.core.table.hand_number} is in play", BETWEEN_HANDS)

    def _made(self, ref: str | None) -> None:
        if ref is not None:
            self.stack_refs.append(ref)
            del self.stack_refs[:-STACK_REFS_KEPT]


def _chips(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_CHIPS


def _ref(args: dict[str, Any]) -> str | None:
    ref = args.get("ref")
    if ref is None:
        return None
    if not isinstance(ref, str) or not 0 < len(ref) <= 80:
        raise Refused("args.ref: the requester's key for this change, 1 to 80 characters", "DFO")
    return ref


__all__ = ["StackCommands"]
