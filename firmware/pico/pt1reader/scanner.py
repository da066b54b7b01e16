"""The antennas scanned in turn, for ever, and what each scan read handed to the reporter.

One antenna at a time, in the configured order: one field on at a time, so neighbouring
antennas never read each other's tags or jam each other's answers, the supply feeds one module
transmitting, and an MFRC522's cards have had their field off long enough between two of its
scans to forget their halt (all are read again each time). Measured on the simulated chips
(tests/firmware, SPI transfers at 4 MHz plus 20 us each): a 13-antenna card board goes round in
85 ms empty, 255 ms with two cards on each of ten seats and five on the board (a 7-byte card
takes about 7 ms, most of it on the air); a board of 11 chip zones in 40 ms empty, 250 ms with a
20-chip stack in one zone, 640 ms with five chips in every zone. The table's own chip reader is
faster on big tables because it keeps several fields on at once; this firmware keeps to the
simple, safe order.

A chip that fails (unplugged, unpowered, a chip select on the wrong pin) reads as an empty
antenna, so its tags are reported gone, and is started again at its next turn, then every
`RETRY_US` until it answers; the other antennas go on meanwhile. PT1 has no line for a failed
antenna: the host sees its tags go, and check.py on the REPL names the antenna and its chip
select (docs/firmware.md).
"""

from .mfrc522 import Mfrc522
from .pn5180 import Pn5180
from .ports import ChipError, Timer
from .report import Reporter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from .config import Config
    from .ports import Bus, Clock, Line, Write

    class Chip(Protocol):
        misses: int

        def start(self) -> None: ...

        def scan(self) -> list[str]: ...

RETRY_US = 2_000_000
WAIT_US = 1000  # an antenna's turn while its chip waits for its next start


class Antenna:
    def __init__(self, number: int, chip: "Chip") -> None:
        self.number, self.chip = number, chip
        self.started = False
        self.retry_at = 0
        self.error = ""  # the last ChipError's sentence


class Scanner:
    def __init__(self, antennas: "list[Antenna]", reporter: Reporter, timer: Timer) -> None:
        self.antennas, self.reporter, self.timer = antennas, reporter, timer
        timer.idle = reporter.tick
        self._next = 0

    def step(self) -> None:
        """One antenna's turn."""
        antenna = self.antennas[self._next]
        self._next = (self._next + 1) % len(self.antennas)
        uids = []  # type: list[str]
        if not antenna.started and self.timer.now_us() < antenna.retry_at:
            self.timer.sleep_us(WAIT_US)  # its turn passes; its tags count as missed
        else:
            try:
                if not antenna.started:
                    antenna.chip.start()
                    antenna.started = True
                uids = antenna.chip.scan()
            except ChipError as exc:
                # A chip that failed mid-scan is started again at its next turn (a glitch
                # costs one scan); one that will not start is left alone for RETRY_US.
                antenna.retry_at = self.timer.now_us() + (RETRY_US if not antenna.started else 0)
                antenna.started = False
                antenna.error = str(exc)
        self.reporter.scanned(antenna.number, uids, antenna.chip.misses)
        self.reporter.tick()

    def run(self, until_us: int = -1) -> None:
        """Scan until the clock reaches ``until_us``; for ever with the default."""
        while until_us < 0 or self.timer.now_us() < until_us:
            self.step()


def build(config: "Config", bus: "Bus", line: "Callable[[int], Line]", clock: "Clock",
          write: "Write") -> Scanner:
    """The scanner of ``config``'s antennas: ``bus`` their SPI bus, ``line(pin)`` an input pin
    (a PN5180's BUSY), ``write`` the USB serial line."""
    timer = Timer(clock)
    reporter = Reporter(write, len(config.antennas), timer)
    antennas = []
    for entry in config.antennas:
        if entry.chip == "pn5180":
            chip = Pn5180(bus, entry.cs, line(entry.busy), timer)  # type: Chip
        else:
            chip = Mfrc522(bus, entry.cs, timer)
        antennas.append(Antenna(entry.number, chip))
    return Scanner(antennas, reporter, timer)
