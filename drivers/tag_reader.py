"""Card and chip readers on a serial line: bytes in, table events out.

The port is opened with pyserial's ``serial_for_url`` from configuration, so a
``/dev/serial/by-id/...`` path, a pty, ``loop://``, ``socket://`` or ``rfc2217://`` all work;
there is no fake mode. One thread per reader moves bytes through the frame decoder, the presence
tracker and the registry, and hands finished events to ``emit``. When the device disappears (USB
unplugged) the thread reports it, forgets what was on the antennas, and reopens the port with
backoff.
"""

from __future__ import annotations

import contextlib
import logging
import termios
import time
from collections import deque
from collections.abc import Callable
from typing import Literal

import serial

from controller.events import Emit, HealthEvent
from drivers.protocols import make_decoder
from drivers.rdm6300 import Rdm6300Decoder
from drivers.reader_config import ReaderConfig
from drivers.reader_thread import ReaderThread
from drivers.registry import ChipSet, Deck
from drivers.zone_events import ZoneEvents

log = logging.getLogger(__name__)



class TagReader(ReaderThread):
    """A running reader. ``close()`` is idempotent; the reader is also a context manager."""

    def __init__(
        self,
        config: ReaderConfig,
        emit: Emit,
        *,
        deck: Deck | None = None,
        chips: ChipSet | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._emit = emit
        self._deck = deck
        self._chips = chips
        self._clock = clock
        self._decoder = make_decoder(config.protocol)
        self._zones = ZoneEvents(config.name, config.zones, config.reads, emit, deck=deck,
                                 chips=chips, presence_timeout=config.presence_timeout,
                                 settle=config.settle)
        self._bad_times: deque[float] = deque()
        self._bad_seen = 0
        self._last_heartbeat: float | None = None
        self.status: Literal["ok", "reconnecting", "offline", "noisy"] = "reconnecting"
        self.reconnects = 0
        self._port: serial.SerialBase | None = None
        super().__init__(config.name, config.retry_max, join_timeout=2)

    # ---------------------------------------------------------------- the read loop

    def _is_open(self) -> bool:
        return self._port is not None

    def _work(self) -> None:
        try:
            assert self._port is not None
            data = self._port.read(self._port.in_waiting or 1)
        except (serial.SerialException, OSError, TypeError) as exc:
            # TypeError: pyserial's own read can fail that way when the fd vanishes.
            log.warning("reader %s lost its device: %s", self.config.name, exc)
            self._lost()
            return
        self.process(data, self._clock())

    def _let_go(self) -> None:
        self._close_port()

    def _open_device(self) -> bool:
        try:
            self._port = serial.serial_for_url(
                self.config.url, baudrate=self.config.speed, timeout=0.05
            )
        except (serial.SerialException, OSError, ValueError, termios.error) as exc:
            # termios.error: the device vanished between open() and pyserial's tcsetattr.
            self._set_status("reconnecting", reason=str(exc))
            return False
        self._last_heartbeat = self._clock()
        self._zones.opened(self._last_heartbeat)  # each chip zone reported once (restart)
        self._set_status("ok")
        return True

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()  # the device may already be gone

    def _lost(self) -> None:
        self._close_port()
        self.reconnects += 1
        self._zones.clear(self._clock())  # nothing is known to be there any more
        self._set_status("reconnecting", reason="device disconnected")

    # ---------------------------------------------------------------- bytes -> events

    def process(self, data: bytes, now: float) -> None:
        """Everything that happens when ``data`` arrives at ``now`` (also called with no data,
        so that timeouts run). Runs on the reader's thread; public for replay-style tests."""
        decoder = self._decoder
        if isinstance(decoder, Rdm6300Decoder):
            for tag in decoder.feed(data):
                self._zones.read(0, tag.uid, now)
        else:
            for frame in decoder.feed(data):
                if frame.kind == "heartbeat":
                    self._last_heartbeat = now
                elif frame.antenna is not None and frame.uid is not None:
                    if frame.kind == "read":
                        self._zones.read(frame.antenna, frame.uid, now)
                    else:
                        self._zones.removed(frame.antenna, frame.uid, now)
        self._zones.tick(now)
        self._check_health(now)

    # ---------------------------------------------------------------- health

    def bad_per_minute(self, now: float) -> int:
        while self._bad_times and now - self._bad_times[0] > 60:
            self._bad_times.popleft()
        return len(self._bad_times)

    def _check_health(self, now: float) -> None:
        fresh = self._decoder.bad - self._bad_seen
        if fresh:
            self._bad_seen = self._decoder.bad
            self._bad_times.extend([now] * fresh)
        if self._port is None and self.status == "reconnecting":
            return
        status: Literal["ok", "offline", "noisy"] = "ok"
        if (
            self.config.protocol == "pt1" and self._last_heartbeat is not None
            and now - self._last_heartbeat > self.config.heartbeat_timeout
        ):
            status = "offline"
        elif self.bad_per_minute(now) >= 30:
            status = "noisy"
        self._set_status(status)

    def _set_status(
        self, status: Literal["ok", "reconnecting", "offline", "noisy"], reason: str = ""
    ) -> None:
        if status == self.status:
            return
        self.status = status
        self._emit(self.health(reason))

    def health(self, reason: str = "") -> HealthEvent:
        now = self._clock()
        details: dict[str, object] = {
            "frames": self._decoder.frames, "bad": self._decoder.bad,
            "bad_per_minute": self.bad_per_minute(now), "reconnects": self.reconnects,
        }
        if reason:
            details["reason"] = reason
        return HealthEvent(device=self.config.name, status=self.status, ts=now, **details)
