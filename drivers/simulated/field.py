"""What lies on a reader's antennas: the tags the (simulated) dealer's hands put down and take
away. The simulated chips read from it; each keeps its own protocol state per tag."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol


class TagField:
    """Tags by antenna. Thread-safe: the dealer's hands move tags while a driver scans.
    ``clock``: when each tag was placed (a card powers up from then)."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock
        self._placed: dict[tuple[int, str], float] = {}
        self._tags: dict[int, list[str]] = {}
        self._lock = threading.Lock()
        self._read = threading.Condition(self._lock)
        self._unread: set[tuple[int, str]] = set()  # placed, not yet read by a chip

    def place(self, antenna: int, uid: str) -> None:
        with self._lock:
            self._tags.setdefault(antenna, []).append(uid)
            self._unread.add((antenna, uid))
            if self._clock is not None:
                self._placed[(antenna, uid)] = self._clock()

    def place_many(self, antenna: int, uids: list[str]) -> None:
        with self._lock:
            self._tags.setdefault(antenna, []).extend(uids)
            self._unread.update((antenna, uid) for uid in uids)
            if self._clock is not None:
                now = self._clock()
                self._placed.update(((antenna, uid), now) for uid in uids)

    def placed_at(self, antenna: int, uid: str) -> float | None:
        with self._lock:
            return self._placed.get((antenna, uid))

    def mark_read(self, antenna: int, uid: str) -> None:
        """A chip read the tag (a simulated chip says so)."""
        with self._lock:
            if (antenna, uid) in self._unread:
                self._unread.discard((antenna, uid))
                self._read.notify_all()

    def wait_read(self, antenna: int, uid: str, timeout: float) -> bool:
        """Until a chip has read the tag placed there: a dealer pitches the next card no
        faster than the table reads them (a real one takes a third of a second a card)."""
        with self._lock:
            return self._read.wait_for(lambda: (antenna, uid) not in self._unread, timeout)

    def remove(self, antenna: int, uid: str) -> None:
        with self._lock:
            tags = self._tags.get(antenna, [])
            if uid in tags:
                tags.remove(uid)
            self._unread.discard((antenna, uid))
            self._read.notify_all()

    def remove_many(self, antenna: int, uids: list[str]) -> None:
        with self._lock:
            tags = self._tags.get(antenna, [])
            for uid in uids:
                if uid in tags:
                    tags.remove(uid)

    def swap_many(self, antenna: int, out: list[str], uids: list[str]) -> None:
        """Tags taken away and others put down in one motion: a scan sees the antenna before
        or after, never between."""
        with self._lock:
            tags = self._tags.setdefault(antenna, [])
            for uid in out:
                if uid in tags:
                    tags.remove(uid)
                self._unread.discard((antenna, uid))
            tags.extend(uids)
            self._unread.update((antenna, uid) for uid in uids)
            self._read.notify_all()
            if self._clock is not None:
                now = self._clock()
                self._placed.update(((antenna, uid), now) for uid in uids)

    def clear(self) -> None:
        with self._lock:
            self._tags.clear()
            self._unread.clear()
            self._read.notify_all()

    def tags(self, antenna: int) -> list[str]:
        with self._lock:
            return list(self._tags.get(antenna, ()))

    def close(self) -> None:
        """Nothing runs behind a field (the hands call it like a simulated reader)."""


class Antennas(Protocol):
    """What the simulated dealer's hands put tags on: a `TagField`, or a simulated PT1 reader
    board (which reports what lies on its antennas by itself)."""

    def place(self, antenna: int, uid: str) -> None: ...

    def place_many(self, antenna: int, uids: list[str]) -> None: ...

    def remove(self, antenna: int, uid: str) -> None: ...

    def remove_many(self, antenna: int, uids: list[str]) -> None: ...

    def swap_many(self, antenna: int, out: list[str], uids: list[str]) -> None:
        """``out`` taken away and ``uids`` put down in one motion (change made)."""
        ...


class ZoneAntennas:
    """Several readers' antennas as one, by zone: a table whose board, muck and seats are read
    by different modules (one PN532 each) still has one place for each zone. ``zones`` gives
    each zone's reader and antenna; `antenna_of` numbers the zones for the dealer's hands."""

    def __init__(self, zones: dict[str, tuple[Antennas, int]]) -> None:
        self._by_number = dict(enumerate(zones.values()))
        self.antenna_of = {zone: k for k, zone in enumerate(zones)}

    @property
    def zones(self) -> dict[int, str]:
        return {k: zone for zone, k in self.antenna_of.items()}

    def place(self, antenna: int, uid: str) -> None:
        reader, real = self._by_number[antenna]
        reader.place(real, uid)

    def place_many(self, antenna: int, uids: list[str]) -> None:
        reader, real = self._by_number[antenna]
        reader.place_many(real, uids)

    def remove(self, antenna: int, uid: str) -> None:
        reader, real = self._by_number[antenna]
        reader.remove(real, uid)

    def remove_many(self, antenna: int, uids: list[str]) -> None:
        reader, real = self._by_number[antenna]
        reader.remove_many(real, uids)

    def swap_many(self, antenna: int, out: list[str], uids: list[str]) -> None:
        reader, real = self._by_number[antenna]
        reader.swap_many(real, out, uids)

    def wait_read(self, antenna: int, uid: str, timeout: float) -> bool:
        """Until a chip read the tag (a reader that reports by itself: at once)."""
        reader, real = self._by_number[antenna]
        wait = getattr(reader, "wait_read", None)
        return True if wait is None else bool(wait(real, uid, timeout))
