"""What the portable code needs from the hardware, the one error a chip raises, and the clock as
the chip code uses it.

MicroPython has no ``typing`` module, so the interfaces exist for the type checker alone: under
``TYPE_CHECKING``, which is False when the code runs (mypy treats it as True by its name) and
annotations naming them are strings.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class Clock(Protocol):
        def now_us(self) -> int:
            """Microseconds since the board started; never wraps (board.py extends the Pico's
            30-bit ticks)."""
            ...

        def sleep_us(self, us: int) -> None: ...

    class Bus(Protocol):
        def exchange(self, select: int, data: bytes) -> bytes:
            """One SPI frame: the chip select on GPIO ``select`` low, ``data`` out, as many
            bytes in, the chip select high again."""
            ...

    class Line(Protocol):
        def value(self) -> int:
            """An input pin's level: 1 high, 0 low."""
            ...

    Write = Callable[[bytes], object]
    Idle = Callable[[], None]

SPIN_US = 2  # between two looks at a line that changes within microseconds (PN5180 BUSY)


class ChipError(Exception):
    """A reader chip did not answer as its datasheet says: unplugged, no power, a chip select on
    another pin, a BUSY wire missing."""


class Timer:
    """The board's clock for the chip code. Every wait first runs ``idle`` (the reporter's due
    repeats and heartbeats), so that a long scan, a 52-card muck or a tall stack of chips, never
    holds up the lines the other antennas' tags are owed."""

    def __init__(self, clock: "Clock") -> None:
        self.clock = clock
        self.idle = None  # type: Idle | None
        self._idling = False

    def now_us(self) -> int:
        return self.clock.now_us()

    def sleep_us(self, us: int) -> None:
        end = self.clock.now_us() + us
        if self.idle is not None and not self._idling:
            self._idling = True  # what idle does may wait too: never idle inside idle
            try:
                self.idle()
            finally:
                self._idling = False
        left = end - self.clock.now_us()
        if left > 0:
            self.clock.sleep_us(left)

    def spin(self) -> None:
        self.clock.sleep_us(SPIN_US)
