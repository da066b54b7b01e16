"""Test helpers for threaded drivers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


class Events(list[object]):
    """An ``emit`` callable that keeps what driver threads hand it."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def __call__(self, event: object) -> None:
        with self.lock:
            self.append(event)

    def of(self, kind: type) -> list[object]:
        with self.lock:
            return [e for e in self if isinstance(e, kind)]
