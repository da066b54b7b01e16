"""Polling reader chips: time, the scan of one antenna as a generator, and a scheduler that runs
several antennas' scans on one bus at once.

A reader chip does its radio work by itself while the host waits (an ISO 15693 slot is about
4 ms, a card's power-up 5 ms); one SPI transfer takes microseconds. So each antenna's scan is a
generator that does its SPI transfers and then yields the time at which it wants to go on; the
scheduler gives the bus to whichever scan is due, and a table's eleven chip zones are read in the
time of the slowest one rather than one after the other (bench/readers.py measures it). At most
``parallel`` scans run at once, taken round the table so that the antennas whose fields are on
together are far apart.
"""

from __future__ import annotations

import contextlib
import heapq
import time
from collections import deque
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

# Tags an ISO 14443A reader chip (MFRC522, PN532) lists on one antenna in one scan, one at a
# time, by what its reader reads: a muck can hold the whole deck, and a pot zone more chips than
# a deck has cards (a pot of 55 chips never counted where a scan listed 52: the table waited
# for the pot for ever, APSA 5.4.25). Each tag costs the scan one listing and one halt.
MOST_TAGS = {"cards": 52, "chips": 250}

@dataclass(frozen=True, slots=True)
class Reading:
    """What one scan of an antenna read. ``complete``: every tag there answered (a tag missing
    from it may have gone); otherwise only the tags that came since the last complete scan
    (an MFRC522 keeps the cards it read halted between two complete scans). ``arrived``: the
    tags that came into the field since the last scan, as far as the chip can tell (a card
    lifted and laid down again is one: it lost its power)."""

    uids: list[str]
    complete: bool = True
    arrived: list[str] = field(default_factory=list)  # heard as newcomers (see `Mfrc522.scan`)


# One antenna's scan: yields the (clock) time it wants to go on at, returns what it read.
Scan = Generator[float, None, Reading]


class ChipError(Exception):
    """A reader chip did not behave as its datasheet says: it does not answer, or answers
    nonsense (a module unplugged, a chip select on the wrong pin, no power)."""


class ReaderChip(Protocol):
    """One reader chip under one antenna."""

    def start(self) -> str:
        """Set the chip up; its name and version. `ChipError` if it does not answer."""
        ...

    def scan(self) -> Scan: ...

    def every_scan_complete(self) -> None:
        """Read every tag at every scan, not only newcomers between complete scans (a
        bring-up's reads per second, a registration)."""
        ...


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def spin(self) -> None:
        """A moment between two looks at a line that changes within microseconds (BUSY)."""
        ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def spin(self) -> None:
        """Look again at once: the kernel's sleep would overshoot a BUSY of 15 us many times."""


class VirtualClock:
    """Time that passes only when something waits or a simulated transfer takes it: the
    benchmarks' and the property tests' clock."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.t += seconds

    advance = sleep

    def spin(self) -> None:
        self.t += 5e-6


def spread(antennas: Sequence[int], parallel: int) -> list[int]:
    """The order to start the scans in so that the ones running together are far apart:
    with 12 antennas and 3 at once, 0 4 8 1 5 9 ..."""
    ordered = sorted(antennas)
    if parallel <= 1 or len(ordered) <= parallel:
        return ordered
    stride = -(-len(ordered) // parallel)
    return [ordered[k] for start in range(stride) for k in range(start, len(ordered), stride)]


def run_scans(scans: Sequence[tuple[int, Callable[[], Scan]]], clock: Clock,
              parallel: int = 1) -> dict[int, Reading | ChipError]:
    """Run every antenna's scan to its end, at most ``parallel`` at once; each antenna's tags,
    or the `ChipError` its chip gave."""
    results: dict[int, Reading | ChipError] = {}
    waiting = list(reversed(scans))
    running: list[tuple[float, int, int, Scan]] = []  # (due, order, antenna, scan)
    order = 0

    def step(antenna: int, scan: Scan) -> None:
        nonlocal order
        try:
            due = next(scan)
        except StopIteration as done:
            results[antenna] = done.value
            return
        except ChipError as exc:
            results[antenna] = exc
            return
        order += 1
        heapq.heappush(running, (due, order, antenna, scan))

    while waiting or running:
        while waiting and len(running) < parallel:
            antenna, start = waiting.pop()
            step(antenna, start())
        if not running:
            continue
        due, _, antenna, scan = heapq.heappop(running)
        clock.sleep(due - clock.now())
        step(antenna, scan)
    return results


class ScanLoop:
    """Every antenna scanned again and again, each on its own: an antenna starts its next scan
    as soon as its last one ended and ``period`` has passed since it began, so a zone holding a
    tall stack does not hold up the others; at once when its whole content changed (a chip in a
    stack that missed its answer in the scan a stack arrived in is heard a period sooner), and
    twice as often while it holds nothing (a bet pushed into an empty zone is heard sooner). At
    most ``parallel`` scans run at once; waiting antennas take their turn in order."""

    def __init__(self, scans: dict[int, Callable[[], Scan]], clock: Clock, *, parallel: int,
                 period: float,
                 on_result: Callable[[int, Reading | ChipError, float, float], None]) -> None:
        self.scans, self.clock, self.parallel, self.period = scans, clock, parallel, period
        self.on_result = on_result
        now = clock.now()
        self._waiting: deque[tuple[int, float]] = deque(
            (antenna, now) for antenna in spread(list(scans), parallel))
        self._running: list[tuple[float, int, int, Scan, float]] = []
        self._order = 0
        self._content: dict[int, list[str]] = {}  # each antenna's last complete reading

    def _step(self, antenna: int, scan: Scan, began: float) -> None:
        try:
            due = next(scan)
        except StopIteration as done:
            self._finished(antenna, done.value, began)
            return
        except ChipError as exc:
            self._finished(antenna, exc, began)
            return
        self._order += 1
        heapq.heappush(self._running, (due, self._order, antenna, scan, began))

    def _finished(self, antenna: int, result: Reading | ChipError, began: float) -> None:
        again = began + self.period
        if isinstance(result, Reading) and result.complete:
            if not result.uids:  # nothing there: the cheapest scan, and a bet heard sooner
                again = began + self.period / 2
            if self._content.get(antenna, result.uids) != result.uids:
                again = began
            self._content[antenna] = result.uids
        self._waiting.append((antenna, again))
        self.on_result(antenna, result, began, self.clock.now())

    def close(self) -> None:
        """Stop the scans in progress (each switches its field off) while the bus is open."""
        running, self._running = self._running, []
        for _, _, _, scan, _ in running:
            with contextlib.suppress(Exception):  # a chip that fails now changes nothing
                scan.close()

    def run_once(self, limit: float = 0.05) -> None:
        """Work for about ``limit`` seconds of the clock (the caller checks for a stop between
        calls)."""
        end = self.clock.now() + limit
        while self.clock.now() < end:
            now = self.clock.now()
            started = True
            while started and len(self._running) < self.parallel and self._waiting:
                started = False
                for k, (antenna, not_before) in enumerate(self._waiting):
                    if not_before <= now:
                        del self._waiting[k]
                        self._step(antenna, self.scans[antenna](), now)
                        started = True
                        break
            nexts = [self._running[0][0]] if self._running else []
            if len(self._running) < self.parallel and self._waiting:
                nexts.append(min(t for _, t in self._waiting))
            if not nexts:
                return
            due = min(nexts)
            if due > end:
                self.clock.sleep(end - now)
                return
            self.clock.sleep(due - now)
            if self._running and self._running[0][0] <= self.clock.now():
                _, _, antenna, scan, began = heapq.heappop(self._running)
                self._step(antenna, scan, began)
