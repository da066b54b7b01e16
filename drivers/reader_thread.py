"""A reader's own thread: it opens its device, retrying with backoff until it can, then works
one step at a time until closed. The serial line readers and the readers of chips share it."""

from __future__ import annotations

import threading
from typing import Self


class ReaderThread:
    """``close()`` is idempotent; a reader is also a context manager. Subclasses say whether
    their device is open, how to open it (False: try again later), one step of work, and how to
    let the device go."""

    def __init__(self, name: str, retry_max: float, join_timeout: float = 3.0) -> None:
        self._retry_max, self._join_timeout = retry_max, join_timeout
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"reader-{name}", daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=self._join_timeout)
        self._let_go()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        backoff = 0.05
        while not self._stop.is_set():
            if not self._is_open():
                if not self._open_device():
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self._retry_max)
                    continue
                backoff = 0.05
            self._work()

    def _is_open(self) -> bool:
        raise NotImplementedError

    def _open_device(self) -> bool:
        raise NotImplementedError

    def _work(self) -> None:
        raise NotImplementedError

    def _let_go(self) -> None:
        raise NotImplementedError
