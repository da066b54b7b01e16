"""`pokertable floor --config floor.toml`: the floor display server (uvicorn) around the hub.

Runs in a thread (`FloorServer.start`, `close`): `pokertable floor` waits for SIGTERM or
Ctrl-C in the main thread, the room demo and the tests stop it when they are done. The accounts
file is read again when it changes: `pokertable floor-user add` needs no restart.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn

from controller.mqtt.client import BrokerAddress, Login, load_login
from controller.mqtt.messages import CommandReply
from controller.room.floor.accounts import Accounts, load_accounts
from controller.room.floor.broadcast import BroadcastFeed
from controller.room.floor.config import BroadcastSection, FloorConfig
from controller.room.floor.hub import REPLY_SECONDS, Hub
from controller.room.floor.sealed_records import SealedRecords
from controller.room.floor.store import FloorStore
from controller.room.floor.web import create_app
from controller.service.manager import Loop
from controller.storage.private_files import write_private

log = logging.getLogger(__name__)


class AccountsFile:
    """The accounts, read again whenever the file changes (`save_accounts` replaces it: a new
    inode, whatever its time and size)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._accounts = Accounts()

    def __call__(self) -> Accounts:
        try:
            stat = self.path.stat()
            seen = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            return Accounts()
        if seen != self._seen:
            self._accounts = load_accounts(self.path)
            self._seen = seen
        return self._accounts


def session_secret(path: Path) -> str:
    """The key that signs login sessions: kept in a private file, made on the first start."""
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_urlsafe(48)
    write_private(path, key.encode())
    return key


class FloorServer:
    def __init__(self, address: BrokerAddress, login: Login, *, db: Path, accounts: Path,
                 secret: Path, listen: str = "127.0.0.1", port: int = 0,
                 secure_cookies: bool = False, keep_hands_days: int = 30,
                 tls: tuple[Path, Path] | None = None, follow: Sequence[str] | None = None,
                 records: str | Path | None = None,
                 broadcast: BroadcastSection | None = None) -> None:
        self.store = FloorStore(db)
        self.hub = Hub(address, login, self.store, keep_hands_days=keep_hands_days,
                       follow=follow)
        # Over HTTPS the login cookie is never sent in clear (Secure); behind a proxy the
        # configuration says so.
        app = create_app(self.hub, AccountsFile(accounts), session_secret(secret),
                         secure_cookies=secure_cookies or tls is not None)
        # The recorder's store, read for each player's own cards of his sealed hands only
        # (his page: player_pages.py) and the broadcast; without it his page shows the tabled
        # cards alone. Opened when first read, never a condition of the floor's start.
        self.records = SealedRecords(records) if records else None
        app.state.records = self.records
        # The broadcast feed hears every hand from the start (docs/broadcast.md)
        self.broadcast = app.state.broadcast = BroadcastFeed(self.hub, self.records,
                                                             broadcast or BroadcastSection())
        family = socket.AF_INET6 if ":" in listen else socket.AF_INET
        # IPPROTO_TCP said outright: asyncio turns Nagle's algorithm off only on sockets whose
        # protocol says TCP (with 0, pushes waited up to 45 ms behind the browser's delayed ACK).
        self.socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((listen, port))
        self.port = self.socket.getsockname()[1]
        host = "127.0.0.1" if listen in ("0.0.0.0", "::") else listen
        self.url = f"{'https' if tls else 'http'}://{host}:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on",
            timeout_graceful_shutdown=2,
            ssl_certfile=str(tls[0]) if tls else None, ssl_keyfile=str(tls[1]) if tls else None))
        self._thread: threading.Thread | None = None

    @classmethod
    def from_config(cls, config: FloorConfig) -> FloorServer:
        login = load_login(config.mqtt.credentials, "floor")
        address = BrokerAddress.model_validate(config.mqtt.model_dump(exclude={"credentials"}))
        f = config.floor
        return cls(address, login, db=f.db, accounts=f.accounts, secret=f.secret,
                   listen=f.listen, port=f.port, secure_cookies=f.secure_cookies,
                   keep_hands_days=f.keep_hands_days, follow=f.follow, records=f.records,
                   broadcast=config.broadcast,
                   tls=(f.tls_cert, f.tls_key) if f.tls_cert and f.tls_key else None)

    def loops(self) -> list[Loop]:
        return [self.hub.web_loop]

    def start(self) -> FloorServer:
        """Serve in a thread; ready when this returns."""
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                        name="floor-web", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the floor server did not start")
            time.sleep(0.02)
        return self

    def send(self, target: str, name: str, args: dict[str, Any], by: str) -> CommandReply:
        """A floor decision from outside the web (the room demo starts the clock so), on the
        server's loop like any from a page; the table's or the clock's answer."""
        loop = self.hub.loop
        if loop is None:
            raise RuntimeError("the floor server is not running")
        future = asyncio.run_coroutine_threadsafe(self.hub.command(target, name, args, by), loop)
        return future.result(REPLY_SECONDS + 5)

    def close(self) -> None:
        self.hub.end_screens()  # open push streams would hold uvicorn's graceful stop up
        time.sleep(0.05)
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.broadcast.close()  # (its equity worker)
        self.store.close()
        if self.records is not None:
            self.records.close()


__all__ = ["FloorServer"]
