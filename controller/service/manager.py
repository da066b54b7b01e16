"""Telling systemd how a service is (sd_notify(3)): ``READY=1`` once it really serves,
``WATCHDOG=1`` only while its own loops move, ``STOPPING=1`` on a clean stop.

The protocol is one datagram of ``KEY=value`` lines to the ``AF_UNIX`` socket named in
``$NOTIFY_SOCKET`` (a leading ``@`` is Linux's abstract namespace). It is written here rather than
taken from a library: the maintained binding (systemd-python) compiles against libsystemd, which
a Pi's venv would have to build, and the small pure-Python packages are unmaintained; the
protocol is documented, stable and a dozen lines.

A `Loop` is one of a service's working loops (the clock's ticker, the table's event thread, the
floor's event loop, the recorder's MQTT callbacks). The `Watchdog` pings systemd only while every
loop has moved within half the watchdog time, so a hung loop stops the pings and systemd
restarts the service (``WatchdogSec=`` in its unit), where a ping from a healthy main thread
alone would keep a dead service alive.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence

log = logging.getLogger(__name__)


# How long a notification may wait for room in the socket's queue. A datagram socket's queue
# is short (net.unix.max_dgram_qlen, 10 by default): a reader that falls behind would otherwise
# block the sender for good, and a service stuck sending STOPPING=1 never stops on SIGTERM. A
# ping that does not fit is dropped (the next comes within half the watchdog time).
SEND_SECONDS = 1.0


def notify(*lines: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``lines`` to systemd; False when not started by it (nothing sent), or when its
    socket did not take them within `SEND_SECONDS` (said in the log, but for a watchdog ping)."""
    address = (environ if environ is not None else os.environ).get("NOTIFY_SOCKET")
    if not address:
        return False
    target = "\0" + address[1:] if address.startswith("@") else address
    message = "\n".join(lines)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.settimeout(SEND_SECONDS)
            sock.sendto(message.encode(), target)
            return True
    except OSError as exc:
        if lines != ("WATCHDOG=1",):
            log.warning("systemd's notify socket %s did not take %r: %s", address,
                        message.replace("\n", "; "), exc)
        return False


class Loop:
    """One working loop of a service, as the watchdog sees it. A loop that ``beats`` calls
    `beat` each time round (at least once a second); one that only runs callbacks (an MQTT
    client's network thread) wraps each in `busy`, and is stuck only when one of them does not
    return."""

    def __init__(self, name: str, *, beats: bool = True) -> None:
        self.name = name
        self.beats = beats
        self._last = time.monotonic()
        self._busy_since: float | None = None

    def beat(self) -> None:
        self._last = time.monotonic()

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        self._busy_since = time.monotonic()
        try:
            yield
        finally:
            self._busy_since = None
            self._last = time.monotonic()

    def stuck_for(self, now: float) -> float:
        """Seconds since the loop last moved (0 for a callback loop at rest)."""
        busy = self._busy_since
        if busy is not None:
            return now - busy
        return now - self._last if self.beats else 0.0


class Watchdog:
    """Pings systemd's watchdog while every loop moves. Inert unless systemd asked for it
    (``$WATCHDOG_USEC``, and ``$WATCHDOG_PID`` naming this process when set)."""

    def __init__(self, loops: Sequence[Loop], environ: Mapping[str, str] | None = None) -> None:
        env = environ if environ is not None else os.environ
        self.loops = list(loops)
        self.environ = env
        usec, pid = env.get("WATCHDOG_USEC"), env.get("WATCHDOG_PID")
        enabled = bool(usec) and (not pid or pid == str(os.getpid()))
        self.interval = int(usec) / 1e6 if enabled and usec else None
        self._last_ping = 0.0
        self._told: set[str] = set()
        self._lock = threading.Lock()

    def stuck(self, now: float | None = None) -> list[tuple[str, float]]:
        """The loops that have not moved within half the watchdog time (10 s without one)."""
        now = time.monotonic() if now is None else now
        limit = self.interval / 2 if self.interval else 10.0
        return [(loop.name, round(loop.stuck_for(now), 1)) for loop in self.loops
                if loop.stuck_for(now) > limit]

    def tick(self) -> None:
        """Call often (the service's main thread does, twice a second): pings at a quarter of
        the watchdog time while all is well; says once which loop hangs when one does."""
        if self.interval is None:
            return
        now = time.monotonic()
        with self._lock:
            if now - self._last_ping < self.interval / 4:
                return
            stuck = self.stuck(now)
            for name, seconds in stuck:
                if name not in self._told:
                    self._told.add(name)
                    log.error("the %s loop has not moved for %.0f s: the watchdog pings stop "
                              "and systemd will restart the service", name, seconds)
            if stuck:
                return
            self._told.clear()
            self._last_ping = now
            notify("WATCHDOG=1", environ=self.environ)


__all__ = ["Loop", "Watchdog", "notify"]
