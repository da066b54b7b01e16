"""Online backups of the stores, and putting one back.

`backup_stores` copies each store with SQLite's online backup API: one read transaction, so the
copy is the store as of one commit, taken while its service goes on writing (WAL readers do not
block the writer, and no lock is needed). Each copy is ``<to_dir>/<name>-<UTC time>.db``, made
0600 before a byte is in it, self-contained (no -wal), checked with ``PRAGMA integrity_check``
before it takes its name, and copies of the same store older than ``keep_days`` go.

`restore` puts a backup in place of a store whose service is stopped: it takes the store's
lock (so it refuses while a service holds it, and no service starts half-way), folds the old
file's -wal into it and keeps it aside as ``<db>.before-restore-<UTC time>``, and moves the new
file in with one rename: the store is always either the old file or the backup.
"""

from __future__ import annotations

import calendar
import contextlib
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.errors import ConfigError
from controller.storage.private_files import private_dir, private_file
from controller.storage.sqlite_store import KINDS, StoreLock, connect_readonly, versions

STAMP = "%Y%m%dT%H%M%SZ"


@dataclass
class Backup:
    store: Path
    copy: Path | None = None  # None: it failed (``error`` says why)
    error: str | None = None
    removed: list[Path] = field(default_factory=list)  # copies older than keep_days


def backup_stores(stores: Sequence[str | Path], to_dir: str | Path, keep_days: int,
                  *, now: float | None = None) -> list[Backup]:
    """Copy every store into ``to_dir``; one store failing does not stop the others (each
    `Backup` says what became of its store)."""
    now = time.time() if now is None else now
    urls = [str(p) for p in stores if str(p).startswith(("postgresql:", "postgres:"))]
    if urls:
        raise ConfigError("a PostgreSQL record store is backed up by PostgreSQL's own tools "
                          "(pg_dump, base backups), not by pokertable backup, which copies "
                          "SQLite files")
    paths = [Path(p) for p in stores]
    names = [p.stem for p in paths]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"two stores named {twice[0]}: their copies would be taken for each "
                          "other's; back them up into different directories")
    if keep_days < 1:
        raise ConfigError(f"keep_days must be at least 1, not {keep_days}")
    out = private_dir(Path(to_dir))
    results = []
    for path in paths:
        result = Backup(path)
        try:
            result.copy = backup_store(path, out, now=now)
            result.removed = _prune(out, path.stem, now - keep_days * 86400, keep=result.copy)
        except (ConfigError, OSError) as exc:
            result.error = str(exc) if isinstance(exc, ConfigError) else f"{path}: {exc}"
        results.append(result)
    return results


def backup_store(store: Path, out: Path, *, now: float) -> Path:
    """One checked copy of ``store`` in ``out``; its path."""
    stamp = time.strftime(STAMP, time.gmtime(now))
    target = out / f"{store.stem}-{stamp}.db"
    n = 1
    while target.exists():  # two backups within a second
        n += 1
        target = out / f"{store.stem}-{stamp}-{n}.db"
    partial = out / f".{target.name}.partial"
    _copy(store, partial)
    os.replace(partial, target)
    _sync_dir(out)
    return target


def restore(backup: str | Path, to_db: str | Path, *, now: float | None = None) -> Path | None:
    """Put ``backup`` in place of ``to_db``; returns where the replaced file was kept (None
    if there was none). Refuses, in one line, while a service holds the store."""
    backup, to_db = Path(backup), Path(to_db)
    now = time.time() if now is None else now
    _check(backup, "the backup")
    private_dir(to_db.parent)  # a fresh place
    try:
        lock = StoreLock(to_db, reentrant=False)
    except ConfigError as exc:
        raise ConfigError(f"cannot restore while the store is open: {exc}") from None
    try:
        if to_db.exists():
            _same_kind(backup, to_db)
        partial = to_db.parent / f".{to_db.name}.restoring"
        _copy(backup, partial)
        aside = None
        if to_db.exists():
            aside = Path(f"{to_db}.before-restore-{time.strftime(STAMP, time.gmtime(now))}")
            _set_aside(to_db, aside)
        for suffix in ("-wal", "-shm"):  # the old file's: never to be read with the new one
            Path(f"{to_db}{suffix}").unlink(missing_ok=True)
        os.replace(partial, to_db)
        _sync_dir(to_db.parent)
        return aside
    finally:
        lock.release()


# ---------------------------------------------------------------------------- the parts


def _copy(source: Path, target: Path) -> None:
    """``source`` as of one read transaction into a new private ``target`` (no -wal), checked
    whole; ``target`` does not stay if anything fails."""
    target.unlink(missing_ok=True)
    private_file(target)
    try:
        src = _open(source)
        try:
            dst = sqlite3.connect(target, isolation_level=None)
            try:
                src.backup(dst)  # every page in one step: one consistent read transaction
                dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                problems = [row[0] for row in dst.execute("PRAGMA integrity_check")]
                if problems != ["ok"]:
                    raise ConfigError(f"{source}: the copy fails its integrity check: "
                                      f"{problems[0]}")
            finally:
                dst.close()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{source}: cannot be copied: {exc}") from None
        finally:
            src.close()
        with open(target, "rb") as fh:
            os.fsync(fh.fileno())
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _open(path: Path) -> sqlite3.Connection:
    db = connect_readonly(path)
    try:
        versions(db)  # reads the header: not a database fails here
    except sqlite3.DatabaseError as exc:
        db.close()
        raise ConfigError(f"{path}: not a store: {exc}") from None
    return db


def _check(path: Path, what: str) -> None:
    db = _open(path)
    try:
        problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:
        raise ConfigError(f"{path}: {what} cannot be read: {exc}") from None
    finally:
        db.close()
    if problems != ["ok"]:
        raise ConfigError(f"{path}: {what} fails its integrity check: {problems[0]}")


def _same_kind(backup: Path, store: Path) -> None:
    """A clock's backup put in place of a journal would be refused at the next start: say it
    now, before anything moved."""
    kinds = []
    for path in (backup, store):
        try:
            db = _open(path)
        except ConfigError:
            return  # the store is damaged: that is what a restore is for
        try:
            kinds.append(versions(db)[1])
        finally:
            db.close()
    theirs, ours = kinds
    if theirs and ours and theirs != ours:
        raise ConfigError(f"{backup} is a backup of a {KINDS.get(theirs, 'other store')}, "
                          f"{store} is a {KINDS.get(ours, 'other store')}: not restored")


def _set_aside(db: Path, aside: Path) -> None:
    """Keep the replaced store whole beside the new one: its -wal folded in if SQLite can
    (else kept with it, as ``<aside>-wal``, where SQLite looks for it)."""
    with contextlib.suppress(sqlite3.DatabaseError):
        old = sqlite3.connect(db)
        try:
            old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            old.close()
    try:
        os.link(db, aside)  # the store stays in place until the new one replaces it
    except OSError:
        shutil.copy2(db, aside)
    wal = Path(f"{db}-wal")
    if wal.exists() and wal.stat().st_size:
        shutil.copy2(wal, f"{aside}-wal")


def _prune(out: Path, name: str, before: float, keep: Path) -> list[Path]:
    pattern = re.compile(rf"{re.escape(name)}-(\d{{8}}T\d{{6}}Z)(?:-\d+)?\.db")
    removed = []
    for path in sorted(out.iterdir()):
        match = pattern.fullmatch(path.name)
        if match is None or path == keep:
            continue
        taken = calendar.timegm(time.strptime(match.group(1), STAMP))
        if taken < before:
            path.unlink()
            removed.append(path)
    return removed


def _sync_dir(directory: Path) -> None:
    """The rename itself survives a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["Backup", "backup_store", "backup_stores", "restore"]
