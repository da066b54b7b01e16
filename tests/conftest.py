"""Shared fixtures: where the sample hands are; a real Mosquitto for the tests that talk
MQTT (tests/mqtt, tests/room)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker

# Real hands in PHH, kept in the repository with their source and licence (tests/data/phh).
PHH_DIR = Path(__file__).resolve().parent / "data" / "phh"


@pytest.fixture(scope="session")
def phh_files() -> list[Path]:
    files = sorted(PHH_DIR.glob("*.phh"))
    assert len(files) == 41, f"expected the 41 PHH samples in {PHH_DIR}"
    return files


@pytest.fixture(scope="module")
def broker() -> Iterator[LocalBroker]:
    """A Mosquitto configured by `pokertable broker init` on free ports, per test module."""
    with LocalBroker("testhall", tables=3) as running:
        written = json.loads((running.directory / "credentials.json").read_text())
        assert set(written) == set(running.credentials)
        yield running
