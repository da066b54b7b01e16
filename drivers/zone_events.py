"""What lies on a reader's antennas, as table events: the one place where reads become cards,
chips, foreign tags and gone cards, whatever the reader (a serial line's frames or a reader chip
polled over SPI or UART).

A card is emitted when its tag arrives on an antenna and gone when it has not been read for the
presence timeout (or the reader says so); a chip zone's contents are emitted once they stayed the
same for the settle time (RULES R9). Time is passed in; the caller owns the thread.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Literal

from controller.events import CardEvent, ChipsEvent, Emit, ForeignEvent, GoneEvent
from drivers.presence import Presence, ZoneSettler
from drivers.registry import ChipSet, Deck

log = logging.getLogger(__name__)


class ZoneEvents:
    def __init__(self, name: str, zones: Mapping[int, str], reads: Literal["cards", "chips"],
                 emit: Emit, *, deck: Deck | None, chips: ChipSet | None,
                 presence_timeout: float, settle: float, by_scans: bool = False) -> None:
        self.name, self.zones, self.reads = name, zones, reads
        self._emit, self._deck, self._chips = emit, deck, chips
        self.presence = Presence(presence_timeout)
        self._settler = ZoneSettler(settle, by_scans=by_scans)
        self._cards_on: dict[tuple[int, str], str] = {}  # what each (antenna, uid) was read as
        self._unknown_antennas: set[int] = set()
        self._missed: dict[tuple[int, str], int] = {}  # polled readers: scans without a read
        # Chip zones whose module (or whole reader) stopped answering: what lies there is not
        # known, and its last reading stands until it is heard again (`unheard`)
        self._unheard: set[int] = set()
        self.by_scans = by_scans

    def opened(self, now: float) -> None:
        """The reader has just opened (the table's start, or the reader back after a loss):
        every chip zone is reported once, whatever it holds, nothing too. A zone is otherwise
        reported only when it changes, and a table that restarts mid-hand may remember chips
        that the dealer swept while it was down: without this it would wait for ever for that
        sweep. A polled reader's report waits for a whole scan begun after this; one that
        reports by itself, for its presence timeout, by which every tag on the antenna has
        been read again (or counts as gone)."""
        if self.reads != "chips":
            return
        self._unheard.clear()
        wait = 0.0 if self.by_scans else max(0.0, self.presence.timeout - self._settler.settle)
        for antenna in sorted(self.zones):
            self._settler.changed(antenna, now + wait)

    def heard(self, antenna: int, now: float) -> None:
        """A chip zone's module answers again after it was offline: the zone is reported
        once more after a whole scan (the chips may have moved meanwhile)."""
        if antenna in self._unheard:
            self._unheard.discard(antenna)
            self._settler.changed(antenna, now)

    def read(self, antenna: int, uid: str, now: float) -> None:
        """A tag read on an antenna (again and again while it lies there)."""
        if not self.presence.report(antenna, uid, now):
            return
        zone = self.zones.get(antenna)
        if zone is None:
            if antenna not in self._unknown_antennas:  # once: a reader repeats its reads
                self._unknown_antennas.add(antenna)
                log.warning("reader %s: antenna %d is not in the configuration", self.name,
                            antenna)
            return
        if self.reads == "chips":
            if self._chips is None or self._chips.value_of(uid) is None:
                self._emit(ForeignEvent(zone=zone, uid=uid, reads="chips", ts=now))
            self._settler.changed(antenna, now)
            return
        card = self._deck.card_of(uid) if self._deck else None
        if card is None:
            self._emit(ForeignEvent(zone=zone, uid=uid, ts=now))  # RULES I4
            return
        self._cards_on[(antenna, uid)] = card
        self._emit(CardEvent(zone=zone, card=card, uid=uid, ts=now))

    def arrived(self, antenna: int, uid: str, now: float) -> None:
        """A tag that has just come into the antenna's field (a polled reader that hears only
        newcomers: a card it kept halted never answers again until it left and came back, so
        this is a new arrival even where the tag was last seen, as a card dealt to the same
        seat in the next hand)."""
        self._moved(antenna, uid, now)
        if self.presence.remove(antenna, uid):
            self._cards_on.pop((antenna, uid), None)
        self.read(antenna, uid, now)

    def _moved(self, antenna: int, uid: str, now: float) -> None:
        """A tag read here is no longer wherever else it was (a polled reader: one place)."""
        for other in self.presence.antennas_of(uid):
            if other != antenna:
                self._missed.pop((other, uid), None)
                self.removed(other, uid, now)

    def scanned(self, antenna: int, uids: list[str], began: float, now: float,
                misses: int) -> None:
        """A whole scan of the antenna, begun at ``began`` (a polled reader): the tags it read
        are there; a tag that ``misses`` whole scans in a row did not read has gone (one
        missed answer, a chip in a tall stack, is no removal)."""
        for uid in uids:
            self._moved(antenna, uid, now)
            self.read(antenna, uid, now)
            self._missed.pop((antenna, uid), None)
        here = set(uids)
        for uid in sorted(self.presence.present(antenna) - here):
            key = (antenna, uid)
            self._missed[key] = self._missed.get(key, 0) + 1
            if self._missed[key] >= misses:
                del self._missed[key]
                self.removed(antenna, uid, now)
        self._settler.scanned(antenna, began)

    def removed(self, antenna: int, uid: str, now: float) -> None:
        """The reader says the tag left the antenna."""
        if self.presence.remove(antenna, uid):
            self._left(antenna, uid, now)

    def tick(self, now: float) -> None:
        """Timeouts: tags not read for a while are gone (a reader that reports by itself; a
        polled reader's scans say it); chip zones that stayed still count."""
        unheard = frozenset(self._unheard)
        if not self.by_scans:
            for antenna, uid in self.presence.expire(now, keep=unheard):
                self._left(antenna, uid, now)
        unsure = frozenset(antenna for antenna, _ in self._missed) | unheard
        for antenna in self._settler.due(now, unsure):
            self._chips_settled(antenna, now)

    def clear(self, now: float) -> None:
        """The reader went away: nothing is known to be on its antennas any more. Its cards
        are gone (presence decides nothing at the table); its chip zones are not read as
        emptied (chips do not leave because a reader failed: a bet taken back, or a sweep,
        where nothing moved): they stand as last read until it opens again (`opened`)."""
        self._missed.clear()
        if self.reads == "chips":
            self._unheard.update(self.zones)
            return
        for antenna, uid in self.presence.clear():
            self._left(antenna, uid, now)

    def clear_antennas(self, antennas: Iterable[int], now: float) -> None:
        """Some antennas went away (a reader chip that stopped answering): as `clear`, for
        them alone; a chip zone is heard again when its module answers (`heard`)."""
        wanted = set(antennas)
        if self.reads == "chips":
            self._unheard.update(wanted)
            for key in [k for k in self._missed if k[0] in wanted]:
                del self._missed[key]
            return
        for antenna in sorted(wanted):
            for uid in sorted(self.presence.present(antenna)):
                self.removed(antenna, uid, now)

    def _left(self, antenna: int, uid: str, now: float) -> None:
        if self.reads == "chips":
            self._settler.changed(antenna, now)
            return
        card = self._cards_on.pop((antenna, uid), None)
        zone = self.zones.get(antenna)
        if card is not None and zone is not None:
            self._emit(GoneEvent(zone=zone, card=card, ts=now))

    def _chips_settled(self, antenna: int, now: float) -> None:
        zone = self.zones.get(antenna)
        if zone is None or self._chips is None:
            return
        uids = sorted(u for u in self.presence.present(antenna) if self._chips.value_of(u))
        values = sorted((self._chips.chips[u] for u in uids), reverse=True)
        self._emit(ChipsEvent(zone=zone, chips=values, uids=uids, ts=now))
