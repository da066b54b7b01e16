"""The room's holds: whether each table may deal its next hand, decided in one place (docs/rules.md,
"The room's holds").

The clock's position says what the room wants: a break holds every table until it ends (PVB
14); hand-for-hand holds every table after each hand and releases the round's tables together
for one hand each when the last of the round has finished (PVB 35a); a pause stops the clock's
time, not play. Each table says, in its retained state, what it holds and why
(`controller.session.table_holds`). `RoomHolds` compares the two, table by table, and returns the
commands that bring each table to what the room wants, again and again until its state shows
it: a command lost, a clock restarted in the middle of anything, a table that joins late, all
end the same way. The hand-for-hand rounds advance here too, and only on what the tables said.

A table of fewer than two players with chips (the tournament broke it, or moved its players
away) cannot deal: no round waits for it, and none releases it.

A table the clock asked something of that has not shown it within ``answer_seconds``, or that
has said nothing at all for as long while a round waits for it, is late: the clock's state names
it and the floor is alerted; the floor can let the round go on without it (``release_table``).

Pure: time is passed in, commands are returned, nothing is sent or stored here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from controller.room.clock.rules import Clock, ClockPosition
from controller.session.outputs import TableState
from controller.session.table_holds import HAND_FOR_HAND

ANSWER_SECONDS = 5.0  # a table that does not show what it was asked within this is late
RETRY_SECONDS = 2.0  # a command not yet shown in the table's state goes again after this


@dataclass
class TableSeen:
    """What the clock last heard of one table."""

    online: bool = False
    heard: float | None = None  # the clock's time of its last message
    known: bool = False  # its state was seen: its holds are known
    hand: int = 0
    running: bool = False
    holds: dict[str, str] = field(default_factory=dict)
    released_round: int | None = None
    played_round: int | None = None
    players: int = 0  # with chips: a table of fewer than two cannot deal (broken, or done)


@dataclass(frozen=True)
class Ask:
    """A command the room wants a table to carry out (``table/<id>/cmd/<command>``)."""

    table: str
    command: Literal["hold", "release"]
    args: dict[str, Any]
    key: str  # what is asked (printable, no spaces): the same key is the same request, retried


@dataclass
class RoomHolds:
    answer_seconds: float = ANSWER_SECONDS
    retry_seconds: float = RETRY_SECONDS
    tables: dict[str, TableSeen] = field(default_factory=dict)
    # (table, key) -> (first asked, last sent): cleared when the table's state shows it
    asked: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)

    # ---------------------------------------------------------------- what the tables say

    def status(self, table: str, online: bool, now: float) -> None:
        seen = self.tables.setdefault(table, TableSeen())
        seen.online = online
        if online:
            seen.heard = now
        else:  # what was asked went nowhere: asked again from the start when it is back
            self._forget_asks(table)

    def state(self, state: TableState, now: float) -> None:
        seen = self.tables.setdefault(state.table, TableSeen())
        seen.heard, seen.known, seen.hand = now, True, state.hand
        seen.running = state.stage not in ("waiting", "over")
        seen.holds = dict(state.holds)
        seen.released_round, seen.played_round = state.released_round, state.played_round
        seen.players = sum(1 for view in state.seats.values() if view.stack > 0)

    def heard(self, table: str, now: float) -> None:
        """Any other message from the table (its time requests, every two seconds)."""
        seen = self.tables.get(table)
        if seen is not None:
            seen.heard = now

    # ---------------------------------------------------------------- what the room wants

    def reconcile(self, clock: Clock, break_reason: str, now: float,
                  table: str | None = None, rounds: bool = True) -> list[Ask]:
        """Advance hand-for-hand on what the tables said, then every command still needed to
        bring each online table to what the room wants (each sent again every
        ``retry_seconds`` until its state shows it). ``clock.position`` may change (a round
        finished or began): the caller stores it. ``table``: only that one changed (its
        state arrived), so only it is looked at unless the position changed. ``rounds``
        False: no round ends or begins (the clock is still hearing the room)."""
        before = clock.position
        if rounds:
            self._advance_rounds(clock, now)
        position = clock.position
        on_break = on_a_break(position)
        asks: list[Ask] = []
        for name, seen in sorted(self.tables.items()):
            if not seen.online or (table is not None and name != table
                                   and position == before):
                continue
            wanted = self._wanted(name, seen, position, on_break, break_reason)
            for key in [k for (t, k) in self.asked if t == name and k not in
                        {a.key for a in wanted}]:
                del self.asked[(name, key)]  # shown (or no longer wanted)
            for ask in wanted:
                first, last = self.asked.get((name, ask.key), (now, None))
                if last is None or now - last >= self.retry_seconds:
                    self.asked[(name, ask.key)] = (first, now)
                    asks.append(ask)
        return asks

    def late(self, position: ClockPosition, now: float) -> list[str]:
        """The tables holding up the hand-for-hand round: offline, silent for
        ``answer_seconds``, or not showing what they were asked for as long."""
        late = []
        for name in position.waiting:
            seen = self.tables.get(name)
            stuck = any(t == name and now - first >= self.answer_seconds
                        for (t, _), (first, _) in self.asked.items())
            if seen is None or not seen.online or self.silent(name, now) or stuck:
                late.append(name)
        return late

    def silent(self, name: str, now: float) -> bool:
        """Not heard for ``answer_seconds`` (a live table asks the time every two)."""
        seen = self.tables.get(name)
        return seen is None or seen.heard is None or now - seen.heard >= self.answer_seconds

    def finished(self, name: str, position: ClockPosition) -> bool:
        """A table has finished its hand of the round: between hands, held for hand-for-hand,
        and (once a round was released) having played the round's hand."""
        seen = self.tables.get(name)
        if seen is None or not seen.known or seen.running:
            return False
        if seen.players < 2:  # it cannot deal (the tournament broke it): nothing to wait for
            return True
        if not position.playing:  # before the first round: the hand in play finished
            return "hand_for_hand" in seen.holds
        return seen.played_round == position.round

    # ---------------------------------------------------------------- inside

    def _advance_rounds(self, clock: Clock, now: float) -> None:
        position = clock.position
        if not position.hand_for_hand:
            return
        for name in list(position.waiting):
            if self.finished(name, position):
                clock.finished_table(name)
        position = clock.position
        if position.waiting or on_a_break(position):
            return  # the round goes on, or the next waits for the end of the break (PVB 14)
        # The next round: the tables between hands that answer (a silent one joins a later
        # round once it is heard again: it holds meanwhile).
        ready = sorted(name for name, seen in self.tables.items() if seen.online and seen.known
                       and not seen.running and seen.players >= 2
                       and not self.silent(name, now))
        if ready:
            clock.next_round(ready)

    def _wanted(self, name: str, seen: TableSeen, position: ClockPosition, on_break: bool,
                break_reason: str) -> list[Ask]:
        asks = []
        if on_break and seen.holds.get("break") != break_reason:
            asks.append(Ask(name, "hold", {"kind": "break", "reason": break_reason},
                            "break:on"))
        elif not on_break and "break" in seen.holds:
            asks.append(Ask(name, "release", {"kind": "break"}, "break:off"))
        holding = "hand_for_hand" in seen.holds
        if not position.hand_for_hand:
            if holding or seen.released_round is not None:
                asks.append(Ask(name, "release", {"kind": "hand_for_hand"}, "hfh:off"))
        elif name in position.playing:
            number = position.round
            if number not in (seen.released_round, seen.played_round):
                asks.append(Ask(name, "release", {"kind": "hand_for_hand", "one_hand": True,
                                                  "round": number, "reason": HAND_FOR_HAND},
                                f"hfh:round:{number}"))
        elif not holding or seen.released_round is not None:
            asks.append(Ask(name, "hold", {"kind": "hand_for_hand", "reason": HAND_FOR_HAND},
                            "hfh:hold"))
        return asks

    def _forget_asks(self, table: str) -> None:
        for key in [k for k in self.asked if k[0] == table]:
            del self.asked[key]


def on_a_break(position: ClockPosition) -> bool:
    return position.status == "on_break" or (position.status == "paused"
                                             and position.paused_on_break)


__all__ = ["ANSWER_SECONDS", "Ask", "RoomHolds", "TableSeen", "on_a_break"]
