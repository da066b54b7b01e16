"""Everything the clock decides, pure: its levels and the floor's commands (`Clock`), the room's
holds and hand-for-hand rounds (`RoomHolds`), and the ``clock/state`` it publishes. Time is
passed in and what must be sent or stored comes back (`Outcome`), so the service only moves
messages and the property tests drive this very object through any order of events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.mqtt.messages import ClockState
from controller.room.clock.room_holds import ANSWER_SECONDS, Ask, RoomHolds, on_a_break
from controller.room.clock.rules import Clock, ClockPosition
from controller.room.clock.structure import Structure
from controller.session.outputs import TableState

# After (re)connecting, the tables' retained statuses and states come in first, in any order
# across their topics: nothing is decided on half of them.
SETTLE_SECONDS = 2.0


@dataclass
class Outcome:
    """What a step of the clock asks of the service."""

    asks: list[Ask] = field(default_factory=list)  # commands to tables
    save: bool = False  # the position changed: store it
    durable: bool = True  # ... with an fsync (False: the tables' states can rebuild it)
    publish: bool = False  # the retained state changed: publish it
    late: list[str] = field(default_factory=list)  # tables newly late: say so
    released: int | None = None  # a hand-for-hand round began


class ClockCore:
    def __init__(self, structure: Structure, position: ClockPosition | None, now: float,
                 answer_seconds: float = ANSWER_SECONDS) -> None:
        self.clock = Clock(structure, position)
        self.clock.advance(now)  # levels that ended while the clock was down have ended
        self.holds = RoomHolds(answer_seconds=answer_seconds)
        self.told: tuple[list[str], list[str]] = ([], [])  # silent and late, as published
        self.settle_until: float | None = None  # `connected`: listening until then

    @property
    def position(self) -> ClockPosition:
        return self.clock.position

    def online(self) -> list[str]:
        return sorted(name for name, seen in self.holds.tables.items() if seen.online)

    # ---------------------------------------------------------------- steps

    def command(self, name: str, args: dict[str, Any], now: float) -> str:
        """A floor command (`Clock.command`); raises `ClockRefused` and changes nothing.
        Hand-for-hand switched on waits first for the hands in play to finish."""
        before = self.clock.position
        try:
            said = self.clock.command(name, args, now)
        except BaseException:
            self.clock.position = before
            raise
        if self.clock.position.hand_for_hand and not before.hand_for_hand:
            self.clock.begin_hand_for_hand(self.online())
        return said

    def advance(self, now: float) -> bool:
        """Levels and breaks whose end has come; True if the position changed."""
        return self.clock.advance(now)

    def connected(self, now: float) -> None:
        """(Re)connected to the broker: for `SETTLE_SECONDS` the room's retained statuses and
        states come in; meanwhile no hand-for-hand round begins or ends and no table is named
        late (the holds the clock's own position asks for still go out). A clock restarted in
        the middle of a round released the next one without a table whose state had come but
        not yet its status, and named tables late that it had not heard yet (PVB 35a)."""
        self.settle_until = now + SETTLE_SECONDS

    def table_status(self, table: str, online: bool, now: float) -> None:
        self.holds.status(table, online, now)

    def table_state(self, state: TableState, now: float) -> None:
        self.holds.state(state, now)

    def heard(self, table: str, now: float) -> None:
        self.holds.heard(table, now)

    def reconcile(self, now: float, table: str | None = None) -> Outcome:
        """The commands every table still needs (``table``: only that one changed), the
        rounds that finished or began, and the tables that went silent or late."""
        listening = self.settle_until is not None and now < self.settle_until
        before = self.clock.position
        outcome = Outcome(asks=self.holds.reconcile(self.clock, self.break_reason(), now,
                                                    table, rounds=not listening))
        position = self.clock.position
        if position != before:
            outcome.save = outcome.publish = True
            # (a table finishing the round is rebuilt from the retained states after a
            # restart; a round that begins is stored for good)
            outcome.durable = position.round != before.round
            if position.round != before.round:
                outcome.released = position.round
        silent = sorted(name for name, seen in self.holds.tables.items()
                        if seen.online and self.holds.silent(name, now))
        late = self.holds.late(position, now)
        if listening:  # (who is silent or late is known once the room's messages are in)
            silent, late = self.told
        if (silent, late) != self.told:
            outcome.late = sorted(set(late) - set(self.told[1]))
            self.told = (silent, late)
            outcome.publish = True
        return outcome

    # ---------------------------------------------------------------- the state

    def break_reason(self) -> str:
        clock = self.clock
        colour = clock.slot.colour_up if clock.slot.kind == "break" else None
        reason = f"break before level {clock.level_slot().level}"
        if colour:
            reason += f"; colour up the {', '.join(f'{c:,}' for c in colour)} chips"
        return reason

    def state(self, now: float) -> ClockState:
        """The retained ``clock/state``: the level in force (during a break the one that
        follows, from the first hand after it), the instant it ends, and the room's holds."""
        clock = self.clock
        level = clock.level_slot()
        position = clock.position
        running = position.status in ("running", "on_break")
        following = clock.next_level()
        upcoming = clock.next_break()
        silent, late = self.told
        on_break = on_a_break(position)
        return ClockState(
            name=clock.structure.name, level=level.level, sb=level.sb or 0, bb=level.bb or 1,
            ante=level.ante or 0, bb_ante=level.bb_ante or 0, smallest_chip=level.smallest_chip,
            running=running,
            remaining=clock.remaining(now) if position.status == "paused" else None,
            status=position.status, ends_at=position.ends_at if running else None,
            on_break=on_break,
            next_level=following.level if following else None,
            next_sb=following.sb if following else None,
            next_bb=following.bb if following else None,
            next_ante=following.ante if following else None,
            next_bb_ante=following.bb_ante if following else None,
            colour_up=list(clock.slot.colour_up or []) if on_break else [],
            next_break_at=(position.ends_at + upcoming.start - clock.slot.end)
            if running and upcoming is not None and position.ends_at is not None else None,
            hand_for_hand=position.hand_for_hand, round=position.round,
            waiting=list(position.waiting), playing=list(position.playing),
            heard={name: seen.heard for name, seen in sorted(self.holds.tables.items())
                   if seen.heard is not None},
            silent=silent, late=late, answer_seconds=self.holds.answer_seconds,
        )


__all__ = ["ClockCore", "Outcome"]
