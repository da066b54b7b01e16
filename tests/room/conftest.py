"""The room's tests share a running clock (on the turbo structure); the floor display's tests
drive the test process's real headless Chromium (tests/browsers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from playwright.sync_api import expect

from controller.mqtt.local_broker import LocalBroker
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import load_structure
from controller.room.floor import accounts
from tests.venue import address, clear_clock_state, login

TURBO = load_structure(Path(__file__).resolve().parents[2] / "deploy" / "structures" /
                       "turbo.toml")


# A loaded 2-core CI machine runs the broker, tables, the server and Chromium at once: give a
# page up to 10 s to show what it must (Playwright's default is 5).
expect.set_options(timeout=10_000)


# argon2id at its lowest cost (one pass over 1 MiB, one lane): the floor servers these tests
# start in process hash and check their staff's passwords with it, a few hundred times in all,
# each at the RFC's cost about 0.2 s of CPU on this kind of machine (a minute of the suite's CPU).
# The same library, the same code path, the same stored format; the servers the demo and room
# tests start as processes, and the tests marked `real_password_cost`, keep the real cost.
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture(autouse=True)
def cheap_password_hashes(request: pytest.FixtureRequest,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("real_password_cost") is None:
        monkeypatch.setattr(accounts, "_hasher", CHEAP_HASHER)
        monkeypatch.setattr(accounts, "_DUMMY", CHEAP_HASHER.hash("no such user, no such password"))


@pytest.fixture
def clock(broker: LocalBroker, tmp_path: Path) -> Iterator[ClockService]:
    store = ClockStore(tmp_path / "clock.db")
    service = ClockService(address(broker), login(broker, "clock"), TURBO, store).start()
    assert service.connected.wait(5)
    yield service
    service.close()
    store.close()
    clear_clock_state(broker)  # (for a table a later test of this module links)
