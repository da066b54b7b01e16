"""Who may decide, and for how long: the floor logins' sessions, kept by the server, and the
count of wrong passwords.

- A session is a random id in the (signed) cookie; the server keeps a hash of it with its
  user, a stamp of that user's password hash and its end. A logout ends it on the server: the
  same cookie sent again is a stranger's. A new password (a new hash, even for the same
  password: argon2 salts each) or a removed account ends every session of that user at once
  (its next request is refused). Sessions outlive a restart of the floor server (they are in
  its store, by hash only: the store is group-readable).
- The CSRF token is derived from the session's id with the server's key: nothing to store, and
  it dies with the session.
- Wrong passwords are counted per name and per address, and an attempt counts *before* its
  password is checked (argon2 takes a tenth of a second, off the loop, one check at a time:
  accounts.py): thirty guesses sent at once for one name are thirty attempts, not one, and the
  sixth waits.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.room.floor.accounts import Account, Accounts, Role
from controller.room.floor.store import FloorStore, StoredSession

log = logging.getLogger(__name__)

SESSION_SECONDS = 12 * 3600  # a shift
NAME_FAILURES = 5  # wrong passwords for one name within FAILURE_WINDOW before it must wait
ADDRESS_FAILURES = 20  # ... from one address, whatever the names (a guesser tries many)
FAILURE_WINDOW = 60.0
KEPT_KEYS = 10_000  # names and addresses remembered before the old ones are forgotten


def stamp_of(account: Account) -> str:
    """What a session remembers of its user's password: a digest of the stored hash."""
    return hashlib.sha256(account.hash.encode()).hexdigest()[:32]


def _id_hash(sid: str) -> str:
    return hashlib.sha256(sid.encode()).hexdigest()


@dataclass(frozen=True)
class LoggedIn:
    user: str
    sid: str
    csrf: str


class Sessions:
    def __init__(self, store: FloorStore, secret: str, *,
                 now: Callable[[], float] = time.time, seconds: float = SESSION_SECONDS) -> None:
        self._store = store
        self._key = hashlib.sha256(b"floor csrf\0" + secret.encode()).digest()
        self._now = now
        self.seconds = seconds
        self._live = {s.id_hash: s for s in store.sessions()}
        self._end([h for h, s in self._live.items() if s.expires <= now()], "expired")

    def open(self, user: str, account: Account) -> LoggedIn:
        session, logged_in = self._new(user, account)
        self._live[session.id_hash] = session
        self._store.add_session(session)
        return logged_in

    async def open_off_loop(self, user: str, account: Account) -> LoggedIn:
        """`open` for the web server's loop: the session is stored (a commit the store syncs
        to disk: milliseconds, tens of them when the disk is busy) on a worker thread, and
        counts once it is."""
        session, logged_in = self._new(user, account)
        await asyncio.to_thread(self._store.add_session, session)
        self._live[session.id_hash] = session
        return logged_in

    def _new(self, user: str, account: Account) -> tuple[StoredSession, LoggedIn]:
        sid = secrets.token_urlsafe(32)
        session = StoredSession(id_hash=_id_hash(sid), user=user, stamp=stamp_of(account),
                                expires=self._now() + self.seconds)
        return session, LoggedIn(user, sid, self.csrf(sid))

    def find(self, sid: object, accounts: Accounts,
             role: Role | None = "floor") -> LoggedIn | None:
        """The login behind a cookie's session id, or None (and the session ends) when there
        is none, it expired, its account is gone or has another password now; None too (the
        session going on) when the account lacks ``role``: a broadcast login decides nothing.
        ``role`` None: any login (a logout ends its own session, whatever its roles)."""
        if not isinstance(sid, str) or not sid:
            return None
        key = _id_hash(sid)
        session = self._live.get(key)
        if session is None:
            return None
        account = accounts.users.get(session.user)
        why = ("expired" if session.expires <= self._now()
               else "the account was removed" if account is None
               else "the password was changed" if stamp_of(account) != session.stamp
               else None)
        if why is not None:
            self._end([key], why)
            return None
        if account is None or (role is not None and role not in account.roles):
            return None
        return LoggedIn(session.user, sid, self.csrf(sid))

    def csrf(self, sid: str) -> str:
        return hmac.new(self._key, sid.encode(), hashlib.sha256).hexdigest()

    def close(self, sid: str) -> None:
        """A logout: this session, on the server."""
        self._end([_id_hash(sid)], None)

    def count(self, user: str | None = None) -> int:
        return sum(1 for s in self._live.values() if user is None or s.user == user)

    def _end(self, keys: list[str], why: str | None) -> None:
        ended = [self._live.pop(k) for k in keys if k in self._live]
        if not ended:
            return
        self._store.remove_sessions([s.id_hash for s in ended])
        if why is not None:
            for session in ended:
                log.info("floor: a session of %s ended: %s", session.user, why)


@dataclass(frozen=True)
class Attempt:
    name: str
    address: str
    at: float


class LoginThrottle:
    """Wrong passwords per name and per address within a window. `admit` counts an attempt as
    wrong at once (the web server's one loop runs it without a pause, so parallel attempts are
    counted one by one); `passed` takes it back when the password was right."""

    def __init__(self, *, per_name: int = NAME_FAILURES, per_address: int = ADDRESS_FAILURES,
                 window: float = FAILURE_WINDOW,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.per_name = per_name
        self.per_address = per_address
        self.window = window
        self._now = now
        self._names: dict[str, list[float]] = {}
        self._addresses: dict[str, list[float]] = {}

    def admit(self, name: str, address: str) -> Attempt | str:
        """The attempt, counted; or why it is refused without a check."""
        now = self._now()
        names = self._recent(self._names, name, now)
        addresses = self._recent(self._addresses, address, now)
        if len(names) >= self.per_name:
            return ("too many wrong passwords for this name: try again in "
                    f"{self._wait(names, now)} s")
        if len(addresses) >= self.per_address:
            return ("too many wrong passwords from this address: try again in "
                    f"{self._wait(addresses, now)} s")
        names.append(now)
        addresses.append(now)
        return Attempt(name, address, now)

    def _wait(self, times: list[float], now: float) -> int:
        """Seconds until the oldest wrong password of the window no longer counts."""
        return max(1, math.ceil(times[0] + self.window - now))

    def passed(self, attempt: Attempt) -> None:
        """The password was right: the name starts afresh, the address forgets this one."""
        self._names.pop(attempt.name, None)
        times = self._addresses.get(attempt.address)
        if times is not None and attempt.at in times:
            times.remove(attempt.at)

    def _recent(self, counts: dict[str, list[float]], key: str, now: float) -> list[float]:
        if len(counts) > KEPT_KEYS:  # a flood of made-up names must not grow this without end
            for old in [k for k, times in counts.items() if not times or
                        now - times[-1] > self.window]:
                del counts[old]
        times = [t for t in counts.get(key, []) if now - t < self.window]
        counts[key] = times
        return times


__all__ = ["Attempt", "LoggedIn", "LoginThrottle", "Sessions", "stamp_of"]
