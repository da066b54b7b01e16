"""From scans to PT1 lines: what the board believes lies on each antenna, and what it owes the
host about it.

- ``R`` at once for a tag that was not there, then again at least every ``repeat_us`` while the
  board believes it stays: the protocol asks for 250 ms at most, and 200 leaves room for the one
  scan that may run between a line falling due and the next look (the `Timer` looks during
  every wait of a scan as well).
- ``X`` when a tag has been missing from ``misses`` scans of its antenna in a row (the chip's:
  2 for cards, 3 for chips, as the table's own chip reader counts). One missed answer (a chip
  deep in a stack) is no removal: a board that said X and then R again would make the host
  see a chip taken and put back.
- ``H`` every ``heartbeat_us``: 900 ms, so that with a scan's delay the gap stays within the
  protocol's second.
"""

from .framing import Framer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .ports import Timer, Write

REPEAT_US = 200_000
HEARTBEAT_US = 900_000


class Reporter:
    def __init__(self, write: "Write", antennas: int, timer: "Timer", *,
                 repeat_us: int = REPEAT_US, heartbeat_us: int = HEARTBEAT_US) -> None:
        self.write, self.antennas, self.timer = write, antennas, timer
        self.repeat_us, self.heartbeat_us = repeat_us, heartbeat_us
        self.framer = Framer()
        # antenna -> {uid: [when its last R went out, scans in a row it was missing from]}
        self.tags = {}  # type: dict[int, dict[str, list[int]]]
        self._next_beat = timer.now_us()  # the first heartbeat at once: the host sees us alive
        self._next_repeat = -1  # when the earliest R repeat falls due; -1: no tag anywhere

    def _send(self, kind: str, first: int, second: "int | str") -> None:
        self.write(self.framer.next(kind, first, second))

    def scanned(self, antenna: int, uids: "list[str]", misses: int) -> None:
        """A whole scan of ``antenna`` read ``uids`` (empty when its chip failed); a tag missing
        from ``misses`` such scans in a row has gone."""
        now = self.timer.now_us()
        here = self.tags.get(antenna)
        if here is None:
            here = self.tags[antenna] = {}
        seen = set(uids)
        for uid in uids:
            entry = here.get(uid)
            if entry is None:
                here[uid] = [now, 0]
                self._send("R", antenna, uid)
                due = now + self.repeat_us
                if self._next_repeat < 0 or due < self._next_repeat:
                    self._next_repeat = due
            else:
                entry[1] = 0
        for uid in list(here):
            if uid not in seen:
                here[uid][1] += 1
                if here[uid][1] >= misses:
                    del here[uid]
                    self._send("X", antenna, uid)

    def tick(self) -> None:
        """Send what has fallen due: the heartbeat, the R repeats. Cheap when nothing has (it
        runs in every wait of every scan)."""
        now = self.timer.now_us()
        if now >= self._next_beat:
            self._send("H", now // 1000, self.antennas)
            self._next_beat += self.heartbeat_us
            if self._next_beat <= now:  # a long stall: no burst of heartbeats to catch up
                self._next_beat = now + self.heartbeat_us
        if self._next_repeat < 0 or now < self._next_repeat:
            return
        earliest = -1
        for antenna, here in self.tags.items():
            for uid, entry in here.items():
                if now - entry[0] >= self.repeat_us:
                    self._send("R", antenna, uid)
                    entry[0] = now
                due = entry[0] + self.repeat_us
                if earliest < 0 or due < earliest:
                    earliest = due
        self._next_repeat = earliest
