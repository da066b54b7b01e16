"""A room in memory for the property tests of the room's holds: the clock's pure core
(`ClockCore`: levels, breaks, hand-for-hand, the holds) and real table sessions, joined by
queues that stand for the broker. Messages wait in their queues until a rule delivers them,
one at a time, in the order each sender sent them but interleaved at random between senders,
so every order of events the broker allows happens: a break that begins while a command is on
its way, a state that reaches the clock after the next one was asked, a clock restarted with
its messages lost and the retained ones given again.

`HoldsMachine` is the Hypothesis state machine; its invariants are the room's promises
(docs/rules.md, "The room's holds").
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from controller.demo.script import deal, declare, seat
from controller.events import CommandEvent, ShuffleEvent, parse_event
from controller.room.clock.core import ClockCore
from controller.room.clock.room_holds import RETRY_SECONDS, on_a_break
from controller.room.clock.rules import ClockPosition, ClockRefused
from controller.room.clock.structure import Structure
from controller.session import SessionConfig, TableSession
from controller.session.outputs import TableState

# Short levels and breaks, so that random time steps cross them often.
STRUCTURE = Structure.model_validate({
    "name": "holds", "chips": [25, 100],
    "levels": [{"sb": 25 * k, "bb": 50 * k, "minutes": 0.5} for k in range(1, 25)],
    "breaks": [{"after_level": k, "minutes": 0.25} for k in range(1, 24, 2)],
})
TABLES = ("1", "2", "3")
HOLE = {1: "AsAh", 2: "KdKh", 3: "QcQs"}
ANSWER = 5.0

EXAMPLES = int(os.environ.get("HOLDS_EXAMPLES", "300"))  # a nightly run sets thousands


def _event(text: str) -> None:
    """Coverage for the statistics (``--hypothesis-show-statistics``), outside a test too."""
    with contextlib.suppress(InvalidArgument):
        event(text)


@dataclass
class SimTable:
    """One table: its real session, whether it is connected, and whether it is frozen (its
    process stopped: it takes no message and sends none)."""

    session: TableSession
    online: bool = True
    frozen: bool = False
    inbox: deque[CommandEvent] = field(default_factory=deque)  # from the clock, via the broker
    outbox: deque[tuple[str, Any]] = field(default_factory=deque)  # to the clock
    retained: TableState | None = None  # the last state it published
    hands_in_round: dict[int, int] = field(default_factory=dict)
    told: set[str] = field(default_factory=set)  # holds the clock put on it, not lifted since

    @property
    def running(self) -> bool:
        return self.session.state().stage not in ("waiting", "over")


class HoldsMachine(RuleBasedStateMachine):
    """The room in any order of events; the invariants are checked after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 1_000.0
        self.core = ClockCore(STRUCTURE, None, self.now, answer_seconds=ANSWER)
        self.saved: ClockPosition = self.core.position
        self.tables: dict[str, SimTable] = {}
        self.wrong_deals: list[str] = []

    # ---------------------------------------------------------------- set-up

    @initialize(online=st.sets(st.sampled_from(TABLES), min_size=1), start=st.booleans(),
                hand_for_hand=st.booleans())
    def room(self, online: set[str], start: bool, hand_for_hand: bool) -> None:
        for name in TABLES:
            session = TableSession(SessionConfig(table_id=name))
            for n, player in ((1, "ana"), (2, "ben"), (3, "cem")):
                session.handle(parse_event(seat(n, f"{player}-{name}", 1_000_000)))
            table = SimTable(session=session, online=False)
            self.tables[name] = table
            if name in online:
                self._connect(name)
        if start:
            self._clock_command("start", {})
        if hand_for_hand:
            self._clock_command("hand_for_hand", {"on": True})

    # ---------------------------------------------------------------- the broker

    def _publish(self, name: str) -> None:
        table = self.tables[name]
        state = table.session.state()
        if table.online and state != table.retained:
            table.retained = state
            table.outbox.append(("state", state))

    def _connect(self, name: str) -> None:
        table = self.tables[name]
        table.online = True
        table.outbox.append(("status", True))
        table.retained = None
        self._publish(name)

    def _clock_step(self, table: str | None = None) -> None:
        """After anything reached the clock: it reconciles (``table``: only its state came, as
        the service does); its commands go to the broker (a table not connected never gets
        them)."""
        outcome = self.core.reconcile(self.now, table)
        if outcome.save:
            self.saved = self.core.position
        for ask in outcome.asks:
            table = self.tables[ask.table]
            if any(c.args == ask.args for c in table.inbox):
                _event("a command asked again before the first arrived")
            if table.online:
                table.inbox.append(CommandEvent(name=ask.command, args=ask.args, by="clock"))

    def _clock_command(self, name: str, args: dict[str, Any]) -> None:
        try:
            self.core.command(name, args, self.now)
        except ClockRefused:
            return
        self.saved = self.core.position
        self._clock_step()

    # ---------------------------------------------------------------- rules: the tables

    @rule(name=st.sampled_from(TABLES))
    def press_shuffle(self, name: str) -> None:
        table = self.tables[name]
        if table.frozen or table.running:
            return
        synced = self._synced(name)
        released = table.session.state().released_round
        step = table.session.handle(ShuffleEvent())
        if step.accepted:
            state = table.session.state()
            if on_a_break(self.core.position) and (synced or "break" in table.told):
                self.wrong_deals.append(f"table {name} dealt hand {state.hand} during the "
                                           "break although the clock had told it")
            if "hand_for_hand" in table.told and released is None:
                self.wrong_deals.append(f"table {name} dealt hand {state.hand} outside a "
                                           "hand-for-hand round")
            if state.played_round is not None:
                count = table.hands_in_round.get(state.played_round, 0) + 1
                table.hands_in_round[state.played_round] = count
                _event(f"a hand of round {min(state.played_round, 3)}+ dealt")
            self._publish(name)

    @rule(name=st.sampled_from(TABLES))
    def finish_hand(self, name: str) -> None:
        table = self.tables[name]
        if table.frozen or not table.running:
            return
        session = table.session
        state = session.state()
        dealt = [s for s, v in state.seats.items() if v.in_hand]
        for dealt_card in deal({s: HOLE[s] for s in dealt}):
            session.handle(parse_event(dealt_card))
        while (state := session.state()).stage == "betting" and state.actor is not None:
            session.handle(parse_event(declare(state.actor, "fold")))
        self._publish(name)

    @rule(name=st.sampled_from(TABLES))
    def deliver_to_table(self, name: str) -> None:
        table = self.tables[name]
        if table.frozen or not table.inbox:
            return
        command = table.inbox.popleft()
        table.session.handle(command)
        kind, args = command.args.get("kind"), command.args
        if command.name == "hold":
            table.told.add(str(kind))
        elif kind == "break" or not args.get("one_hand"):  # (one hand: still hand-for-hand)
            table.told.discard(str(kind))
        self._publish(name)

    @rule()
    def quiet_network(self) -> None:
        """Everything on its way arrives (a frozen table's commands wait)."""
        for _ in range(20):
            pending = [n for n, t in self.tables.items() if t.outbox or (
                t.inbox and not t.frozen)]
            if not pending:
                return
            for name in pending:
                self.deliver_to_table(name)
                self.deliver_to_clock(name)

    @rule(name=st.sampled_from(TABLES))
    def deliver_to_clock(self, name: str) -> None:
        table = self.tables[name]
        if not table.outbox:
            return
        kind, payload = table.outbox.popleft()
        if kind == "status":
            self.core.table_status(name, payload, self.now)
        else:
            self.core.table_state(payload, self.now)
        self._clock_step(name if kind == "state" else None)

    @rule(name=st.sampled_from(TABLES))
    def disconnect(self, name: str) -> None:
        """The table's network goes: what was on its way to it is lost; the broker tells the
        clock (its Last Will)."""
        table = self.tables[name]
        if not table.online:
            return
        table.online = False
        table.inbox.clear()
        table.outbox.append(("status", False))

    @rule(name=st.sampled_from(TABLES))
    def reconnect(self, name: str) -> None:
        if not self.tables[name].online:
            self._connect(name)

    @rule(name=st.sampled_from(TABLES))
    def freeze_or_thaw(self, name: str) -> None:
        table = self.tables[name]
        table.frozen = not table.frozen

    # ---------------------------------------------------------------- rules: the clock

    @rule(seconds=st.sampled_from([0.5, 2.5, 6.0, 16.0]))
    def time_passes(self, seconds: float) -> None:
        """A moment (a command not yet shown goes again after two seconds), or long enough for
        a break to begin or end."""
        was = on_a_break(self.core.position)
        self.now += seconds
        for name, table in self.tables.items():  # their time requests: they are alive
            if table.online and not table.frozen:
                self.core.heard(name, self.now)
        if self.core.advance(self.now):
            self.saved = self.core.position
        now = on_a_break(self.core.position)
        if was != now and self.core.position.hand_for_hand:
            _event(f"a break {'began' if now else 'ended'} during hand-for-hand")
        self._clock_step()

    @rule(name=st.sampled_from(["pause", "resume", "start"]))
    def clock_command(self, name: str) -> None:
        self._clock_command(name, {})

    @rule(on=st.booleans())
    def hand_for_hand(self, on: bool) -> None:
        if on_a_break(self.core.position):
            _event(f"hand-for-hand switched {'on' if on else 'off'} during a break")
        if on and self.core.position.round and not self.core.position.hand_for_hand:
            _event("hand-for-hand switched on again after rounds were played")
        self._clock_command("hand_for_hand", {"on": on})

    @rule(seconds=st.sampled_from([30, 90]), add=st.booleans())
    def shift_time(self, seconds: int, add: bool) -> None:
        self._clock_command("add_time" if add else "remove_time", {"seconds": seconds})

    @precondition(lambda self: bool(self.core.position.waiting))
    @rule(data=st.data())
    def release_table(self, data: st.DataObject) -> None:
        """The floor lets the round go on without a table (PVB 35a)."""
        name = data.draw(st.sampled_from(self.core.position.waiting))
        self._clock_command("release_table", {"table": name})

    @rule(state_first=st.booleans())
    def restart_clock(self, state_first: bool) -> None:
        """Killed and started again: its journal's position; what was on its way to it is lost;
        the broker gives it every table's retained status and state, in either order (two
        topics), and the clock listens before it decides (`ClockCore.connected`)."""
        _event("the clock restarted " + ("during a break" if on_a_break(self.saved) else
                                         "in a round" if self.saved.round else "otherwise"))
        self.core = ClockCore(STRUCTURE, self.saved, self.now, answer_seconds=ANSWER)
        self.core.connected(self.now)
        for table in self.tables.values():
            table.outbox.clear()
            retained: list[tuple[str, Any]] = [("status", table.online)]
            if table.retained is not None:
                retained.append(("state", table.retained))
            table.outbox.extend(reversed(retained) if state_first else retained)

    # ---------------------------------------------------------------- the promises

    def _listening(self) -> bool:
        return self.core.settle_until is not None and self.now < self.core.settle_until

    def _synced(self, name: str) -> bool:
        """The clock and the table have heard all of each other: nothing on its way either
        way, the clock knows it online and its state."""
        table = self.tables[name]
        seen = self.core.holds.tables.get(name)
        return (table.online and not table.frozen and not table.inbox and not table.outbox
                and seen is not None and seen.online and seen.known)

    @invariant()
    def no_hand_is_dealt_where_a_hold_told_forbids_it(self) -> None:
        """No hand during a break, nor outside a released round in hand-for-hand."""
        assert not self.wrong_deals, self.wrong_deals

    @invariant()
    def every_table_deals_at_most_one_hand_a_round(self) -> None:
        for name, table in self.tables.items():
            twice = {r: n for r, n in table.hands_in_round.items() if n > 1}
            assert not twice, f"table {name} dealt several hands in rounds {twice}"

    @invariant()
    def no_table_is_held_without_its_reason(self) -> None:
        for name, table in self.tables.items():
            state = table.session.state()
            assert bool(state.holds) == (state.hold is not None), (name, state.holds)
            for kind, reason in state.holds.items():
                assert reason, (name, kind)

    @invariant()
    def a_table_in_step_with_the_clock_holds_what_the_room_wants(self) -> None:
        position = self.core.position
        on_break = on_a_break(position)
        for name, table in self.tables.items():
            if not self._synced(name):
                continue
            state = table.session.state()
            assert ("break" in state.holds) == on_break, (name, state.holds, position.status)
            holding = "hand_for_hand" in state.holds
            if not position.hand_for_hand:
                assert not holding and state.released_round is None, (name, state.holds)
            elif name in position.playing:
                assert position.round in (state.released_round, state.played_round), (
                    name, position.round, state.released_round, state.played_round)
            else:
                assert holding and state.released_round is None, (name, state.holds)

    @invariant()
    def the_clock_waits_only_for_tables_that_are_held_or_playing_the_round(self) -> None:
        position = self.core.position
        if not position.hand_for_hand:
            assert not position.waiting and not position.playing
            return
        if position.playing:
            assert set(position.waiting) <= set(position.playing), position
        for name in position.waiting:
            if not self._synced(name) or self._listening():
                continue  # (a clock just restarted ends no round yet: `ClockCore.connected`)
            state = self.tables[name].session.state()
            assert not self.core.holds.finished(name, position), (name, position)
            assert "hand_for_hand" in state.holds or position.round in (
                state.released_round, state.played_round), (name, state.holds, position)

    @invariant()
    def a_late_table_is_one_the_round_waits_for(self) -> None:
        assert set(self.core.told[1]) <= set(self.core.position.waiting)

    # ---------------------------------------------------------------- and the room goes on

    def teardown(self) -> None:
        """Liveness: every table back, everything delivered, the break over: hand-for-hand
        rounds advance, and without hand-for-hand every table deals."""
        for name, table in self.tables.items():
            table.frozen = False
            if not table.online:
                self._connect(name)
            self.finish_hand(name)
        self._settle()
        if self.core.position.status == "paused":
            self._clock_command("resume", {})
        self._end_break()
        position = self.core.position
        if position.status == "not_started" and not position.hand_for_hand:
            return  # (nothing holds the tables: checked below with the clock running)
        if position.hand_for_hand:
            before = position.round
            for _ in range(8):  # round after round: each table one hand, then the next
                for name in TABLES:
                    self.press_shuffle(name)
                    self.finish_hand(name)
                self._settle()
                self._end_break()  # (a break may come between rounds: it holds them)
                if self.core.position.round >= before + 2:
                    break
            assert self.core.position.round >= before + 2, (before, self.core.position)
        else:
            for name, table in self.tables.items():
                hand = table.session.state().hand
                self.press_shuffle(name)
                assert table.session.state().hand == hand + 1, (name, table.session.state())

    def _end_break(self) -> None:
        if on_a_break(self.core.position):
            self.now = (self.core.position.ends_at or self.now) + 0.1
            self.core.advance(self.now)
            self._settle()

    def _settle(self) -> None:
        """Deliver everything, retries included, until nothing more moves."""
        for _ in range(50):
            moved = False
            for name, table in self.tables.items():
                while table.inbox:
                    self.deliver_to_table(name)
                    moved = True
                while table.outbox:
                    self.deliver_to_clock(name)
                    moved = True
            if not moved:
                self.now += RETRY_SECONDS + 0.1  # commands the clock still wants go again
                for name in self.tables:
                    self.core.heard(name, self.now)
                self.core.advance(self.now)
                self._clock_step()
                if not any(t.inbox or t.outbox for t in self.tables.values()):
                    return


HoldsMachine.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=50)

__all__ = ["EXAMPLES", "HoldsMachine"]
