"""Tag presence per antenna: a tag reported again and again is one arrival; it leaves after a
timeout without reports, or at once when the reader says so. Time is passed in, so this is pure."""

from __future__ import annotations


class Presence:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._last_seen: dict[tuple[int, str], float] = {}

    def report(self, antenna: int, uid: str, now: float) -> bool:
        """A read; True when the tag just arrived on that antenna."""
        key = (antenna, uid)
        arrived = key not in self._last_seen
        self._last_seen[key] = now
        return arrived

    def remove(self, antenna: int, uid: str) -> bool:
        """The reader says the tag left; True if it was there."""
        return self._last_seen.pop((antenna, uid), None) is not None

    def expire(self, now: float, keep: frozenset[int] = frozenset()) -> list[tuple[int, str]]:
        """Tags not reported for ``timeout`` seconds, now gone, oldest first (none on the
        antennas ``keep``: not heard, so not known to be gone)."""
        gone = sorted(
            (seen, key) for key, seen in self._last_seen.items()
            if now - seen >= self.timeout and key[0] not in keep
        )
        for _, key in gone:
            del self._last_seen[key]
        return [key for _, key in gone]

    def antennas_of(self, uid: str) -> list[int]:
        return sorted(a for (a, u) in self._last_seen if u == uid)

    def present(self, antenna: int) -> set[str]:
        return {uid for (a, uid) in self._last_seen if a == antenna}

    def clear(self) -> list[tuple[int, str]]:
        """Everything is gone at once (the reader went offline)."""
        gone = sorted(self._last_seen)
        self._last_seen.clear()
        return gone


class ZoneSettler:
    """A chip zone's contents count once they have stayed the same for ``settle`` seconds
    (RULES R9: the bet is what went in in one motion).

    With ``by_scans`` (a polled reader) they count only once a whole scan that began after the
    last change was heard (or at that very moment) has also been read: a scan under way while
    chips land may have read some of them and not the others, and a slow round of scans must
    not settle a zone on half a bet."""

    def __init__(self, settle: float, *, by_scans: bool = False) -> None:
        self.settle, self.by_scans = settle, by_scans
        self._changed_at: dict[int, float] = {}
        self._scanned_from: dict[int, float] = {}  # the start of the last whole scan read

    def changed(self, zone: int, now: float) -> None:
        """The zone changed at ``now``: it counts ``settle`` seconds on. (A report already set
        for later, the one owed when a reader opens, is not brought forward by a tag arriving
        before it.)"""
        self._changed_at[zone] = max(now, self._changed_at.get(zone, now))

    def scanned(self, zone: int, began: float) -> None:
        self._scanned_from[zone] = began

    def due(self, now: float, unsure: frozenset[int] = frozenset()) -> list[int]:
        """Zones that have just settled (each reported once per burst of changes). ``unsure``:
        zones where the last scan missed a tag that has not yet been declared gone (a chip
        taken away, or one missed answer): they wait for the scans to tell."""
        ready = sorted(z for z, t in self._changed_at.items() if now - t >= self.settle
                       and z not in unsure
                       and (not self.by_scans or self._scanned_from.get(z, -1.0) >= t))
        for zone in ready:
            del self._changed_at[zone]
        return ready
