"""Each player's own link: a random secret in the URL (``/p/<secret>``) that opens his page on
his phone without a staff login, and only his.

The secret is 32 random bytes (`secrets.token_urlsafe`); the floor's journal (``floor.db``,
group-readable) keeps its SHA-256 only, so a reader of the file cannot open anyone's page. A
plain hash is enough here, unlike a password's: 256 random bits are not guessed from their
hash, and a page load must not cost a tenth of a second of argon2. The floor issues a link (a
new one replaces the old, which stops working at once), and revokes it; both survive a restart
(they are in the journal). A player keeps ``since``, the time of his first link: his page lists
his hands from then on, so that yesterday's namesake's hands are not his.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.room.floor.store import FloorStore

TOKEN_BYTES = 32


@dataclass(frozen=True)
class PlayerLink:
    player: str
    since: float  # his first link's time: the hands on his page start there


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class PlayerLinks:
    """The players' links, kept in the floor's journal."""

    def __init__(self, store: FloorStore, now: Callable[[], float] = time.time) -> None:
        self.store = store
        self._now = now

    def issue(self, player: str, by: str) -> str:
        """A new secret for ``player`` (his old link, if any, no longer opens anything)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        self.store.set_player_link(player, token_hash(token), self._now(), by)
        return token

    def revoke(self, player: str, by: str) -> bool:
        """His link stops working; False if he had none that worked."""
        if not self.store.player_links().get(player):
            return False
        self.store.set_player_link(player, None, self._now(), by)
        return True

    def find(self, token: str) -> PlayerLink | None:
        """Whose link this is, or None (never issued, replaced or revoked). Only a token of
        the form we issue is looked up."""
        if not 20 <= len(token) <= 100 or not all(c.isalnum() or c in "-_" for c in token):
            return None
        found = self.store.player_link(token_hash(token))
        return None if found is None else PlayerLink(*found)

    def players(self) -> dict[str, bool]:
        return self.store.player_links()


__all__ = ["PlayerLink", "PlayerLinks", "token_hash"]
