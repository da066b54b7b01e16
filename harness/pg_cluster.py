"""A throwaway PostgreSQL cluster for the tests and the benchmark: Debian's ``postgresql``
(`make test` installs it), ``initdb`` into a temporary directory, the server on a free port of
127.0.0.1 with a password of its own, removed at the end.

PostgreSQL refuses to run as root: as root (CI, this project's machines) the cluster belongs to
the ``postgres`` user the Debian package creates (``nobody`` if there is none). Durability is
off (``fsync``, ``synchronous_commit``): a test cluster that dies is thrown away anyway, and it
makes a cluster start in about a second and each commit cheap.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.mqtt.local_broker import free_port

USER = "pokertable"


class ClusterError(RuntimeError):
    """PostgreSQL is not installed, or the cluster did not start."""


def bindir() -> Path:
    """The newest installed server's binaries (Debian keeps them out of PATH)."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                      else 0)
    if versions:
        return versions[-1].parent
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise ClusterError("PostgreSQL is not installed (apt-get install postgresql; `make test` "
                       "does it)")


def _owner() -> tuple[int, int] | None:
    """Who runs the server: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            user = pwd.getpwnam(name)
            return user.pw_uid, user.pw_gid
    raise ClusterError("running as root, and neither a 'postgres' nor a 'nobody' user exists to "
                       "run PostgreSQL as")


class PgCluster:
    """``with PgCluster() as pg: pg.url()``: a running, empty cluster."""

    def __init__(self, *, durable: bool = False) -> None:
        """``durable``: fsync and synchronous commits on, as a real server (the benchmark's
        insert rate); the tests run without."""
        self.durable = durable
        self.bin = bindir()
        self.owner = _owner()
        self.root = Path(tempfile.mkdtemp(prefix="pokertable-pg-"))
        self.root.chmod(0o755)  # the server's user must reach its directories in here
        self.data = self.root / "data"
        self.sockets = self.root / "run"
        self.password = secrets.token_urlsafe(16)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._init()

    def _as_owner(self) -> dict[str, Any]:
        if self.owner is None:
            return {}
        return {"user": self.owner[0], "group": self.owner[1], "extra_groups": []}

    def _init(self) -> None:
        for directory in (self.data, self.sockets):
            directory.mkdir(mode=0o700)
            if self.owner is not None:
                os.chown(directory, *self.owner)
        pwfile = self.sockets / "pw"
        pwfile.write_text(self.password + "\n")
        if self.owner is not None:
            os.chown(pwfile, *self.owner)
        done = subprocess.run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--pwfile", str(pwfile),
             "--auth-host=scram-sha-256", "--auth-local=scram-sha-256", "--encoding=UTF8",
             "--no-locale", "--no-sync", "--no-instructions"],
            capture_output=True, cwd=self.root, check=False, **self._as_owner())
        pwfile.unlink()
        if done.returncode != 0:
            raise ClusterError(f"initdb failed: {done.stderr.decode(errors='replace')[-2000:]}")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.sockets}'\n"
                       "max_connections = 40\n")
            if self.durable:
                conf.write("shared_buffers = 1GB\nmax_wal_size = 4GB\n")
            else:
                conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                           "shared_buffers = 64MB\n")

    def url(self, database: str = "postgres", schema: str | None = None) -> str:
        options = f"?options=-csearch_path%3D{schema}" if schema else ""
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}{options}"

    def start(self) -> None:
        log = (self.root / "postgres.log").open("ab")
        with log:
            self.process = subprocess.Popen(
                [str(self.bin / "postgres"), "-D", str(self.data)], stdout=log,
                stderr=subprocess.STDOUT, cwd=self.root, start_new_session=True,
                **self._as_owner())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = (self.root / "postgres.log").read_text(errors="replace")[-2000:]
                raise ClusterError(f"postgres exited: {said}")
            if self._answers():
                return
            time.sleep(0.05)
        raise ClusterError("postgres did not accept connections within 30 s")

    def _answers(self) -> bool:
        import psycopg

        try:
            psycopg.connect(self.url(), connect_timeout=2).close()
            return True
        except psycopg.OperationalError:
            return False

    def stop(self) -> None:
        """SIGINT: PostgreSQL's fast shutdown (sessions ended, everything committed kept)."""
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
            self.process = None

    def new_schema(self, name: str) -> str:
        """An empty schema of its own; its URL (each test's store)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return self.url(schema=name)

    def __enter__(self) -> PgCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


__all__ = ["ClusterError", "PgCluster", "bindir"]
