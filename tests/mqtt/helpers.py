"""A table service publishing through its `TableLink` to the test broker."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from controller.events import parse_event
from controller.mqtt.link import TableLink
from controller.mqtt.outbox import Outbox
from controller.session import SessionConfig
from controller.table.journal import Journal
from controller.table.runner import TeeSink
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from tests.venue import Broker, address, login
from tests.waiting import wait_until


@dataclass
class LinkedTable:
    service: TableService
    link: TableLink
    outbox: Outbox
    memory: MemorySink

    def feed(self, raws: list[dict[str, Any]]) -> None:
        """Through the service's queue, as the drivers hand events over."""
        for raw in raws:
            self.service.submit(parse_event(raw))

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until the loop has applied everything queued."""
        assert self.service.drain(timeout), "the table loop did not catch up"


def hands_of(script: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A played session's script cut before each shuffle press: the seating first, then one
    part per hand (to feed a table hand by hand, around an outage)."""
    parts: list[list[dict[str, Any]]] = [[]]
    for raw in script:
        if raw["type"] == "shuffle":
            parts.append([])
        parts[-1].append(raw)
    return parts


@contextlib.contextmanager
def linked_table(broker: Broker, directory: Path, table: str = "1",
                 config: SessionConfig | None = None,
                 clock: Callable[[], float] = time.time) -> Iterator[LinkedTable]:
    """``clock``: the table's own wall clock (a Pi's may be wrong)."""
    memory = MemorySink()
    outbox = Outbox(directory / "outbox.db")
    link = TableLink(address(broker), login(broker, f"table-{table}"), table, outbox,
                     clock=clock)
    service = TableService(config or SessionConfig(table_id=table),
                           Journal(directory / "journal.db"), TeeSink([link, memory], MemorySink()))
    service.start()
    link.start(service.submit)
    try:
        assert link.listening.wait(10), "the table did not connect and subscribe"
        yield LinkedTable(service, link, outbox, memory)
    finally:
        link.close()
        service.close()
        outbox.close()



class Beating(Protocol):
    """A service's ticker loop as its watchdog sees it (`Loop`): it beats as each tick begins."""

    def stuck_for(self, now: float) -> float: ...


def a_whole_tick(loop: Beating, timeout: float = 10.0, after: float | None = None) -> bool:
    """Until the service's ticker has run a whole tick that began after this call, or after
    ``after`` (a `time.monotonic` instant: a retry's time, say) if later; that is, the second
    beat since (each tick beats first, then decides). What its ticks decide from what it knew
    then, it has decided by then: the sentinel of a decision a tick would take."""
    def last_beat() -> float:
        now = time.monotonic()
        return now - loop.stuck_for(now)

    since = max(time.monotonic(), after or 0.0)
    if not wait_until(lambda: last_beat() > since, timeout + max(0.0, since - time.monotonic())):
        return False
    first = last_beat()
    return wait_until(lambda: last_beat() > first + 0.01, timeout)  # (ticks: 0.25 s or more)
