"""Refused commands of a room service (the tournament, the cash floor, the clock) in the log:
one line each (command, id, reason, rule), a malformed one too, at most `PER_WINDOW` in
`WINDOW_SECONDS`; beyond that a flood is counted and said in one line when the window ends, so
a client gone wrong cannot fill the disk. The reply on ``<service>/reply`` says the same to the
sender. The reasons are the services' own words: no hole card is ever in one (they never see
them)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

PER_WINDOW = 10
WINDOW_SECONDS = 10.0


class RefusalLog:
    def __init__(self, log: logging.Logger, service: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.log, self.service = log, service
        self.clock = clock
        self._start = clock()
        self._logged = 0
        self._dropped = 0

    def refused(self, command: str, request_id: str | None, reason: str,
                rule: str | None = None) -> None:
        self.flush()
        if self._logged >= PER_WINDOW:
            self._dropped += 1
            return
        self._logged += 1
        self.log.warning("%s: command %r (id %r) refused: %s%s", self.service, command[:80],
                         (request_id or "none")[:100], reason[:300], f" ({rule})" if rule else "")

    def flush(self) -> None:
        """A window over: the refusals it did not log, counted in one line."""
        now = self.clock()
        if now - self._start < WINDOW_SECONDS:
            return
        if self._dropped:
            self.log.warning("%s: %d more commands refused in %.0f s were not logged one by "
                             "one (a client sending the same mistake again and again?)",
                             self.service, self._dropped, now - self._start)
        self._start, self._logged, self._dropped = now, 0, 0


__all__ = ["PER_WINDOW", "WINDOW_SECONDS", "RefusalLog"]
