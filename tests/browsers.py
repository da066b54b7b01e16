"""One real headless Chromium per test process, for every test that drives a page (the floor
display, a player's page, the broadcast feed): Playwright and the browser start when the first
such test asks for them and stop when the process ends; the pages a test opened are closed at
its end.

One per test module before: some 26 starts of Playwright's driver and of Chromium in a run, at
about 0.7 s of CPU each (issue 37). Playwright's sync API marks its event loop as running in the
main thread from its start to its stop, and a test after it on the same worker that runs a loop
of its own there (`asyncio.run`) would be refused: every test that drives no page runs with that
mark lifted, and it is put back after the test for the next page."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

_playwright_loops: list[asyncio.AbstractEventLoop] = []  # this process's, once started


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    from harness.chromium import CHROMIUM, CHROMIUM_FLAGS

    with sync_playwright() as playwright:
        _playwright_loops.append(asyncio.get_running_loop())
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """This process's Chromium; the pages the test opened are closed at its end. Left open,
    each went on ticking its clocks four times a second and reconnecting to a server that was
    gone, for the rest of the run."""
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.fixture(autouse=True)
def no_browser_loop_in_the_way(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that drives no page runs without Playwright's loop marked as running."""
    running = asyncio.events._get_running_loop()
    if "chromium" in request.fixturenames or running is None or running not in _playwright_loops:
        yield
        return
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(running)
