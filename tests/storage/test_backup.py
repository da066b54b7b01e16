"""Online backups and restores (controller/storage/backup.py, `pokertable backup` and
`restore`): copies taken while a real table service writes its journal, put back in a fresh
place, recover and play on."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.events import CommandEvent
from controller.room.clock.rules import ClockPosition
from controller.room.clock.store import ClockStore
from controller.session import SessionConfig, TableSession
from controller.storage.backup import backup_stores, restore
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
DAY = 86400.0


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def clock_store(path: Path, slot: int) -> None:
    store = ClockStore(path)
    store.save(ClockPosition(status="running", slot=slot, ends_at=1000.0 + slot))
    store.close()


def test_a_backup_is_a_checked_private_copy_and_old_copies_go(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 3)
    store = ClockStore(tmp_path / "clock.db")  # the service runs: the copy needs no lock
    try:
        now = 1_795_000_000.0
        old = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7, now=now - 8 * DAY)
        kept = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7, now=now - 6 * DAY)
        (done,) = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7, now=now)
    finally:
        store.close()
    assert done.error is None and done.copy is not None
    assert done.copy.name == time.strftime("clock-%Y%m%dT%H%M%SZ.db", time.gmtime(now))
    assert done.removed == [old[0].copy]  # eight days old: gone; six days old: kept
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == sorted(
        [kept[0].copy.name, done.copy.name])  # type: ignore[union-attr]
    assert done.copy.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "b").stat().st_mode & 0o777 == 0o700
    copy = ClockStore(done.copy)
    try:
        assert copy.position() == ClockPosition(status="running", slot=3, ends_at=1003.0)
    finally:
        copy.close()


def test_a_store_that_is_not_whole_is_not_kept_as_a_backup(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 1)
    (tmp_path / "junk.db").write_bytes(b"\0" * 100 + b"not a database" * 300)
    results = backup_stores([tmp_path / "junk.db", tmp_path / "missing.db",
                             tmp_path / "clock.db"], tmp_path / "b", 7)
    assert [r.error is None for r in results] == [False, False, True]
    assert "junk.db" in (results[0].error or "") and "missing.db: no such store" in (
        results[1].error or "")
    assert [p.name for p in (tmp_path / "b").iterdir()] == [results[2].copy.name]  # type: ignore[union-attr]


def test_restore_keeps_the_replaced_store_aside_and_drops_its_wal(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 2)
    (backup,) = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7)
    assert backup.copy is not None
    # The store moved on after the backup, and its last change is still in its -wal (killed).
    done = subprocess.run([sys.executable, "-c", (
        "import os, sys\nfrom controller.room.clock.store import ClockStore\n"
        "from controller.room.clock.rules import ClockPosition\n"
        "s = ClockStore(sys.argv[1]); s.save(ClockPosition(status='paused', slot=5, "
        "remaining=30.0)); os._exit(0)"), str(tmp_path / "clock.db")], cwd=ROOT, timeout=60)
    assert done.returncode == 0 and (tmp_path / "clock.db-wal").stat().st_size > 0
    aside = restore(backup.copy, tmp_path / "clock.db", now=1_795_000_000.0)
    assert aside == tmp_path / time.strftime("clock.db.before-restore-%Y%m%dT%H%M%SZ",
                                             time.gmtime(1_795_000_000.0))
    assert not (tmp_path / "clock.db-wal").exists() and not (tmp_path / "clock.db-shm").exists()
    restored = ClockStore(tmp_path / "clock.db")
    replaced = ClockStore(aside)
    try:
        assert restored.position() == ClockPosition(status="running", slot=2, ends_at=1002.0)
        assert replaced.position() == ClockPosition(status="paused", slot=5, remaining=30.0)
    finally:
        restored.close()
        replaced.close()
    assert (tmp_path / "clock.db").stat().st_mode & 0o777 == 0o600


def test_restore_refuses_while_a_service_holds_the_store(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 2)
    (backup,) = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7)
    assert backup.copy is not None
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom controller.room.clock.store import ClockStore\n"
        "s = ClockStore(sys.argv[1]); print('open', flush=True); time.sleep(60)"),
        str(tmp_path / "clock.db")], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        refused = cli("restore", str(backup.copy), "--out", str(tmp_path / "clock.db"))
        assert refused.returncode == 2
        (line,) = refused.stderr.splitlines()
        assert line.startswith(f"pokertable restore: cannot restore while the store is open: "
                               f"{tmp_path / 'clock.db'} is in use by pid {holder.pid} (")
        assert not list(tmp_path.glob("clock.db.before-restore-*"))  # nothing moved
    finally:
        holder.kill()
        holder.wait(10)
    done = cli("restore", str(backup.copy), "--out", str(tmp_path / "clock.db"))
    assert done.returncode == 0, done.stderr
    assert "the replaced file is kept as" in done.stdout
    # In this process too: a store open here is not restored under its feet.
    store = ClockStore(tmp_path / "clock.db")
    try:
        with pytest.raises(ConfigError, match="is open in this process"):
            restore(backup.copy, tmp_path / "clock.db")
    finally:
        store.close()


def test_restore_refuses_a_backup_of_another_kind_of_store(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 2)
    Journal(tmp_path / "journal.db").close()
    (backup,) = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7)
    assert backup.copy is not None
    done = cli("restore", str(backup.copy), "--out", str(tmp_path / "journal.db"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pokertable restore: {backup.copy} is a backup of a clock store, "
        f"{tmp_path / 'journal.db'} is a table journal: not restored"]


def test_the_backup_command_names_each_copy_and_each_failure(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 1)
    done = cli("backup", "--out", str(tmp_path / "b"), "--keep-days", "3",
               str(tmp_path / "clock.db"), str(tmp_path / "nothing.db"))
    assert done.returncode == 1
    (copy,) = (tmp_path / "b").iterdir()
    assert done.stdout == f"{tmp_path / 'clock.db'} -> {copy} (checked)\n"
    assert done.stderr == f"pokertable backup: {tmp_path / 'nothing.db'}: no such store\n"
    # The hourly timer lists every store a service may make: one not made yet (or records kept
    # in PostgreSQL) failed every hour's backup; with --missing-ok it is said, not a failure
    timer = cli("backup", "--out", str(tmp_path / "b"), "--keep-days", "3", "--missing-ok",
                str(tmp_path / "clock.db"), str(tmp_path / "nothing.db"))
    assert timer.returncode == 0 and timer.stderr == "", timer.stderr
    assert timer.stdout.endswith(f"{tmp_path / 'nothing.db'}: not there, nothing to copy\n")
    wrong = cli("backup", "--out", str(tmp_path / "b"), "--keep-days", "0", "x.db")
    assert wrong.returncode == 2 and "--keep-days: must be at least 1, not 0" in wrong.stderr


# ------------------------------------------------------------- while a table writes


def _table(config: Path, hands: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "table", "--config", str(config), "--simulate",
         "--hands", str(hands), "--seed", str(seed)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _count(db: Path, sql: str) -> int:
    try:
        reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return int(reader.execute(sql).fetchone()[0])
        finally:
            reader.close()
    except sqlite3.Error:
        return 0


@pytest.mark.long(24)
def test_a_backup_taken_while_a_table_plays_restores_recovers_and_plays_on(
        tmp_path: Path) -> None:
    table = tmp_path / "pi"
    table.mkdir()
    (table / "table.toml").write_text('[table]\nid = "3"\nseats = 4\n')
    journal = table / "journal.db"
    playing = _table(table / "table.toml", hands=0, seed=4)
    copies: list[Path] = []
    try:
        wait_until(lambda: _count(journal, "SELECT COUNT(*) FROM records") >= 2
                   or playing.poll() is not None, 120)
        assert _count(journal, "SELECT COUNT(*) FROM records") >= 2, "no two hands"
        for _ in range(3):  # each while the table goes on writing
            before = _count(journal, "SELECT MAX(seq) FROM events")
            (done,) = backup_stores([journal], tmp_path / "backups", 7)
            assert done.copy is not None, done.error
            copies.append(done.copy)
            assert wait_until(lambda since=before: _count(
                journal, "SELECT MAX(seq) FROM events") > since + 5, 120), \
                "the table stopped writing"
    finally:
        playing.send_signal(signal.SIGTERM)
        _, stderr = playing.communicate(timeout=60)
    assert playing.returncode == 0, stderr[-2000:]
    original = Journal(journal)
    final_events = dict(original.events())
    final_records = original.records()
    original.close()
    config = SessionConfig(table_id="3", seats=4)
    for copy in copies:
        fresh = tmp_path / f"restored-{copy.stem}" / "journal.db"
        fresh.parent.mkdir()
        assert restore(copy, fresh) is None  # nothing was there to keep aside
        restored = Journal(fresh)
        recovery = restored.recovery()
        assert recovery.skipped == []
        # The copy is the journal as of one commit: the same events under the same numbers,
        # the same records, the newest few left out.
        kept = dict(restored.events())
        assert kept and all(final_events[seq] == event for seq, event in kept.items())
        assert max(kept) < max(final_events)
        records = restored.records()
        assert [r.model_dump_json() for r in records] == [
            r.model_dump_json() for r in final_records[:len(records)]]
        # Its recovery (latest snapshot, then the events after it) is the session that every
        # event up to that commit makes.
        replayed = TableSession(config)
        for seq in sorted(kept):
            replayed.handle(kept[seq])
        sink = MemorySink()
        service = TableService(config, restored, sink)
        assert service.session.state() == replayed.state()
        assert not [e for e in sink.recovered_events if e.kind == "refused"]
        restored.close()
    # The table plays on from the last copy. The hand it was in is long over on the felt: the
    # floor voids it, as after any restore, and the dealer deals two more hands.
    fresh = tmp_path / f"restored-{copies[-1].stem}"
    service = TableService(config, Journal(fresh / "journal.db"), MemorySink())
    hand = service.session.table.hand_number
    if service.session._hand() is not None:
        service.process(CommandEvent(name="void", args={"reason": "restored from a backup"},
                                     by="floor"))
    service.journal.close()
    (fresh / "table.toml").write_text('[table]\nid = "3"\nseats = 4\n')
    again = _table(fresh / "table.toml", hands=2, seed=5)
    _, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr[-2000:]
    assert "Traceback" not in stderr and "ERROR" not in stderr
    resumed = Journal(fresh / "journal.db")
    try:
        numbers = [r.hand for r in resumed.records()]
        assert numbers == list(range(1, hand + 3))  # every hand once: before, the void, two more
        assert [r.status for r in resumed.records()][-2:] == ["complete", "complete"]
    finally:
        resumed.close()
    seen = [json.loads(line) for line in (fresh / "out" / "events.jsonl").read_text().splitlines()]
    assert not [e["text"] for e in seen if e["kind"] in ("alert", "refused")]



def test_restore_and_backup_say_a_place_they_cannot_write_in_one_line(tmp_path: Path) -> None:
    clock_store(tmp_path / "clock.db", 1)
    (backup,) = backup_stores([tmp_path / "clock.db"], tmp_path / "b", 7)
    assert backup.copy is not None
    (tmp_path / "file").write_text("")
    for args in (("restore", str(backup.copy), "--out", str(tmp_path / "file" / "clock.db")),
                 ("backup", "--out", str(tmp_path / "file" / "b"), str(tmp_path / "clock.db"))):
        done = cli(*args)
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"pokertable {args[0]}: {tmp_path / 'file'}")
    done = cli("restore", str(tmp_path / "nothing.db"), "--out", str(tmp_path / "clock.db"))
    assert done.stderr == f"pokertable restore: {tmp_path / 'nothing.db'}: no such store\n"
    restored = tmp_path / "new" / "place" / "clock.db"
    assert cli("restore", str(backup.copy), "--out", str(restored)).returncode == 0
    store = ClockStore(restored)
    try:
        assert store.position() == ClockPosition(status="running", slot=1, ends_at=1001.0)
    finally:
        store.close()


def test_a_postgresql_store_is_left_to_postgresql_s_own_backups(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "backup",
                           "postgresql://recorder@db.example/hands", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 2 and "pg_dump" in done.stderr
    assert "Traceback" not in done.stderr
