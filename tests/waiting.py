"""The one way the tests wait for something another thread or process does: poll a condition
until it holds or a deadline passes. `wait_until` answers whether it came (for tests that then
assert with their own message); `wait_for` fails the test at once, naming what never came.

Neither proves that something did *not* happen: for that, wait for a later message that must come
after it (a sentinel) and look at what came before."""

from __future__ import annotations

import time
from collections.abc import Callable

POLL = 0.02  # seconds between looks: short beside any timeout, long beside a condition's cost


def wait_until(test: Callable[[], object], timeout: float = 10.0) -> bool:
    """Whether ``test()`` became true within ``timeout`` seconds (asked once more at the
    end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(POLL)
    return bool(test())


def wait_for(test: Callable[[], object], timeout: float = 5.0, what: str = "condition") -> None:
    """Wait until ``test()`` is true, else fail: '<what> not met within <timeout> s'."""
    if not wait_until(test, timeout):
        raise AssertionError(f"{what} not met within {timeout} s")
