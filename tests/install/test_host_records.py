"""The floor reads the recorder's store on an installed host (docs/install.md): as another user
in the recorder's group, without any right to write the recorder's directory, while the
recorder writes, across the recorder's restart, and not before the recorder has made the
store (the floor starts anyway and reads it later); the store's files 0640, never readable by
anyone else. PostgreSQL: a role that may only SELECT reads it the same way."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from controller.engine.records import HandRecord
from controller.history.query import HandQuery
from controller.mqtt.messages import SecureRecordMessage
from controller.room.floor.sealed_records import RETRY_SECONDS, SealedRecords
from controller.room.recorder import StoreUnavailable, open_record_store
from controller.room.recorder.sqlite import SqliteRecordStore
from controller.session.outputs import hand_id
from harness.pg_cluster import USER, PgCluster
from tests.session.helpers import played_session, start

GROUP = 64_123  # the recorder's group on the host (pokertable-hands): the floor is in it
READER = 64_124  # the floor's user: not the recorder's, not root
STRANGER = 64_125  # any other user


def records(count: int) -> list[HandRecord]:
    played = start(played_session(hands=6, seed=11, players=6)).records()
    assert len(played) >= count
    return played[:count]


def message(record: HandRecord) -> SecureRecordMessage:
    return SecureRecordMessage(id=hand_id(record.table, record.hand, record.started),
                               table=record.table, hand=record.hand, sent=1.0, record=record)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Reader:
    """The floor's reader in a process of its own, as another user (root runs the tests: a
    forked child drops to READER in GROUP); not root: this user, with the recorder's directory
    and files made read-only for the reading, which is what another user in the group has.
    ``ask()`` has it read the store and answer with the hands it found (or why not)."""

    def __init__(self, store: Path, uid: int = READER, group: int = GROUP) -> None:
        self.store = store
        self.root = os.geteuid() == 0
        asks_r, self._asks = os.pipe()
        self._answers, answers_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: the floor's user from here on
            code = 1
            try:
                os.close(self._asks)
                os.close(self._answers)
                if self.root:
                    os.setgroups([group])
                    os.setgid(uid)
                    os.setuid(uid)
                ticks = itertools.count(step=RETRY_SECONDS)  # each read: time to try again
                reader = SealedRecords(store, now=lambda: float(next(ticks)))
                with os.fdopen(asks_r, "rb", 0) as asks, os.fdopen(answers_w, "wb", 0) as out:
                    while asks.read(1) == b"?":
                        try:
                            found: dict[str, object] = {"hands": [
                                [k.record.hand, k.record.hole_cards]
                                for k in reader.hands(HandQuery(limit=100))]}
                        except StoreUnavailable as exc:
                            found = {"unavailable": str(exc)}
                        out.write(json.dumps(found).encode() + b"\n")
                reader.close()
                code = 0
            finally:
                os._exit(code)
        os.close(asks_r)
        os.close(answers_w)
        self._out = os.fdopen(self._answers, "rb", 0)

    def ask(self) -> dict[str, object]:
        with self._read_only():
            os.write(self._asks, b"?")
            line = b""
            while not line.endswith(b"\n"):
                chunk = self._out.read(1)
                assert chunk, "the reader died"
                line += chunk
        answer: dict[str, object] = json.loads(line)
        return answer

    @contextlib.contextmanager
    def _read_only(self) -> Iterator[None]:
        """(Not root: the directory and the files read-only while the reader reads.)"""
        if self.root:
            yield
            return
        paths = [p for p in (self.store.parent, self.store, Path(f"{self.store}-wal"),
                             Path(f"{self.store}-shm")) if p.exists()]
        modes = {p: mode(p) for p in paths}
        for p in paths:
            p.chmod(0o550 if p.is_dir() else 0o440)
        try:
            yield
        finally:
            for p, m in modes.items():
                p.chmod(m)

    def close(self) -> None:
        os.close(self._asks)
        self._out.close()
        _, status = os.waitpid(self.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0


@pytest.fixture
def recorder_dir(reachable: Path) -> Path:
    """The recorder's state directory as the installer and systemd make it: 0750, the
    recorder's group (in a directory other users may enter: /var/lib/pokertable)."""
    directory = reachable / "recorder"
    directory.mkdir()
    directory.chmod(0o750)
    if os.geteuid() == 0:
        os.chown(directory, 0, GROUP)
    return directory


@contextlib.contextmanager
def as_recorder() -> Iterator[None]:
    """The recorder's process: its group is GROUP (the unit's Group=), its umask 077."""
    umask = os.umask(0o077)
    root = os.geteuid() == 0
    if root:
        os.setegid(GROUP)
    try:
        yield
    finally:
        if root:
            os.setegid(0)
        os.umask(umask)


def hands_of(answer: dict[str, object]) -> list[int]:
    assert "hands" in answer, answer
    found = answer["hands"]
    assert isinstance(found, list)
    return [hand for hand, _ in found]


def test_the_floors_user_reads_the_recorders_store_while_it_writes(recorder_dir: Path) -> None:
    played = records(3)
    path = recorder_dir / "records.db"
    reader = Reader(path)  # (forked before the recorder takes its lock: another process's)
    with as_recorder():
        store = SqliteRecordStore(path, group_read=True)
        assert store.add(message(played[0]), 1.0)
    for name in ("records.db", "records.db-wal", "records.db-shm"):  # SQLite's three
        file = recorder_dir / name
        assert mode(file) == 0o640, name  # never anyone else's
        if os.geteuid() == 0:
            assert file.stat().st_gid == GROUP, name
    try:
        first = reader.ask()
        assert hands_of(first) == [played[0].hand]
        cards = {str(seat): held for seat, held in played[0].hole_cards.items()}
        assert first["hands"] == [[played[0].hand, cards]]  # every hole card
        with as_recorder():
            assert store.add(message(played[1]), 2.0)
        assert hands_of(reader.ask()) == [r.hand for r in played[:2]]
        # The recorder restarts (an upgrade): the reader's store stays open and reads on.
        store.close()
        with as_recorder():
            store = SqliteRecordStore(path, group_read=True)
            assert store.add(message(played[2]), 3.0)
        assert hands_of(reader.ask()) == [r.hand for r in played[:3]]
    finally:
        reader.close()
        store.close()
    assert not Path(f"{path}-wal").exists()  # the last one out: SQLite removed its files


def test_a_floor_started_before_the_recorder_reads_the_store_once_it_is_there(
        recorder_dir: Path) -> None:
    played = records(1)
    path = recorder_dir / "records.db"
    reader = Reader(path)
    try:
        before = reader.ask()
        assert "no such store" in str(before.get("unavailable")), before
        with as_recorder():
            store = SqliteRecordStore(path, group_read=True)
            assert store.add(message(played[0]), 1.0)
        assert hands_of(reader.ask()) == [played[0].hand]
        store.close()
    finally:
        reader.close()


def test_a_store_the_recorder_closed_is_read_again_when_it_runs(recorder_dir: Path) -> None:
    """Nobody had it open, so SQLite removed its -wal and -shm, which a reader that may not
    write the directory cannot make: it is unavailable (no crash, no file touched), then read
    once the recorder runs."""
    played = records(2)
    path = recorder_dir / "records.db"
    with as_recorder():
        SqliteRecordStore(path, group_read=True).close()
    assert sorted(p.name for p in recorder_dir.iterdir()) == ["records.db", "records.db.lock"]
    reader = Reader(path)
    try:
        assert "cannot be read yet" in str(reader.ask().get("unavailable"))
        assert sorted(p.name for p in recorder_dir.iterdir()) == ["records.db",
                                                                  "records.db.lock"]
        with as_recorder():
            store = SqliteRecordStore(path, group_read=True)
            store.add(message(played[0]), 1.0)
        assert hands_of(reader.ask()) == [played[0].hand]
        store.close()
    finally:
        reader.close()


def test_no_one_else_reads_it(recorder_dir: Path) -> None:
    if os.geteuid() != 0:  # (a test user has no other user: the modes say it)
        with as_recorder():
            SqliteRecordStore(recorder_dir / "records.db", group_read=True).close()
        assert mode(recorder_dir / "records.db") & 0o007 == 0
        return
    stranger = Reader(recorder_dir / "records.db", uid=STRANGER, group=STRANGER)
    with as_recorder():
        store = SqliteRecordStore(recorder_dir / "records.db", group_read=True)
    try:  # (the directory is the group's: he cannot even look for the file)
        assert "Permission denied" in str(stranger.ask().get("unavailable"))
    finally:
        stranger.close()
        store.close()


def test_a_store_made_0600_before_is_opened_up_to_the_group_and_back(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    with as_recorder():
        SqliteRecordStore(path).close()
        assert mode(path) == 0o600
        store = SqliteRecordStore(path, group_read=True)
        assert {mode(p) for p in tmp_path.glob("records.db*") if "lock" not in p.name} == \
            {0o640}
        store.close()
        SqliteRecordStore(path).close()
    assert mode(path) == 0o600


def test_a_postgresql_role_that_may_only_select_reads_the_store(pg_cluster: PgCluster) -> None:
    played = records(2)
    schema = f"t_{uuid.uuid4().hex[:16]}"
    url = pg_cluster.new_schema(schema)
    store = open_record_store(url)
    try:
        assert store.add(message(played[0]), 1.0)
        role, password = f"floor_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
        with psycopg.connect(pg_cluster.url(), autocommit=True) as conn:  # docs/install.md
            conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
            conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
            conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
        reader_url = url.replace(f"postgresql://{USER}:{pg_cluster.password}@",
                                 f"postgresql://{role}:{password}@")
        assert reader_url != url
        reader = SealedRecords(reader_url)
        found = reader.hands(HandQuery())
        assert [(k.record.hand, k.record.hole_cards) for k in found] == \
            [(played[0].hand, played[0].hole_cards)]
        assert store.add(message(played[1]), 2.0)
        assert [k.record.hand for k in reader.hands(HandQuery())] == [r.hand for r in played]
        reader.close()
        with psycopg.connect(reader_url, autocommit=True) as conn, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM records")
    finally:
        store.close()


def test_a_reader_that_cannot_open_says_so_once_and_waits_before_trying_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = [100.0]
    opened: list[str] = []

    def opener(where: object) -> SqliteRecordStore:
        opened.append(str(where))
        return SqliteRecordStore(tmp_path / "records.db", readonly=True)

    now: Callable[[], float] = lambda: clock[0]  # noqa: E731
    reader = SealedRecords(tmp_path / "records.db", opener=opener, now=now)
    for _ in range(3):
        with pytest.raises(StoreUnavailable, match="no such store"):
            reader.hands(HandQuery())
    assert len(opened) == 1  # not again within RETRY_SECONDS
    assert sum("cannot be read yet" in r.message for r in caplog.records) == 1
    SqliteRecordStore(tmp_path / "records.db").close()
    clock[0] += RETRY_SECONDS
    assert reader.hands(HandQuery()) == [] and len(opened) == 2
    reader.close()
