"""A long simulated session whose every hand the exports are checked on: the soak's tables
(controller/sim/soak.py) play through the real `TableSession` with random structures (antes,
big-blind antes), random stacks (short blinds, all-ins, side pots, split pots), pot-limit Omaha at
a quarter of the tables, misdeals the floor calls. The records are made once per test run: the
first pytest-xdist worker to need them writes them under a lock, the others read that file."""

from __future__ import annotations

import os

import pytest

from controller.engine.records import HandRecord
from tests.history.shared_soak import soak_records

# EXPORT_SOAK_HANDS=2000 (per table, 8 tables) for a deeper check than make test's.
TABLES = 8
HANDS = int(os.environ.get("EXPORT_SOAK_HANDS", "150"))
SEED = 3


@pytest.fixture(scope="session")
def session_records(tmp_path_factory: pytest.TempPathFactory) -> list[HandRecord]:
    return soak_records(tmp_path_factory, TABLES, HANDS, SEED)
