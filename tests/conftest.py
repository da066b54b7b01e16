"""Shared fixtures: where the sample hands are; a real Mosquitto for the tests that talk
MQTT (tests/mqtt, tests/room); a real PostgreSQL for the record store's tests, which run against
both stores (`store_location`)."""

from __future__ import annotations

import json
import shutil
import signal
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from controller.mqtt.local_broker import LocalBroker
from harness.pg_cluster import PgCluster
from tests.league import League, running_league

# One Chromium per test process for the tests that drive a page (tests/browsers.py); pytest run
# by a test (`pytester`), for what only a whole run shows.
pytest_plugins = ("tests.browsers", "pytester")

# `make test` runs seven workers on two cores: a limit in wall-clock time on one example, or on
# drawing its inputs, measures the machine's load there, not the code (a draw that waited 1.1 s
# for the CPU failed Hypothesis' too_slow health check in a clean run). What each property
# asserts, and how many examples it tries, are its own.
settings.register_profile("pokertable", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pokertable")

# Real hands in PHH, kept in the repository with their source and licence (tests/data/phh).
PHH_DIR = Path(__file__).resolve().parent / "data" / "phh"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: a long end-to-end run of the room or the demo as a person starts it "
        "(real processes, real time); `make test` runs them, `pytest -m 'not e2e'` leaves "
        "them out while working")
    config.addinivalue_line(
        "markers", "long(seconds): about how long the test takes on a quiet 2-core machine; "
        "under pytest-xdist the long tests are dealt out first, one worker's share each "
        "(`pytest_collection_modifyitems` below), so that none starts last")
    config.addinivalue_line(
        "markers", "real_password_cost: the floor's password hashes at the real argon2id cost "
        "(tests/room's in-process floors otherwise hash at the lowest: tests/room/conftest.py)")


E2E_SECONDS = 20.0  # an e2e test without a `long` marker: a room started and stopped, about


def seconds_of(item: pytest.Item) -> float:
    """What a test's `long` marker says it takes (an e2e test's default), 0 for the rest."""
    marker = item.get_closest_marker("long")
    if marker is not None:
        return float(marker.args[0])
    return E2E_SECONDS if item.get_closest_marker("e2e") is not None else 0.0


@pytest.hookimpl(trylast=True)  # (after `-m` and `-k` have deselected what they leave out)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the long tests first, in each worker's share. `make test` runs
    ``--dist worksteal``, which gives each of the n workers an equal run of the collection at
    the start (the i-th run the i-th slice of what is left, shared evenly) and lets an idle
    worker take the end of a busy one's queue: each run here begins with long tests summing
    to about the same (longest first to the run with the least), the other tests follow in
    their own order. No long test then waits at a queue's end for a worker to come free (a
    2-minute test that started in the last minute made a 2-minute tail)."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 0))
    if workers < 2:
        return
    long = sorted((item for item in items if seconds_of(item) > 0), key=lambda i: -seconds_of(i))
    rest = [item for item in items if seconds_of(item) == 0]
    runs: list[list[pytest.Item]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for item in long:
        k = min(range(workers), key=load.__getitem__)
        runs[k].append(item)
        load[k] += seconds_of(item)
    ordered: list[pytest.Item] = []
    left = len(items)
    for k, run in enumerate(runs):
        size = left // (workers - k)  # what worksteal gives the k-th worker at the start
        left -= size
        fill = max(0, size - len(run))
        ordered += run + rest[:fill]
        del rest[:fill]
    items[:] = ordered + rest


# What a service's CLI run in-process installs (`_stop_on_signals` in controller/cli/common.py,
# the table runner): handlers that set an Event nobody waits on once the command has returned.
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@pytest.fixture(autouse=True)
def signal_handlers_restored() -> Iterator[None]:
    """Each test leaves the process's SIGTERM, SIGINT and SIGHUP handlers as it found them: a
    pytest that kept a CLI's SIGTERM handler could no longer be stopped by `timeout`."""
    if threading.current_thread() is not threading.main_thread():
        yield  # (handlers can only be set from the main thread: a test here sets none either)
        return
    before = {signum: signal.getsignal(signum) for signum in SIGNALS}
    yield
    for signum, handler in before.items():
        if handler is not None and signal.getsignal(signum) is not handler:
            signal.signal(signum, handler)


@pytest.fixture(scope="session")
def phh_files() -> list[Path]:
    files = sorted(PHH_DIR.glob("*.phh"))
    assert len(files) == 41, f"expected the 41 PHH samples in {PHH_DIR}"
    return files


@pytest.fixture
def pokerkit_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a test that asks PokerKit a great deal: its evaluations remembered, its answers its
    own (tests/pokerkit_evaluations.py; imported here only when a test asks for it)."""
    from tests.pokerkit_evaluations import remember_evaluations

    remember_evaluations(monkeypatch)


@pytest.fixture(scope="module")
def broker() -> Iterator[LocalBroker]:
    """A Mosquitto configured by `pokertable broker init` on free ports, per test module."""
    with LocalBroker("testhall", tables=3) as running:
        written = json.loads((running.directory / "credentials.json").read_text())
        assert set(written) == set(running.credentials)
        yield running


@pytest.fixture
def league() -> Iterator[League]:
    """The league's broker and two venues bridged to it, each venue with its own table 1
    (tests/league.py)."""
    with running_league() as running:
        yield running


@pytest.fixture
def reachable() -> Iterator[Path]:
    """A directory the broker's user can enter (pytest's own are 0700 under a 0700 parent):
    Mosquitto started as root reads its files as the ``mosquitto`` user."""
    path = Path(tempfile.mkdtemp(prefix="pokertable-test-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One throwaway PostgreSQL per test process (each xdist worker starts its own, in about a
    second, when its first test needs it); each test takes a schema of its own."""
    with PgCluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a fresh record store is: a SQLite file, or an empty schema of the test cluster
    (`open_record_store` takes either)."""
    if request.param == "sqlite":
        return tmp_path / "records.db"
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.new_schema(f"t_{uuid.uuid4().hex[:16]}")
