"""Test helpers for threaded drivers."""

from __future__ import annotations

import threading


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
