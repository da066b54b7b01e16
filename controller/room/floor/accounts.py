"""Floor staff accounts: names and argon2id password hashes in a JSON file (0600) the operator
manages with `pokertable floor-user`. Only a hash is ever written; a password is never logged.

A login's check is the floor server's one heavy computation: argon2id with the library's
recommended parameters (RFC 9106: 64 MiB, 3 passes, 4 lanes) takes about 0.13 s of four threads
at once, which is both cores of a small host. Run beside the web server's loop at the same
priority, a few logins at once (the loop's default pool ran six, 24 threads) left the loop a
sliver of the CPU, and every screen's pushes waited (issue 37). So the server checks passwords
with `verify_off_loop`: one at a time, on a thread of its own whose nice value is raised (the
threads argon2 starts inherit it), so that the loop, the broker and the rest of the host come
first. The hash and its parameters are unchanged: the same work, only later when the CPU is
wanted elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.errors import ConfigError
from controller.inputs.json_input import loads_bounded
from controller.storage.private_files import write_private

log = logging.getLogger(__name__)

NAME = re.compile(r"^[a-z][a-z0-9._-]{0,31}$")
MIN_PASSWORD = 8

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters


# What a login may do: "floor", the staff's decisions and the floor's own pages; "broadcast",
# the secure-delay broadcast feed alone (docs/broadcast.md): an account has one or both.
Role = Literal["floor", "broadcast"]
ROLES: tuple[Role, ...] = ("floor", "broadcast")
STAFF: tuple[Role, ...] = ("floor",)


class Account(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hash: str = Field(pattern=r"^\$argon2id\$")
    roles: list[Role] = Field(default_factory=lambda: list(STAFF), min_length=1,
                              exclude_if=lambda v: v == ["floor"],
                              description="absent: floor staff (the accounts before roles)")


class Accounts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    users: dict[str, Account] = Field(default_factory=dict)


def load_accounts(path: str | Path) -> Accounts:
    path = Path(path)
    if not path.exists():
        return Accounts()
    try:
        return Accounts.model_validate(loads_bounded(path.read_bytes()))
    except (OSError, ValueError, ValidationError) as exc:
        raise ConfigError(f"{path}: not a floor accounts file ({type(exc).__name__})") from None


def save_accounts(path: str | Path, accounts: Accounts) -> None:
    """Write the accounts file anew. An existing file keeps its owner, group and mode (the
    installer makes it root:pokertable-floor 0640 so that the floor server can read it); a new
    one is 0600. The file is replaced whole: the floor never reads half of it."""
    path = Path(path)
    mode, owner = 0o600, None
    try:
        info = path.stat()
        mode, owner = info.st_mode & 0o640, (info.st_uid, info.st_gid)  # never wider than 0640
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror})") from None
    if not path.parent.is_dir():
        raise ConfigError(f"{path}: the directory {path.parent} does not exist; create it "
                          "first (the installer makes /etc/pokertable/floor)")
    staged = path.with_name(f".{path.name}.new")
    try:
        write_private(staged, accounts.model_dump_json(indent=1).encode(), mode or 0o600, owner)
        staged.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            staged.unlink()
        raise ConfigError(f"{path}: cannot write it ({exc.strerror}); run as the user who owns "
                          "it (root on an installed host)") from None


def set_password(accounts: Accounts, name: str, password: str,
                 roles: Sequence[Role] | None = None) -> Accounts:
    """A user's new password (a new user: floor staff unless ``roles`` says otherwise; an
    existing one keeps his roles unless ``roles`` gives others)."""
    if not NAME.match(name):
        raise ConfigError(f"floor user {name!r}: a name is 1-32 lower-case letters, digits, "
                          "'.', '_' or '-', starting with a letter")
    if len(password) < MIN_PASSWORD:
        raise ConfigError(f"floor user {name!r}: the password needs at least {MIN_PASSWORD} "
                          "characters")
    users = dict(accounts.users)
    kept = users[name].roles if name in users else list(STAFF)
    users[name] = Account(hash=_hasher.hash(password),
                          roles=list(dict.fromkeys(roles)) if roles else kept)
    return Accounts(users=users)


def remove_user(accounts: Accounts, name: str) -> Accounts:
    if name not in accounts.users:
        raise ConfigError(f"floor user {name!r}: no such user")
    return Accounts(users={n: a for n, a in accounts.users.items() if n != name})


# Verifying against this when the name is unknown takes as long as a real check: the answer's
# timing does not tell which names exist. Written out, not hashed at import: that one argon2id
# hash was a quarter of every floor server's start-up (0.14 s of CPU; the tests check that its
# parameters are the hasher's, so that the check it stands in for costs the same).
_DUMMY = ("$argon2id$v=19$m=65536,t=3,p=4$dFexUfLqteM7pa+YJAnU3g$"
          "9lw7p9niEcr6Ywuu8BHS09VY13FLiINEm2kknknBcuY")


def check_password(accounts: Accounts, name: str, password: str) -> bool:
    account = accounts.users.get(name)
    try:
        return _hasher.verify(account.hash if account else _DUMMY, password) and (
            account is not None)
    except (VerificationError, InvalidHashError):
        return False


# How far below the server's own threads a password check runs (nice 0 -> 10: when both want
# the CPU, the loop gets about nine tenths of it and takes it back at once on waking).
CHECK_NICENESS = 10
_checks: ThreadPoolExecutor | None = None
_checks_lock = threading.Lock()


def _lower_priority() -> None:
    """This thread's nice value up by CHECK_NICENESS (Linux: a thread's own, inherited by the
    threads it starts, as argon2's lanes are). Elsewhere, or if refused, it stays as it is."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid,
                       min(19, os.getpriority(os.PRIO_PROCESS, tid) + CHECK_NICENESS))
    except (AttributeError, OSError) as exc:  # pragma: no cover - not Linux
        log.info("floor: password checks run at the server's priority (%s)", exc)


def _checker() -> ThreadPoolExecutor:
    global _checks
    with _checks_lock:
        if _checks is None:
            _checks = ThreadPoolExecutor(max_workers=1, thread_name_prefix="floor-password",
                                         initializer=_lower_priority)
        return _checks


async def verify_off_loop(accounts: Accounts, name: str, password: str) -> bool:
    """`check_password` off the event loop: one check at a time in the process (others wait
    their turn: the CPU, not the queue, was the limit), at a lower priority than the loop."""
    return await asyncio.get_running_loop().run_in_executor(
        _checker(), check_password, accounts, name, password)


__all__ = ["ROLES", "Accounts", "Role", "check_password", "load_accounts", "remove_user",
           "save_accounts", "set_password", "verify_off_loop"]
