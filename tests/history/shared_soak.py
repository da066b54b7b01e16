"""A simulated soak's records, made once per test run and shared by every pytest-xdist worker
that needs them (controller/sim/soak.py plays them through the real `TableSession`)."""

from __future__ import annotations

import fcntl
import os

import pytest

from controller.engine.records import HandRecord
from controller.sim.soak import soak


def soak_records(tmp_path_factory: pytest.TempPathFactory, tables: int, hands: int, seed: int,
                 cash: bool = False) -> list[HandRecord]:
    """The records of ``soak(tables, hands, seed, cash)``, made once per test run: the first
    pytest-xdist worker to need them writes them under a lock, the others read that file (a
    module's fixture is otherwise made again by each worker its tests are dealt to)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # this run's directory, the same for every xdist worker
    path = shared / f"soak-records-{tables}x{hands}-{seed}{'-cash' if cash else ''}.jsonl"
    with path.with_suffix(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            records: list[HandRecord] = []
            soak(tables, hands, seed=seed, cash=cash, records=records.append)
            temporary = path.with_suffix(".tmp")
            temporary.write_text("".join(r.model_dump_json() + "\n" for r in records))
            temporary.replace(path)
    return [HandRecord.model_validate_json(line) for line in path.read_text().splitlines()]


__all__ = ["soak_records"]
