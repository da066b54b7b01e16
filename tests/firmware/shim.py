"""The Pico's hardware layer (firmware/pico/board.py) for the firmware's logic under CPython: its
SPI transfers go to the project's simulated chips (drivers/simulated) on a simulated bus, its
clock is a `VirtualClock`, and what it writes to USB is kept with the time it was written, for
the project's PT1 decoder to read.

`Rig` is a whole board: the firmware built from a config.json (as a dict) by its own `build`,
one simulated chip per configured antenna on the chip select the config names, and the
`TagField` the tests lay tags on.
"""

from __future__ import annotations

import random
from typing import Any

from drivers.hf_reader import Pt1Decoder, ReaderFrame
from drivers.scan import VirtualClock
from drivers.simulated.field import TagField
from drivers.simulated.mfrc522 import SimulatedMfrc522
from drivers.simulated.pn5180 import SimulatedPn5180
from drivers.simulated.spi_bus import SimulatedSpiBus
from firmware.pico.pt1reader.config import parse
from firmware.pico.pt1reader.scanner import Scanner, build

START = 100.0  # the virtual clock's reading when the board powers up


class SimClock:
    """board.Clock on virtual time: microseconds since the board started."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock, self.start = clock, clock.now()

    def now_us(self) -> int:
        return round((self.clock.now() - self.start) * 1e6)

    def sleep_us(self, us: int) -> None:
        self.clock.sleep(us / 1e6)


class SelectWire:
    """A chip-select wire from a GPIO, as the simulated bus reads it: low selects."""

    def __init__(self, levels: dict[int, int], pin: int) -> None:
        self.levels, self.pin = levels, pin

    def selected(self) -> bool:
        return self.levels.get(self.pin, 1) == 0


class SimBus:
    """board.SpiBus on the simulated bus: the chip select low for one transfer."""

    def __init__(self, spi: SimulatedSpiBus) -> None:
        self.spi = spi
        self.levels: dict[int, int] = {}  # GPIO -> level; every chip select high at rest

    def exchange(self, select: int, data: bytes) -> bytes:
        self.levels[select] = 0
        try:
            return self.spi.transfer(data)
        finally:
            self.levels[select] = 1


class BusyLine:
    """An input pin where the BUSY lines of PN5180 modules meet through diodes: high while any
    of them is busy."""

    def __init__(self) -> None:
        self.chips: list[SimulatedPn5180] = []

    def value(self) -> int:
        return int(any(chip.busy() for chip in self.chips))


class Rig:
    def __init__(self, config: dict[str, Any], *, miss: float = 0.0, seed: int = 0,
                 start: float = START, firmware: bool = True) -> None:
        """``firmware``: build the firmware's scanner here (False: main.py builds its own)."""
        self.clock = VirtualClock(start)
        self.field = TagField(self.clock.now)
        self.spi = SimulatedSpiBus(self.clock)
        self.bus = SimBus(self.spi)
        self.config = parse(config)
        self.lines: dict[int, BusyLine] = {}
        self.chips: dict[int, SimulatedMfrc522 | SimulatedPn5180] = {}
        for antenna in self.config.antennas:
            rng = random.Random(seed * 1000 + antenna.number)
            chip: SimulatedMfrc522 | SimulatedPn5180
            if antenna.chip == "pn5180":
                chip = SimulatedPn5180(self.field, antenna.number, self.clock, miss=miss, rng=rng)
                self.lines.setdefault(antenna.busy, BusyLine()).chips.append(chip)
            else:
                chip = SimulatedMfrc522(self.field, antenna.number, self.clock, miss=miss,
                                        rng=rng)
            self.chips[antenna.number] = chip
            self.spi.attach(SelectWire(self.bus.levels, antenna.cs), chip)
        self.writes: list[tuple[float, bytes]] = []  # (virtual time, bytes written to USB)
        self.board_clock = SimClock(self.clock)
        if firmware:
            self.scanner: Scanner = build(self.config, self.bus, self.lines.__getitem__,
                                          self.board_clock, self.write)

    def write(self, data: bytes) -> None:
        """What the board writes to USB, kept with the time it was written."""
        self.writes.append((self.clock.now(), bytes(data)))

    def run(self, seconds: float) -> None:
        self.scanner.run(self.board_clock.now_us() + round(seconds * 1e6))

    def output(self) -> bytes:
        return b"".join(data for _, data in self.writes)

    def frames(self) -> tuple[list[tuple[float, ReaderFrame]], Pt1Decoder]:
        """Every line written so far through the host's own decoder, with its write time."""
        decoder = Pt1Decoder()
        out = [(when, frame) for when, data in self.writes for frame in decoder.feed(data)]
        decoder.finish()
        return out, decoder

    def reads(self, since: float = 0.0) -> set[tuple[int, str]]:
        """(antenna, UID) of every R line written since ``since``."""
        frames, _ = self.frames()
        return {(f.antenna, f.uid) for when, f in frames
                if f.kind == "read" and when >= since and f.antenna is not None
                and f.uid is not None}


def cards_config(**changes: Any) -> dict[str, Any]:
    """A card board: 13 MFRC522, antenna N on GP N (firmware/pico/config.json's layout)."""
    config: dict[str, Any] = {
        "serial": "cards", "spi": {"id": 0, "sck": 18, "mosi": 19, "miso": 16},
        "antennas": [{"antenna": n, "chip": "mfrc522", "cs": n} for n in range(13)]}
    return config | changes


def chips_config(**changes: Any) -> dict[str, Any]:
    """A chip board: 11 PN5180 on antennas 1 to 11 (GP1 to GP11), BUSY lines shared on GP15."""
    config: dict[str, Any] = {
        "serial": "chips", "spi": {"id": 0},
        "antennas": [{"antenna": n, "chip": "pn5180", "cs": n, "busy": 15}
                     for n in range(1, 12)]}
    return config | changes
