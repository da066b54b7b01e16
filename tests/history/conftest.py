"""A long simulated session whose every hand the exports are checked on: the soak's tables
(controller/sim/soak.py) play through the real `TableSession` with random structures (antes,
big-blind antes), random stacks (short blinds, all-ins, side pots, split pots), pot-limit Omaha at
a quarter of the tables, misdeals the floor calls. The records are made once per test run: the
first pytest-xdist worker to need them writes them under a lock, the others read that file."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from controller.engine.records import HandRecord
from controller.sim.soak import soak

# EXPORT_SOAK_HANDS=2000 (per table, 8 tables) for a deeper check than make test's.
TABLES = 8
HANDS = int(os.environ.get("EXPORT_SOAK_HANDS", "150"))
SEED = 3


def _make(path: Path) -> None:
    records: list[HandRecord] = []
    soak(TABLES, HANDS, seed=SEED, records=records.append)
    temporary = path.with_suffix(".tmp")
    temporary.write_text("".join(r.model_dump_json() + "\n" for r in records))
    temporary.replace(path)


@pytest.fixture(scope="session")
def session_records(tmp_path_factory: pytest.TempPathFactory) -> list[HandRecord]:
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # this run's directory, the same for every xdist worker
    path = shared / f"soak-records-{TABLES}x{HANDS}-{SEED}.jsonl"
    with (shared / "soak-records.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            _make(path)
    return [HandRecord.model_validate_json(line) for line in path.read_text().splitlines()]
