"""Change for an oversized chip is one motion of the dealer's hand: the chip taken out and the
bet put back reach the reader together. A PT1 board reports a chip taken away at once; where
the two halves of the swap reached the table's reader apart (the dealer's thread held up for
longer than the settle time between them, on a loaded host), the zone settled empty in between
and the table said "seat 5 took 100 back out of the betting zone: chips put in stay in"
(PVB 36(3)) on a clean call (seen once in tests/table/test_first_hour.py)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from controller.events import ChipsEvent
from controller.sim.hands import HardwareHands
from controller.sim.table_rig import DEMO_PANEL
from controller.table.sinks import MemorySink
from drivers.reader_config import ReaderConfig
from drivers.registry import ChipSet
from drivers.simulated.field import TagField, ZoneAntennas
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice
from drivers.tag_reader import TagReader
from tests.drivers.chip_helpers import DECK
from tests.drivers.helpers import Events
from tests.waiting import wait_for

SETTLE = 0.25  # the simulated table's chip zones (controller/sim/table_rig.py)
HELD_UP = 0.6  # the dealer's thread off the CPU after each thing its hand does at the reader
CHIPS = ChipSet(name="t", chips={"E004015000000500": 500, "E004015000000100": 100,
                                 "E004015000000101": 100})
FIVE_HUNDRED = ("E004015000000500", 500)
HUNDRED = ("E004015000000100", 100)
OTHER_HUNDRED = ("E004015000000101", 100)


class SlowHand(ZoneAntennas):
    """The dealer's hand on the chip zones, its thread held up after every move it makes."""

    def __getattribute__(self, name: str) -> object:
        found = super().__getattribute__(name)
        if name in ("place", "place_many", "remove", "remove_many", "swap_many"):
            def held_up(*args: object) -> object:
                result = found(*args)
                time.sleep(HELD_UP)
                return result
            return held_up
        return found


def settled(events: Events) -> list[list[int]]:
    """What the zone settled on, reading after reading."""
    return [e.chips for e in events.of(ChipsEvent) if isinstance(e, ChipsEvent)]


def test_change_for_an_oversized_chip_never_reads_as_an_empty_zone(tmp_path: Path) -> None:
    """Seat 5 called 100 with one 500 chip; the dealer swaps it for a 100 chip. However long
    his thread is held up, the zone settles on 500, then on 100: never on nothing."""
    device = VirtualSerialDevice(tmp_path / "usb-sim-chips")
    board = SimulatedPt1Reader(device, antennas=12, repeat=0.1)
    events = Events()
    config = ReaderConfig(name="chips", url=str(device.path), protocol="pt1", reads="chips",
                          zones={5: "seat:5"}, settle=SETTLE)
    pins = MockFactory()
    try:
        with TagReader(config, events, chips=CHIPS) as reader:
            wait_for(lambda: reader.status == "ok")
            chips = SlowHand({"seat:5": (board, 5)})
            hands = HardwareHands(ZoneAntennas({"board": (TagField(), 0)}), {0: "board"}, DECK,
                                  chips, chips.zones, pins, DEMO_PANEL, MemorySink(),
                                  lambda event: None, threading.Event())
            hands.chips_in("seat:5", [FIVE_HUNDRED])
            wait_for(lambda: settled(events) == [[500]])
            hands.swap("seat:5", [FIVE_HUNDRED], [HUNDRED])
            # A later chip, as a sentinel: whatever the swap made the zone settle on comes
            # before the reading of it
            hands.chips_in("seat:5", [OTHER_HUNDRED])
            wait_for(lambda: settled(events)[-1:] == [[100, 100]])
        assert settled(events) == [[500], [100], [100, 100]]
        assert hands.felt.chips == {"seat:5": [HUNDRED, OTHER_HUNDRED]}
    finally:
        pins.close()
        board.close()
        device.close()


def test_a_swap_on_a_polled_readers_field_is_one_change() -> None:
    """The same on a reader chip's field (a PN5180's, scanned by its driver): a scan sees the
    zone before the swap or after it, never with the chip out and the change not in."""
    field = TagField()
    field.place_many(5, [FIVE_HUNDRED[0]])
    seen: list[list[str]] = []
    stop = threading.Event()

    def scan() -> None:
        while not stop.is_set():
            seen.append(field.tags(5))

    scanner = threading.Thread(target=scan)
    scanner.start()
    try:
        for _ in range(200):
            field.swap_many(5, [FIVE_HUNDRED[0]], [HUNDRED[0]])
            field.swap_many(5, [HUNDRED[0]], [FIVE_HUNDRED[0]])
    finally:
        stop.set()
        scanner.join()
    assert all(len(tags) == 1 for tags in seen)
