"""The Pico's hardware for the PT1 reader, and nothing else: the clock, the SPI bus with one
chip select per antenna, input pins, and the USB serial line with the names the table's udev
rule expects. MicroPython only (``machine``, ``time.ticks_us``, micropython-lib's usb-device-cdc);
everything else is in pt1reader/, which also runs under CPython in tests/firmware.
"""

import time

import machine  # type: ignore[import-not-found]
import usb.device  # type: ignore[import-not-found]
from pt1reader.config import MANUFACTURER, PRODUCT  # type: ignore[import-not-found]
from usb.device.cdc import CDCInterface  # type: ignore[import-not-found]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware.pico.pt1reader.config import Spi

# Room for a burst of lines (a 20-chip stack laid down: 20 R lines of 36 bytes) while the host
# is slow to take them; a line that does not fit is cut, and the host counts it as one bad line.
TX_BUFFER = 2048


class Clock:
    """Microseconds since start-up that never wrap: the Pico's ticks_us wraps every 2**30 us
    (18 minutes), so the differences are added up (the scan loop reads the clock many times a
    second; one look every 9 minutes would do)."""

    def __init__(self) -> None:
        self._last = time.ticks_us()  # type: ignore[attr-defined]
        self._us = 0

    def now_us(self) -> int:
        now = time.ticks_us()  # type: ignore[attr-defined]
        self._us += int(time.ticks_diff(now, self._last))  # type: ignore[attr-defined]
        self._last = now
        return self._us

    def sleep_us(self, us: int) -> None:
        if us > 0:
            time.sleep_us(us)  # type: ignore[attr-defined]


class SpiBus:
    """One SPI controller in mode 0, MSB first (both chips), and a chip select per antenna."""

    def __init__(self, spi: "Spi", selects: "list[int]") -> None:
        # Every chip select high (released) before the bus exists: two modules selected at once
        # would drive MISO against each other.
        self._selects = {}
        for pin in selects:
            self._selects[pin] = machine.Pin(pin, machine.Pin.OUT, value=1)
        self._spi = machine.SPI(spi.id, baudrate=spi.baudrate, polarity=0, phase=0, bits=8,
                                firstbit=machine.SPI.MSB, sck=machine.Pin(spi.sck),
                                mosi=machine.Pin(spi.mosi), miso=machine.Pin(spi.miso))

    def exchange(self, select: int, data: bytes) -> bytes:
        reply = bytearray(len(data))
        pin = self._selects[select]
        pin.value(0)
        try:
            self._spi.write_readinto(data, reply)
        finally:
            pin.value(1)
        return bytes(reply)


_inputs = {}  # type: dict[int, object]


def input_line(pin: int) -> object:
    """An input pin (a PN5180's BUSY), pulled down: with no module driving it, it reads idle
    rather than floating. One object per pin, however many modules share it."""
    if pin not in _inputs:
        _inputs[pin] = machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_DOWN)
    return _inputs[pin]


def maintenance(pin: int) -> bool:
    """True while the maintenance pin is tied to ground (a jumper to the GND pin beside it):
    the board then leaves the USB port to MicroPython's REPL, to copy files or run check.py."""
    line = machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP)
    low = not line.value()
    time.sleep_ms(5)  # type: ignore[attr-defined]
    return bool(low and not line.value())  # low twice: not a glitch


class UsbSerial:
    """The board's one USB function: a CDC serial port named manufacturer "pokertable",
    product "PT1", serial number from config.json. MicroPython's own REPL port is left out
    (builtin_driver=False), so this port is interface 0 (the by-id name's "-if00") and the only
    tty with the manufacturer the udev rule matches."""

    def __init__(self, serial: str) -> None:
        # timeout=0: a write never waits. The protocol's reader never waits for the host; what
        # the host does not take in time is lost, and the host sees the gap in the seq.
        self._cdc = CDCInterface(timeout=0, txbuf=TX_BUFFER)
        usb.device.get().init(self._cdc, builtin_driver=False, manufacturer_str=MANUFACTURER,
                              product_str=PRODUCT, serial_str=serial)

    def write(self, data: bytes) -> None:
        if self._cdc.is_open():  # configured by a host: otherwise nobody would read it
            self._cdc.write(data)


def restart() -> None:
    """After an error nobody foresaw: start afresh in a second (the host sees the uptime of the
    next heartbeat drop, and the tags read again)."""
    time.sleep_ms(1000)  # type: ignore[attr-defined]
    machine.reset()
