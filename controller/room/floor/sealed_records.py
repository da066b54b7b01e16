"""The recorder's store as the floor reads it (``[floor] records``): each player's own cards of
his sealed hands (player_pages.py) and the broadcast's full records (broadcast.py).

Read-only and never a condition of the floor's start: the floor serves the room whether the
recorder runs or not. The store is opened when first read and opened again after a failure,
so a floor started before the recorder (at boot, or the recorder stopped for an upgrade) reads
it once it is there. A SQLite store in write-ahead mode is read with ``mode=ro`` by a service
that may not write the recorder's directory (an installed host: docs/install.md): SQLite then
reads the recorder's ``-wal`` and ``-shm`` files, which exist while the recorder runs (and
while this reader has the store open, even across the recorder's restarts); until the
recorder has first run, or after it stopped with no reader open, they are not there and the
store cannot be opened read-only: the pages show tabled cards only meanwhile, and say nothing
wrong.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from controller.errors import PokertableError
from controller.history.query import HandQuery
from controller.room.recorder.opening import open_record_store
from controller.room.recorder.store import KeptHand, RecordStore, StoreUnavailable, is_url

log = logging.getLogger(__name__)

RETRY_SECONDS = 5.0  # a store that would not open is tried again after this long, not sooner


class HandReader(Protocol):
    """What the floor's pages read of the recorder's store (a `RecordStore` is one too)."""

    def hands(self, query: HandQuery, venue: str | None = None) -> list[KeptHand]: ...


class SealedRecords:
    """The one method the floor reads the recorder's store by (`hands`), opening it lazily."""

    def __init__(self, where: str | Path, *,
                 opener: Callable[[str | Path], RecordStore] | None = None,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.where = where
        self._open = opener or (lambda w: open_record_store(w, readonly=True))
        self._now = now
        self._store: RecordStore | None = None
        self._failed_at: float | None = None
        self._said: str | None = None
        self._lock = threading.Lock()

    def hands(self, query: HandQuery, venue: str | None = None) -> list[KeptHand]:
        """The sealed hands ``query`` finds; `StoreUnavailable` when the store cannot be read
        now (the caller shows what it has without them)."""
        store = self._opened()
        try:
            return store.hands(query, venue)
        except Exception as exc:  # a file replaced, a connection lost: opened anew next time
            self._drop(store)
            raise StoreUnavailable(f"the recorder's store {shown_store(self.where)} did not "
                                   f"answer: {exc}") from exc

    def _opened(self) -> RecordStore:
        with self._lock:
            if self._store is not None:
                return self._store
            now = self._now()
            if self._failed_at is not None and now - self._failed_at < RETRY_SECONDS:
                raise StoreUnavailable(self._said or "the recorder's store is not open")
            try:
                self._store = self._open(self.where)
            except (PokertableError, OSError) as exc:
                self._failed_at = now
                said = (f"the recorder's store {shown_store(self.where)} cannot be read yet: "
                        f"{exc}")
                if said != self._said:  # once per cause, not once per page
                    log.warning("floor: %s (the players' own cards and the broadcast wait "
                                "for it)", said)
                self._said = said
                raise StoreUnavailable(said) from None
            if self._said is not None:
                log.info("floor: the recorder's store %s is read again",
                         shown_store(self.where))
            self._failed_at = self._said = None
            return self._store

    def _drop(self, store: RecordStore) -> None:
        with self._lock:
            if self._store is store:
                self._store = None
        try:
            store.close()
        except Exception:  # (closing what failed: nothing more to lose)
            log.debug("floor: closing the recorder's store failed", exc_info=True)

    @property
    def is_open(self) -> bool:
        return self._store is not None

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()


def shown_store(where: str | Path) -> str:
    """Where the store is, never its password (a postgresql:// URL may hold one)."""
    if is_url(where):
        from controller.room.recorder.postgres import shown

        return shown(str(where))
    return str(where)


__all__ = ["RETRY_SECONDS", "HandReader", "SealedRecords", "shown_store"]
