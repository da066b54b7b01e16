"""Secrets at rest: broker files are born with their final mode, `broker init` refuses
directories that would expose them or that the broker cannot reach, and every store that holds
hole cards is the owner's alone, whatever the umask."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.mqtt import broker_init as broker_init_module
from controller.mqtt.broker_init import BrokerPlan, broker_init
from controller.mqtt.local_broker import free_port, mosquitto_binary
from controller.mqtt.outbox import Outbox
from controller.room.recorder import SqliteRecordStore
from controller.storage.private_files import write_private
from controller.table.journal import Journal
from controller.table.sinks import FileSink
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
SECRETS = ("passwd", "server.key", "ca.key", "credentials.json")


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The laxest umask a careless shell could have: nothing may rely on it."""
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def plan() -> BrokerPlan:
    return BrokerPlan(venue="hall", tables=1, port=free_port(), tls_port=free_port())


def mosquitto_user() -> tuple[int, int] | None:
    return broker_init_module._mosquitto_user()


def test_every_secret_is_private_before_its_first_byte_is_written(
        reachable: Path, open_umask: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The old failure: written with the umask's mode and narrowed after (a watcher read them in
    15 of 20 runs). Here each write is checked at the moment the bytes go in."""
    modes_at_write: dict[int, int] = {}  # by inode: a file may be written under another name
    real_write = os.write                 # and renamed into place (write_private)

    def watched_write(fd: int, data: bytes | memoryview) -> int:
        status = os.fstat(fd)
        modes_at_write.setdefault(status.st_ino, status.st_mode & 0o777)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", watched_write)
    broker_init(plan(), reachable / "conf")
    monkeypatch.undo()
    for name in SECRETS:
        assert modes_at_write[(reachable / "conf" / name).stat().st_ino] == 0o600, name
    for name in SECRETS:
        assert (reachable / "conf" / name).stat().st_mode & 0o777 == 0o600, name
    assert (reachable / "conf" / "data").stat().st_mode & 0o777 == 0o700  # was 0777
    assert not (reachable / "conf").stat().st_mode & 0o007


def test_write_private_replaces_a_file_instead_of_writing_into_it(tmp_path: Path) -> None:
    target = tmp_path / "passwd"
    target.write_text("old")
    target.chmod(0o666)
    write_private(target, b"new", 0o600)
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o600
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    target.unlink()
    target.symlink_to(elsewhere)  # a planted link must not redirect a secret
    write_private(target, b"secret", 0o600)
    assert elsewhere.read_text() == "keep" and not target.is_symlink()


def test_write_private_puts_the_whole_file_in_place_at_once(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """One that waits for a file to appear (`pokertable upgrade` for the table's word that it
    stopped between hands) never reads it empty: while the bytes are written the file is not
    there yet; then it is, whole, and nothing else is left beside it."""
    target = tmp_path / "upgrade-ready.json"
    there_while_written: list[bool] = []
    write = os.write

    def watched(fd: int, data: bytes) -> int:
        there_while_written.append(target.exists())
        return write(fd, data)

    monkeypatch.setattr(os, "write", watched)
    write_private(target, b'{"hand": 3}', 0o644)
    monkeypatch.undo()
    assert there_while_written == [False]
    assert target.read_bytes() == b'{"hand": 3}' and target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["upgrade-ready.json"]


def test_a_directory_every_user_may_write_is_refused(reachable: Path) -> None:
    shared = reachable / "everyones"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(ConfigError, match="writable by every user"):
        broker_init(plan(), shared)
    assert list(shared.iterdir()) == []  # nothing written


def test_a_directory_the_broker_cannot_enter_is_refused_with_the_fix(reachable: Path) -> None:
    private = reachable / "home"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    user = mosquitto_user()
    if user is None:  # not root: Mosquitto runs as the caller, who can enter it
        broker_init(plan(), private / "conf")
        assert (private / "conf" / "mosquitto.conf").exists()
        return
    with pytest.raises(ConfigError) as refused:
        broker_init(plan(), private / "conf")
    assert str(private) in str(refused.value) and "chmod o+x" in str(refused.value)
    assert not (private / "conf").exists()


def test_broker_init_into_a_fresh_private_temporary_directory_starts_a_broker() -> None:
    """The old failure: `broker init --out "$(mktemp -d)"` wrote files the mosquitto user could
    not reach, and the printed start command failed ("Unable to open pwfile")."""
    out = Path(tempfile.mkdtemp())  # 0700, as mktemp -d makes it
    port = free_port()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "controller.cli", "broker", "init", "--venue", "hall",
             "--tables", "1", "--broker-port", str(port), "--tls-port", str(free_port()),
             "--tls-bind", "127.0.0.1", "--out", str(out)],
            capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        conf = out / "mosquitto.conf"
        assert f"mosquitto -c {conf}" in done.stdout
        assert "listener" in conf.read_text() and " 127.0.0.1\n" in conf.read_text()
        broker = subprocess.Popen([mosquitto_binary(), "-c", str(conf)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            def listening_or_gone() -> bool:
                if broker.poll() is not None:
                    return True
                with socket.socket() as s:
                    return s.connect_ex(("127.0.0.1", port)) == 0

            wait_until(listening_or_gone, 10)
            assert broker.poll() is None, broker.stdout.read().decode() if broker.stdout else ""
        finally:
            broker.terminate()
            broker.wait(10)
    finally:
        subprocess.run(["rm", "-rf", str(out)], check=False)


@pytest.mark.parametrize("argv, says", [
    (["--tls-bind", "every-interface"], "tls_bind"),
    (["--venue", "Bad Venue"], "venue"),
])
def test_broker_init_mistakes_are_one_line_and_exit_2(tmp_path: Path, argv: list[str],
                                                      says: str) -> None:
    args = {"--venue": "hall", "--tables": "1", "--broker-port": "1883",
            "--out": str(tmp_path / "c")}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        args[flag] = value
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "broker", "init",
         *[part for pair in args.items() for part in pair]],
        capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "c").exists()


def test_stores_holding_hole_cards_are_the_owners_alone(tmp_path: Path, open_umask: None) -> None:
    journal = Journal(tmp_path / "table" / "journal.db")
    outbox = Outbox(tmp_path / "table" / "outbox.db")
    store = SqliteRecordStore(tmp_path / "room" / "records.db")
    sink = FileSink(tmp_path / "table" / "out")
    try:
        for private in (tmp_path / "table" / "journal.db", tmp_path / "table" / "outbox.db",
                        tmp_path / "room" / "records.db", tmp_path / "table" / "out" /
                        "records.jsonl"):
            assert private.stat().st_mode & 0o777 == 0o600, private
        # SQLite gives its write-ahead log the database's mode.
        journal._db.execute("INSERT INTO rejected (line, reason) VALUES ('x', 'y')")
        wal = tmp_path / "table" / "journal.db-wal"
        assert wal.exists() and wal.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "table" / "out" / "events.jsonl").stat().st_mode & 0o007 == 0
        assert (tmp_path / "table").stat().st_mode & 0o777 == 0o700
    finally:
        journal.close()
        outbox.close()
        store.close()
        sink.close()
