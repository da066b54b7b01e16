"""Real pseudo-terminals standing in for USB serial devices, with a stable by-id style path."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path


class PluggablePty:
    """A pty behind a symlink, like ``/dev/serial/by-id/...``: unplug closes it, plug makes a
    new one and points the link at it (the kernel gives a replugged device a new node too)."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master: int | None = None
        self.plug()

    def plug(self) -> None:
        master, slave = os.openpty()
        name = os.ttyname(slave)
        os.close(slave)  # the driver opens its own end by path
        self.master = master
        if self.link.is_symlink():
            self.link.unlink()
        self.link.symlink_to(name)

    def unplug(self) -> None:
        if self.master is not None:
            os.close(self.master)
            self.master = None

    def write(self, data: bytes) -> None:
        assert self.master is not None, "unplugged"
        os.write(self.master, data)


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)
