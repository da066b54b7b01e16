"""A reader made of reader chips, one per antenna, polled by the Pi: scans in, table events out.

One thread per reader (per SPI bus, or per PN532 serial port) runs the scan loop
(drivers/scan.py); every finished scan of an antenna is a set of tags read there, handed to the
zone events (drivers/zone_events.py) that turn arrivals into cards and settled zones into chips.

Health, loud when wrong: a bus that cannot be opened (SPI not enabled, a serial port gone) is
``reconnecting`` with the cause and is retried with backoff; a chip that does not answer (read
0x00 or 0xFF: a chip select on the wrong pin, no power) is reported ``offline`` by its own device
name (``cards/seat:3``) with one log line naming the wire to check, its tags are gone, and it is
tried again every second until it answers, then ``ok``. A chip that fails one scan is set up
again at once and keeps its tags (a hiccup); one that keeps doing so is ``noisy`` (still read)
until a minute passes without a hiccup.
"""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from gpiozero.pins import Factory

from controller.events import Emit, HealthEvent
from drivers.reader_config import ReaderConfig
from drivers.reader_thread import ReaderThread
from drivers.registry import ChipSet, Deck
from drivers.scan import MOST_TAGS, ChipError, Clock, ReaderChip, Reading, RealClock, Scan, ScanLoop
from drivers.spi import ChipSelects, LinuxSpi, SpiBus, SpiModules
from drivers.zone_events import ZoneEvents

log = logging.getLogger(__name__)
Status = Literal["ok", "reconnecting", "offline", "noisy"]
RETRY_CHIP = 1.0  # s between tries of a chip that stopped answering
RETRY_SOON = 0.1  # s after one failed scan before the chip is set up again (a hiccup?)
# A chip whose scans keep failing and that answers each time it is set up again (a loose
# contact, a sagging supply, a flaky USB adapter) is `noisy` after this many hiccups within a
# minute: still read, and the floor told; `ok` again after a minute without one.
FLAPPING, FLAP_WINDOW = 5, 60.0
ANSWERING = ("ok", "noisy")  # a chip in either state is scanned and its reads count
# Whole scans in a row without a tag before it has gone: a card in the field answers every
# time; a chip deep in a stack may miss an answer now and then (drivers/pn5180.py).
MISSES = {"cards": 2, "chips": 3}


@dataclass
class OpenedChips:
    """The chips of an opened reader, by antenna, and how to let go of the bus."""

    chips: dict[int, ReaderChip]
    close: Callable[[], None] = field(default=lambda: None)
    where: dict[int, str] = field(default_factory=dict)  # antenna -> "chip select GPIO 22"


Connect = Callable[[], OpenedChips]


class ChipReader(ReaderThread):
    """A running reader of chips. ``close()`` is idempotent; also a context manager."""

    def __init__(self, config: ReaderConfig, emit: Emit, connect: Connect, *,
                 deck: Deck | None = None, chips: ChipSet | None = None,
                 clock: Clock | None = None) -> None:
        self.config, self._emit, self._connect = config, emit, connect
        self.clock = clock or RealClock()
        self.zones = ZoneEvents(config.name, config.zones, config.reads, emit, deck=deck,
                                chips=chips, presence_timeout=config.presence_timeout,
                                settle=config.settle, by_scans=True)
        self.status: Status = "reconnecting"
        self.chip_status: dict[int, Status] = {}
        self.names: dict[int, str] = {}  # antenna -> the chip's name and version
        self.scans: dict[int, int] = {}  # antenna -> scans done (reads per second: bring-up)
        self.reconnects = 0
        self.hiccups = 0  # scans a chip failed and answered again when set up at once
        self._opened: OpenedChips | None = None
        self._loop: ScanLoop | None = None
        self._retry_at: dict[int, float] = {}
        self._suspect: set[int] = set()  # failed one scan: set up again at _retry_at
        self._hiccup_times: dict[int, deque[float]] = {}  # the last minute's, by antenna
        super().__init__(config.name, config.retry_max)

    # ---------------------------------------------------------------- one step at a time

    def _is_open(self) -> bool:
        return self._opened is not None

    def _open_device(self) -> bool:
        return self.open()

    def _work(self) -> None:
        self.step()

    def open(self) -> bool:
        """Open the bus and start every chip; False (and ``reconnecting``) if the bus cannot
        be opened."""
        try:
            opened = self._connect()
        except (OSError, ValueError) as exc:  # SpiError, SerialException, a GPIO in use
            self._set_status("reconnecting", str(exc))
            return False
        self._opened = opened
        now = self.clock.now()
        for antenna in sorted(opened.chips):
            self._try_chip(antenna, now)
        self._loop = ScanLoop({a: self._scan_of(a) for a in opened.chips}, self.clock,
                              parallel=self.config.running_at_once,
                              period=self.config.period, on_result=self._scanned)
        self.zones.opened(now)  # each chip zone reported once (a restart's swept zones)
        self._set_status("ok")
        return True

    def step(self, seconds: float = 0.05) -> None:
        """Scan for about ``seconds`` of the clock, then run the timeouts."""
        assert self._loop is not None
        try:
            self._loop.run_once(seconds)
        except OSError as exc:  # the bus itself failed (a serial adapter unplugged)
            log.warning("reader %s lost its bus: %s", self.config.name, exc)
            self._lost(str(exc))
            return
        self.zones.tick(self.clock.now())

    def _scan_of(self, antenna: int) -> Callable[[], Scan]:
        def scan() -> Scan:
            if antenna in self._suspect or self.chip_status.get(antenna) not in ANSWERING:
                if self.clock.now() < self._retry_at.get(antenna, 0.0):
                    return Reading([], complete=False)
                if not self._try_chip(antenna, self.clock.now()):
                    return Reading([], complete=False)
            assert self._opened is not None
            return (yield from self._opened.chips[antenna].scan())
        return scan

    def _try_chip(self, antenna: int, now: float) -> bool:
        assert self._opened is not None
        try:
            self.names[antenna] = self._opened.chips[antenna].start()
        except ChipError as exc:
            self._suspect.discard(antenna)  # (really gone: offline, its tags gone)
            self._chip_failed(antenna, exc, now)
            return False
        if antenna in self._suspect:  # a hiccup: still answering, what lies there stays
            self._suspect.discard(antenna)
            self.hiccups += 1
            self._hiccuped(antenna, now)
            return True
        self.zones.heard(antenna, now)  # (a chip zone back from offline: read again)
        self._set_chip(antenna, "ok", "")
        return True

    def _hiccuped(self, antenna: int, now: float) -> None:
        times = self._recent_hiccups(antenna, now)
        times.append(now)
        if len(times) >= FLAPPING:
            self._set_chip(antenna, "noisy", (
                f"{self.describe(antenna)} failed {len(times)} scans in the last minute and "
                "answered each time it was set up again: check its wires and its supply (a "
                "module on USB: its adapter and cable)"))

    def _steady(self, antenna: int, now: float) -> None:
        """A noisy chip that has read a minute without a hiccup is ok again."""
        if not self._recent_hiccups(antenna, now):
            self._set_chip(antenna, "ok", "")

    def _recent_hiccups(self, antenna: int, now: float) -> deque[float]:
        """The antenna's hiccups of the last minute (older ones dropped)."""
        times = self._hiccup_times.setdefault(antenna, deque())
        while times and now - times[0] > FLAP_WINDOW:
            times.popleft()
        return times

    def _scanned(self, antenna: int, result: Reading | ChipError, began: float,
                 now: float) -> None:
        if isinstance(result, ChipError):
            if self.chip_status.get(antenna) in ANSWERING and antenna not in self._suspect:
                # One failed scan of a chip that was answering: set up again a moment later
                # before anything is said. One late answer (a PN532's on a busy USB bus) took
                # every tag on its antenna away and brought them back a second later as new
                # arrivals: cards read as dealt out of order, a card seen twice.
                self._suspect.add(antenna)
                self._retry_at[antenna] = now + RETRY_SOON
                log.info("reader %s: %s failed a scan (%s): it is set up again",
                         self.config.name, self.describe(antenna), result)
                return
            self._chip_failed(antenna, result, now)
            return
        status = self.chip_status.get(antenna)
        if status not in ANSWERING:
            return  # not tried this time (still offline)
        if status == "noisy":
            self._steady(antenna, now)
        self.scans[antenna] = self.scans.get(antenna, 0) + 1
        for uid in result.arrived:
            self.zones.arrived(antenna, uid, now)
        if result.complete:
            self.zones.scanned(antenna, result.uids, began, now, MISSES[self.config.reads])

    @property
    def suspect(self) -> list[int]:
        """The antennas whose chip failed its last scan and is to be set up again."""
        return sorted(self._suspect)

    def _chip_failed(self, antenna: int, error: ChipError, now: float) -> None:
        self._retry_at[antenna] = now + RETRY_CHIP
        self.zones.clear_antennas([antenna], now)
        self._set_chip(antenna, "offline", f"{self.describe(antenna)} {error}")

    def describe(self, antenna: int) -> str:
        """'the module for seat:3 (chip select GPIO 22)'"""
        zone = self.config.zones.get(antenna, f"antenna {antenna}")
        where = self._opened.where.get(antenna) if self._opened else None
        return f"the module for {zone}" + (f" ({where})" if where else "")

    def _lost(self, reason: str) -> None:
        self._let_go()
        self.reconnects += 1
        self.zones.clear(self.clock.now())
        self.chip_status.clear()
        self._suspect.clear()
        self._set_status("reconnecting", reason)

    def _let_go(self) -> None:
        opened, self._opened = self._opened, None
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.close()
        if opened is not None:
            with contextlib.suppress(Exception):  # the device may already be gone
                opened.close()

    # ---------------------------------------------------------------- health

    def device(self, antenna: int) -> str:
        return f"{self.config.name}/{self.config.zones.get(antenna, antenna)}"

    def _set_chip(self, antenna: int, status: Status, reason: str) -> None:
        if self.chip_status.get(antenna) == status:
            return
        before = self.chip_status.get(antenna)
        self.chip_status[antenna] = status
        if status == "ok" and before is None:
            return  # a chip that answered from the start is no news
        if status in ("offline", "noisy"):
            log.warning("reader %s: %s", self.config.name, reason)
        else:
            log.info("reader %s: %s %s", self.config.name, self.describe(antenna),
                     "reads steadily again" if before == "noisy" else "answers again")
        details = {"reason": reason} if reason else {}
        self._emit(HealthEvent(device=self.device(antenna), status=status,
                               ts=self.clock.now(), **details))

    def _set_status(self, status: Status, reason: str = "") -> None:
        if status == self.status:
            return
        self.status = status
        if status == "reconnecting" and reason:
            log.warning("reader %s: %s", self.config.name, reason)
        details: dict[str, object] = {"reconnects": self.reconnects}
        if reason:
            details["reason"] = reason
        self._emit(HealthEvent(device=self.config.name, status=status, ts=self.clock.now(),
                               **details))


def open_chips(config: ReaderConfig, clock: Clock, *, pin_factory: Factory | None = None,
               bus: SpiBus | None = None) -> OpenedChips:
    """The chips of ``config``: its SPI bus (``bus``, or the kernel's at ``config.url``) with
    the chip selects on GPIO, or a PN532's serial port. Raises `OSError` (`SpiError`, a serial
    port that cannot be opened) or `ValueError` (a GPIO pin already in use)."""
    if config.protocol == "pn532":
        import serial

        from drivers.pn532 import Pn532

        try:
            port = serial.serial_for_url(config.url, baudrate=config.speed, timeout=0.05)
        except serial.SerialException as exc:
            raise OSError(f"{config.url}: {exc}") from None
        return OpenedChips({0: Pn532(port, clock, most=MOST_TAGS[config.reads])},
                           close=port.close, where={0: f"serial port {config.url}"})
    from gpiozero import DigitalInputDevice
    from gpiozero.exc import GPIOZeroError

    from drivers.mfrc522 import Mfrc522
    from drivers.pn5180 import Pn5180

    spi: SpiBus = bus if bus is not None else LinuxSpi(config.url, config.speed_hz)
    closers: list[Callable[[], None]] = []
    try:
        selects = ChipSelects(pin_factory, config.decoder, config.selects)
        closers.append(selects.close)
        modules = SpiModules(spi, selects)
        chips: dict[int, ReaderChip]
        owners: dict[str, int] = {}  # one tag, one zone: a move is heard where it lands
        if config.protocol == "mfrc522":
            most = MOST_TAGS[config.reads]
            chips = {a: Mfrc522(modules, a, clock, owners=owners, most=most)
                     for a in config.zones}
        else:
            assert config.busy is not None
            busy = DigitalInputDevice(config.busy, pull_up=None, active_state=True,
                                      pin_factory=pin_factory)
            closers.append(busy.close)
            chips = {a: Pn5180(modules, a, busy, clock, owners=owners) for a in config.zones}
    except (GPIOZeroError, ValueError) as exc:
        for close in closers:
            close()
        spi.close()
        raise ValueError(f"{config.name}: a GPIO pin cannot be used ({exc}): is it on two "
                         "readers, or on a button?") from None
    decoder = config.decoder
    where = {a: (f"decoder line {line}" if decoder else f"chip select GPIO {line}")
             for a, line in config.selects.items()}

    def let_go() -> None:
        for closer in closers:
            closer()
        spi.close()

    return OpenedChips(chips, close=let_go, where=where)
