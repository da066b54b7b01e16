"""The room's tests share a running clock (on the turbo structure) and a real headless
Chromium for the floor display, one per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.topics import Topics
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import load_structure
from tests.room.floor.floor_helpers import CHROMIUM, CHROMIUM_FLAGS
from tests.venue import VenueClient, address, login

TURBO = load_structure(Path(__file__).resolve().parents[2] / "deploy" / "structures" /
                       "turbo.toml")


# A loaded 2-core CI machine runs the broker, tables, the server and Chromium at once: give a
# page up to 10 s to show what it must (Playwright's default is 5).
expect.set_options(timeout=10_000)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def clock(broker: LocalBroker, tmp_path: Path) -> Iterator[ClockService]:
    store = ClockStore(tmp_path / "clock.db")
    service = ClockService(address(broker), login(broker, "clock"), TURBO, store).start()
    assert service.connected.wait(5)
    yield service
    service.close()
    store.close()
    # Its retained state cleared: a table a later test of this module links would otherwise
    # take this clock's level (a level 3 of 100/200 refuses that test's raise to 300)
    clearing = VenueClient(broker, "clock", ())
    try:
        assert not clearing.publish(Topics(broker.plan.venue).clock("state"), b"",
                                    retain=True).is_failure
    finally:
        clearing.close()
