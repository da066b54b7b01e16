"""The demo's first minutes in virtual time: what a visitor of `make demo` / `pokertable room`
sees early (the demo structure's short break, then the demo director's hand-for-hand rounds)
comes within two and a half minutes of the start, as the room's console prints it.

The room's own parts, in process: a Mosquitto configured by `broker init` for the demo's venue,
the clock service on `DEMO_STRUCTURE` with a virtual wall clock, the floor server the director
commands, the room's console floor on a display login, and the director itself
(`_demo_director`), whose waits move the virtual clock on. The two tables are real table
services linked over the broker; this test deals their hands (a hand takes `HAND_SECONDS` of
virtual time, about what a simulated table takes for one) and waits out every hold the clock
puts on them, as a perfect dealer does. That the real room process and its simulated tables go
on a break and back with no alert is tests/demo/test_room_stop.py's, in real time."""

from __future__ import annotations

import contextlib
import io
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from controller.demo.room_demo import (
    DEMO_STRUCTURE,
    HAND_FOR_HAND_AT,
    HAND_FOR_HAND_ROUNDS,
    VENUE,
    ConsoleFloor,
    _demo_director,
)
from controller.mqtt.local_broker import LocalBroker
from controller.room.clock.room_holds import ANSWER_SECONDS
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.room.floor.floor_helpers import floor_server
from tests.session.helpers import HOLE, deal, declare, three_players
from tests.venue import address, login

START = 1_800_000_000.0  # the virtual wall clock's start (2027)
SPEED = 20.0  # virtual seconds per real second while the director waits
STEP = 0.25  # the virtual clock moves on in steps of this (the clock's own tick)
HAND_SECONDS = 12.0  # a hand at the demo's simulated tables, about


class VirtualTime:
    """The room's wall clock (the clock service's and the tables')."""

    def __init__(self) -> None:
        self.at = START
        self.lock = threading.Lock()

    def now(self) -> float:
        with self.lock:
            return self.at

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.at += seconds


class DirectorsStop(threading.Event):
    """The director's stop event: its waits move the virtual clock on, a step at a time, at
    SPEED times real time (set, it returns at once, as the room's does)."""

    def __init__(self, clock: VirtualTime) -> None:
        super().__init__()
        self.clock = clock

    def wait(self, timeout: float | None = None) -> bool:
        end = self.clock.now() + (timeout or 0.0)
        while (left := end - self.clock.now()) > 1e-9:
            if super().wait(STEP / SPEED):
                return True
            self.clock.advance(min(STEP, left))
        return self.is_set()


class TimedOut(io.StringIO):
    """The console's output, each line with the virtual time it was printed at."""

    def __init__(self, clock: VirtualTime) -> None:
        super().__init__()
        self.clock = clock
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str, /) -> int:
        self.lines.extend((self.clock.now() - START, line) for line in text.splitlines())
        return super().write(text)


class Dealer:
    """Deals a hand at each table whenever the table lets it (no hold), and finishes it
    HAND_SECONDS of virtual time later: everyone folds to the last player."""

    def __init__(self, tables: list[LinkedTable], clock: VirtualTime) -> None:
        self.tables, self.clock = tables, clock
        self.finish_at: dict[int, float] = {}

    def play(self) -> None:
        for k, table in enumerate(self.tables):
            last = table.memory.last
            if k in self.finish_at:
                if self.clock.now() >= self.finish_at[k]:
                    self._finish(table)
                    del self.finish_at[k]
            elif not last.holds and last.stage in ("waiting", "over"):
                before = last.hand
                table.feed([{"type": "shuffle"}])
                table.settle()
                if table.memory.last.hand > before:  # (a hold may have come meanwhile)
                    self.finish_at[k] = self.clock.now() + HAND_SECONDS

    @staticmethod
    def _finish(table: LinkedTable) -> None:
        button = table.memory.last.button or 0  # the cards go round from its left
        order = [s for s in sorted(HOLE) if s > button] + [s for s in sorted(HOLE) if s <= button]
        table.feed(deal(HOLE, order))
        table.settle()
        while (state := table.memory.last).stage == "betting" and state.actor is not None:
            table.feed([declare(state.actor, "fold")])
            table.settle()
        assert table.memory.last.stage == "over", table.memory.last


@contextlib.contextmanager
def demo_room(tmp_path: Path, clock: VirtualTime, out: TimedOut
              ) -> Iterator[tuple[ClockService, list[LinkedTable], DirectorsStop]]:
    """The room's clock, floor, console and two tables, the clock started by the floor and
    the director at work, as `run_room` starts them."""
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(LocalBroker(VENUE, tables=2))
        store = ClockStore(tmp_path / "clock.db")
        stack.callback(store.close)
        # (the clock's answer time in virtual seconds: a table's time requests come every 2
        # real seconds, 40 virtual ones, so the room's 5 s would find a table silent that
        # merely had nothing to say for a quarter of a real second on a loaded machine)
        service = ClockService(address(broker), login(broker, "clock"), DEMO_STRUCTURE, store,
                               now=clock.now, answer_seconds=ANSWER_SECONDS * SPEED).start()
        stack.callback(service.close)
        assert service.connected.wait(10)
        console = ConsoleFloor(broker, out, quiet=True)  # as `pokertable room` runs it
        stack.callback(console.close)
        server = stack.enter_context(floor_server(broker, tmp_path / "floor"))
        tables = [stack.enter_context(linked_table(broker, tmp_path / f"table-{n}", str(n),
                                                   clock=clock.now)) for n in (1, 2)]
        for table in tables:
            table.feed(three_players())
            table.settle()
        assert server.send("clock", "start", {}, by="floor:demo").status == "ok"
        stop = DirectorsStop(clock)
        director = threading.Thread(target=_demo_director, args=(server, service, stop),
                                    daemon=True)
        director.start()
        stack.callback(director.join, 10)
        stack.callback(stop.set)
        yield service, tables, stop


def test_the_demo_shows_a_break_and_hand_for_hand_rounds_within_its_first_minutes(
        tmp_path: Path) -> None:
    """The clock goes on a break within the first minute and back (level 3), the director
    switches hand-for-hand on, its rounds follow one another, and it is off again, all within
    two and a half minutes of virtual time; the tables' hands go on through it with no alert."""
    clock = VirtualTime()
    out = TimedOut(clock)
    with demo_room(tmp_path, clock, out) as (_service, tables, _stop):
        dealer = Dealer(tables, clock)
        deadline = time.monotonic() + 90  # (real seconds: the director needs about 6)
        while time.monotonic() < deadline:
            dealer.play()
            if any(line == "[clock] hand-for-hand off" for _, line in out.lines):
                break
            time.sleep(0.02)  # pacing the dealer's turns, not a wait to prove anything
        played = [t.memory.last.hand for t in tables]
    said = [(at, line) for at, line in out.lines if line.startswith("[clock]")]
    seen = [line for _, line in said]
    on_break = next(k for k, s in enumerate(seen) if s.startswith("[clock] on_break"))
    assert said[on_break][0] < 60, said  # a visitor sees a break in the first minute
    back = next(k for k, s in enumerate(seen) if k > on_break and "running: level 3" in s)
    on = next(k for k, s in enumerate(seen) if "hand-for-hand" in s and "off" not in s)
    assert on > back and said[on][0] >= HAND_FOR_HAND_AT, said
    rounds = [s for s in seen[on:] if "hand-for-hand round" in s]
    assert [r.split(":")[0] for r in rounds[:HAND_FOR_HAND_ROUNDS]] == [
        f"[clock] hand-for-hand round {n}" for n in range(1, HAND_FOR_HAND_ROUNDS + 1)], seen
    assert all("tables 1, 2" in r for r in rounds[:HAND_FOR_HAND_ROUNDS]), rounds
    off = seen.index("[clock] hand-for-hand off")
    assert off > on and said[off][0] <= 150, said  # within two and a half minutes
    alerts = [line for _, line in out.lines if re.match(r"\[table \d+\] hand \d+: alert: ", line)]
    assert not alerts, alerts
    # Hands before the break, after it, and one a round (each table's part of every round).
    assert all(n >= 3 + HAND_FOR_HAND_ROUNDS for n in played), played
