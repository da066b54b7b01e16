"""Reader chips on a 10-seat table: scan intervals, a tall stack, and the driver's CPU.

The demo table's readers (controller.sim.table_rig.demo_readers, as deploy/table.example.toml
wires them): 13 MFRC522 card antennas on one SPI bus, 11 PN5180 chip zones on the other, chip
selects through a 74HC154 each, simulated at the chip level in virtual time: every SPI transfer
takes its bytes at the bus speed plus an estimated kernel cost per transfer, every radio
exchange its air time by the standards. The felt is a hand in play: two cards on each seat,
five on the board, three burnt, twelve in the muck; one to five chips in each betting zone and
a stack of 20 in the pot zone, some chips missing an answer now and then (2 %).

Printed, each beside its target:
1. the longest time between two scans of a zone, per reader (every zone at least every 250 ms);
2. how long after a 20-chip stack is pushed into an empty zone its bet is read, median and worst
   of nine pushes (within R9's settle time, 0.4 s by default; the settle itself is not
   counted);
3. the drivers' own CPU per second of table time (the simulators' CPU measured and taken out),
   on this machine, and scaled to a Raspberry Pi 4 by a factor measured here: the same pure
   Python loop's speed ratio is not measurable without a Pi, so the README states the factor
   (PI4_FACTOR) and where it comes from.

    .venv/bin/python bench/chip_readers.py [--quick]   (quick: 5 s of table time, three pushes)
"""

from __future__ import annotations

import argparse
import random
import time

from gpiozero.pins.mock import MockFactory

from controller.events import TableEvent
from controller.sim.table_rig import demo_chips, demo_deck, demo_readers
from drivers.chip_reader import ChipReader
from drivers.scan import VirtualClock
from drivers.simulated.readers import SimulatedReader

SECONDS = 20.0
STACKS = 9  # pushes of a 20-chip stack: median and worst printed
# A Raspberry Pi 4 (Cortex-A72, 1.8 GHz) runs CPython about this many times slower than the
# machine the README's figures come from (pyperformance medians published for both kinds of
# core; an estimate, not a measurement: no Pi is at hand here).
PI4_FACTOR = 4.0


class Intervals:
    def __init__(self) -> None:
        self.last: dict[int, float] = {}
        self.longest: dict[int, float] = {}

    def seen(self, antenna: int, began: float) -> None:
        if antenna in self.last:
            gap = began - self.last[antenna]
            self.longest[antenna] = max(self.longest.get(antenna, 0.0), gap)
        self.last[antenna] = began


def felt(cards: SimulatedReader, chips: SimulatedReader, rng: random.Random) -> None:
    deck = list(demo_deck().cards)
    rng.shuffle(deck)
    for seat in range(1, 11):
        cards.field.place_many(seat, [deck.pop(), deck.pop()])
    cards.field.place_many(11, [deck.pop() for _ in range(5)])
    cards.field.place_many(0, [deck.pop() for _ in range(3)])
    cards.field.place_many(12, [deck.pop() for _ in range(12)])
    case = list(demo_chips().chips)
    rng.shuffle(case)
    for seat in range(1, 11):
        chips.field.place_many(seat, [case.pop() for _ in range(rng.randint(1, 5))])
    chips.field.place_many(11, [case.pop() for _ in range(20)])


def stack_read(reader: ChipReader, sim: SimulatedReader, clock: VirtualClock, prefix: str,
               *, keep_others: bool) -> float:
    """Milliseconds from a 20-chip stack pushed into seat 3's empty zone to all 20 read."""
    emptied = [a for a in range(1, 12) if a == 3 or not keep_others]
    for antenna in emptied:
        sim.field.remove_many(antenna, sim.field.tags(antenna))
    while any(reader.zones.presence.present(a) for a in emptied):  # read empty
        reader.step(0.01)
    for _ in range(20):  # and a moment more
        reader.step(0.01)
    stack = [f"{prefix}{k:08X}" for k in range(20)]
    pushed = clock.now()
    sim.field.place_many(3, stack)
    while clock.now() < pushed + 2.0:
        reader.step(0.005)
        if set(stack) <= reader.zones.presence.present(3):
            return (clock.now() - pushed) * 1000
    return float("inf")


def stack_reads(reader: ChipReader, sim: SimulatedReader, clock: VirtualClock, *,
                keep_others: bool) -> str:
    """The median and the worst of STACKS pushes (each at another moment of the scans)."""
    times = []
    for push in range(STACKS):
        times.append(stack_read(reader, sim, clock, f"E00401{5 + keep_others}{push:X}",
                                keep_others=keep_others))
        reader.step(0.037 * (push + 1))  # the next push at another phase of the scan loop
    times.sort()
    return f"{times[len(times) // 2]:.0f} / {times[-1]:.0f}"


def run() -> None:
    rng = random.Random(7)
    clocks: list[VirtualClock] = []
    factory = MockFactory()
    events: list[TableEvent] = []
    readers, sims, gaps = [], [], []
    for config in demo_readers():
        # Each bus its own clock: the Pi's two SPI controllers work at once, each reader in
        # its own thread (their Python shares one core, and takes a few percent of it).
        clock = VirtualClock(1000.0)
        clocks.append(clock)
        sim = SimulatedReader(config, factory, clock, miss=0.02 if config.reads == "chips" else 0,
                              seed=3)
        reader = ChipReader(config, events.append, sim.connect,
                            deck=demo_deck() if config.reads == "cards" else None,
                            chips=demo_chips() if config.reads == "chips" else None, clock=clock)
        reader.open()
        intervals = Intervals()
        loop = reader._loop
        assert loop is not None
        original = loop.on_result

        def record(antenna: int, result: object, began: float, now: float,
                   original: object = original, intervals: Intervals = intervals) -> None:
            intervals.seen(antenna, began)
            original(antenna, result, began, now)  # type: ignore[operator]

        loop.on_result = record
        readers.append(reader)
        sims.append(sim)
        gaps.append(intervals)
    felt(sims[0], sims[1], rng)
    cpu = time.thread_time()
    sim_cpu = sum(s.bus.busy_seconds for s in sims if s.bus)
    ends = [c.now() + SECONDS for c in clocks]
    per_reader = [0.0 for _ in readers]
    before = [s.bus.busy_seconds for s in sims if s.bus]
    for k, reader in enumerate(readers):
        started = time.thread_time()
        while clocks[k].now() < ends[k]:
            reader.step(0.01)
        per_reader[k] += time.thread_time() - started
    cpu = time.thread_time() - cpu
    for k, sim in enumerate(sims):
        assert sim.bus is not None
        per_reader[k] -= sim.bus.busy_seconds - before[k]
    sim_cpu = sum(s.bus.busy_seconds for s in sims if s.bus) - sim_cpu
    driver = (cpu - sim_cpu) / SECONDS
    print(f"{'10-seat table, hand in play':<46}{'measured':>12}{'target':>12}")
    for reader, intervals in zip(readers, gaps, strict=True):
        longest = max(intervals.longest.values())
        print(f"{'longest scan interval, ' + reader.config.name + ' (ms)':<46}"
              f"{longest * 1000:>12.0f}{250:>12}")
    chips_reader, chips_sim = readers[1], sims[1]
    busy = stack_reads(chips_reader, chips_sim, clocks[1], keep_others=True)
    print(f"{'20-chip stack read, every zone busy (ms)':<46}{busy:>12}{'- / 400':>12}")
    alone = stack_reads(chips_reader, chips_sim, clocks[1], keep_others=False)
    print(f"{'20-chip stack read, other zones empty (ms)':<46}{alone:>12}{'- / 400':>12}")
    for reader, used in zip(readers, per_reader, strict=True):
        print(f"{'  of which ' + reader.config.name + ' (%)':<46}{used / SECONDS * 100:>12.1f}")
    print(f"{'drivers CPU here (% of one core)':<46}{driver * 100:>12.1f}")
    print(f"{'drivers CPU on a Pi 4, x' + str(PI4_FACTOR) + ' (% of one core)':<46}"
          f"{driver * 100 * PI4_FACTOR:>12.1f}{15:>12}")
    print(f"{'simulators CPU here, not counted (%)':<46}{sim_cpu / SECONDS * 100:>12.1f}")
    for reader in readers:
        reader.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="5 s of table time and three pushes (instead of 20 s and nine)")
    if parser.parse_args().quick:
        SECONDS, STACKS = 5.0, 3
    run()
