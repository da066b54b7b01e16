"""Card and chip readers over real ptys (pyserial), with unplug and replug; and over loop://."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.events import CardEvent, ChipsEvent, ForeignEvent, GoneEvent, HealthEvent
from drivers.hf_reader import ReaderFrame, encode_line
from drivers.rdm6300 import encode_frame
from drivers.reader_config import ReaderConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.simulators import VirtualSerialDevice
from drivers.tag_reader import TagReader
from tests.drivers.helpers import Events
from tests.waiting import wait_for

DECK = Deck(name="t", cards={f"00{k:08X}": card for k, card in enumerate(REGISTRATION_ORDER)})
AS = "0000000033"  # As is the 52nd card: index 51 = 0x33


@pytest.fixture
def pty(tmp_path: Path) -> Iterator[VirtualSerialDevice]:
    device = VirtualSerialDevice(tmp_path / "usb-rdm6300-if00")
    yield device
    device.close()


def test_rdm6300_card_over_a_pty_repeats_are_one_card_then_gone(pty: VirtualSerialDevice) -> None:
    events = Events()
    config = ReaderConfig(name="seat3", url=str(pty.path), protocol="rdm6300",
                          zones={0: "seat:3"}, presence_timeout=0.3)
    with TagReader(config, events, deck=DECK):
        wait_for(lambda: bool(events.of(HealthEvent)))
        for _ in range(5):  # the module repeats the frame while the card lies there
            pty.write(encode_frame(AS))
        wait_for(lambda: bool(events.of(GoneEvent)))
    cards = events.of(CardEvent)
    assert [(c.zone, c.card, c.uid) for c in cards] == [("seat:3", "As", AS)]
    assert [(g.zone, g.card) for g in events.of(GoneEvent)] == [("seat:3", "As")]


def test_unknown_tag_is_a_foreign_event_not_a_crash(pty: VirtualSerialDevice) -> None:
    events = Events()
    config = ReaderConfig(name="board", url=str(pty.path), protocol="rdm6300", zones={0: "board"})
    with TagReader(config, events, deck=DECK) as reader:
        wait_for(lambda: reader.status == "ok")  # pyserial flushes what came before the open
        pty.write(b"\x02garbage\x03" + encode_frame("ABCDEF0123") + encode_frame(AS))
        wait_for(lambda: bool(events.of(CardEvent)))
    foreign = events.of(ForeignEvent)
    assert [(f.zone, f.uid) for f in foreign] == [("board", "ABCDEF0123")]


def test_unplug_and_replug_reconnects_and_reports_health(pty: VirtualSerialDevice) -> None:
    events = Events()
    config = ReaderConfig(name="cards", url=str(pty.path), protocol="rdm6300",
                          zones={0: "seat:1"}, presence_timeout=5, retry_max=0.2)
    with TagReader(config, events, deck=DECK) as reader:
        wait_for(lambda: reader.status == "ok")
        pty.write(encode_frame(AS))
        wait_for(lambda: bool(events.of(CardEvent)))
        pty.unplug()
        wait_for(lambda: reader.status == "reconnecting")
        # what lay on the antenna is no longer known to be there
        wait_for(lambda: bool(events.of(GoneEvent)))
        pty.plug()
        wait_for(lambda: reader.status == "ok")
        pty.write(encode_frame(AS))
        wait_for(lambda: len(events.of(CardEvent)) == 2)
        assert reader.reconnects == 1
    statuses = [h.status for h in events.of(HealthEvent)]
    assert statuses == ["ok", "reconnecting", "ok"]


def test_a_device_that_is_not_there_yet_is_retried(tmp_path: Path) -> None:
    events = Events()
    link = tmp_path / "late-device"
    config = ReaderConfig(name="cards", url=str(link), protocol="rdm6300", zones={0: "burn"},
                          retry_max=0.1)
    with TagReader(config, events, deck=DECK) as reader:
        threading.Event().wait(0.3)
        assert reader.status == "reconnecting" and not events
        late = VirtualSerialDevice(link)
        try:
            wait_for(lambda: reader.status == "ok")
        finally:
            late.unplug()


HOUSE_CHIPS = ChipSet(name="house", chips={"E004000000000001": 1000, "E004000000000002": 500,
                                           "E004000000000003": 500})


def _pt1(reader: TagReader, t: float, *reads: tuple[int, str]) -> None:
    """What a PT1 module sends at ``t``: its heartbeat and a read of each tag in its field
    (it repeats them while the tags lie there)."""
    frames = [encode_line(ReaderFrame(1, "heartbeat", uptime_ms=int(t * 1000), antennas=13))]
    frames += [encode_line(ReaderFrame(k + 2, "read", antenna=a, uid=u))
               for k, (a, u) in enumerate(reads)]
    reader.process(b"".join(frames), t)


def test_pt1_chip_zones_settle_into_one_chips_event_over_loop_url() -> None:
    now = [0.0]
    events = Events()
    config = ReaderConfig(name="chips", url="loop://", protocol="pt1", reads="chips",
                          zones={4: "seat:4"}, settle=0.2, presence_timeout=2)
    reader = TagReader(config, events, chips=HOUSE_CHIPS, clock=lambda: now[0])
    assert reader._open_device()  # loop://; the module's frames are fed in virtual time here
    try:
        for k in range(30):  # the zone's report on opening (empty), then quiet
            _pt1(reader, k * 0.1)
        assert [(e.zone, e.chips) for e in events.of(ChipsEvent)] == [("seat:4", [])]
        events.clear()
        laid = ["E004000000000001", "E004000000000002", "E0040000000000FF", "E004000000000003"]
        for k in range(20):  # chips laid one by one, then read again and again
            _pt1(reader, 3.0 + k * 0.05, *[(4, uid) for uid in laid[:k + 1]])
    finally:
        reader._close_port()
    (bet,) = events.of(ChipsEvent)  # one motion (RULES R9)
    assert bet.zone == "seat:4" and bet.chips == [1000, 500, 500]
    assert [f.uid for f in events.of(ForeignEvent)] == ["E0040000000000FF"]


def test_pt1_opening_reports_each_chip_zone_once_the_empty_ones_too() -> None:
    """A table restarted mid-hand may remember bets that the dealer swept while it was down;
    a zone is reported only when it changes, so the reader reports every chip zone once when it
    opens (nothing, where nothing lies), after its presence timeout: by then the module has
    read every tag in the field again. A reader of cards reports nothing on opening."""
    now = [0.0]
    events = Events()
    config = ReaderConfig(name="chips", url="loop://", protocol="pt1", reads="chips",
                          zones={4: "seat:4", 5: "seat:5", 11: "pot"}, settle=0.3,
                          presence_timeout=1.5)
    reader = TagReader(config, events, chips=HOUSE_CHIPS, clock=lambda: now[0])
    assert reader._open_device()
    try:
        stack = [(4, "E004000000000001"), (4, "E004000000000003")]
        for k in range(15):  # the first 1.5 s: the bet in seat 4's zone, read again and again
            _pt1(reader, k * 0.1, *stack)
        assert not events.of(ChipsEvent)  # not before every tag has been read again
        for k in range(15, 40):
            _pt1(reader, k * 0.1, *stack)
    finally:
        reader._close_port()
    assert sorted((e.zone, e.chips) for e in events.of(ChipsEvent)) == [
        ("pot", []), ("seat:4", [1000, 500]), ("seat:5", [])]

    cards = TagReader(ReaderConfig(name="cards", url="loop://", protocol="pt1",
                                   zones={1: "seat:1"}, presence_timeout=0.5),
                      events, deck=DECK, clock=lambda: now[0])
    events.clear()
    assert cards._open_device()
    try:
        for k in range(20):
            _pt1(cards, k * 0.1)
    finally:
        cards._close_port()
    assert [e for e in events if not isinstance(e, HealthEvent)] == []


def test_pt1_chip_zones_are_not_read_as_emptied_while_the_reader_is_away() -> None:
    """A PT1 reader of chips unplugged (a USB adapter's hiccup): its tags were all taken as
    gone, and a settle time later every zone read empty (bets taken back, a sweep where nothing
    moved), then the same chips came back as new bets. Its zones now stand as last read until
    it opens again; then each is reported once, as it is then."""
    now = [0.0]
    events = Events()
    config = ReaderConfig(name="chips", url="loop://", protocol="pt1", reads="chips",
                          zones={4: "seat:4", 5: "seat:5"}, settle=0.3, presence_timeout=1.0)
    reader = TagReader(config, events, chips=HOUSE_CHIPS, clock=lambda: now[0])
    assert reader._open_device()
    stack = [(4, "E004000000000001"), (4, "E004000000000003")]
    try:
        for k in range(20):
            _pt1(reader, k * 0.1, *stack)
        assert sorted((e.zone, e.chips) for e in events.of(ChipsEvent)) == [
            ("seat:4", [1000, 500]), ("seat:5", [])]
        events.clear()
        reader._lost()  # the device went away
        for k in range(20, 60):  # the reader's loop runs its timeouts meanwhile
            reader.process(b"", k * 0.1)
        assert events.of(ChipsEvent) == []
        assert reader._open_device()
        for k in range(60, 90):  # back: seat 5 has a bet now
            _pt1(reader, k * 0.1, *stack, (5, "E004000000000002"))
    finally:
        reader._close_port()
    assert sorted((e.zone, e.chips) for e in events.of(ChipsEvent)) == [
        ("seat:4", [1000, 500]), ("seat:5", [500])]


def test_pt1_heartbeat_missing_marks_the_reader_offline() -> None:
    now = [0.0]
    events = Events()
    config = ReaderConfig(name="cards", url="loop://", protocol="pt1", zones={0: "seat:1"},
                          heartbeat_timeout=3)
    reader = TagReader(config, events, deck=DECK, clock=lambda: now[0])
    reader._port = object()  # type: ignore[assignment]  # as if open; process() is driven here
    reader.status = "ok"
    reader.process(encode_line(ReaderFrame(1, "heartbeat", uptime_ms=5, antennas=13)), 1.0)
    reader._last_heartbeat = 1.0
    reader.process(b"", 3.5)
    assert reader.status == "ok"
    now[0] = 4.5
    reader.process(b"", 4.5)
    assert reader.status == "offline"
    reader.process(encode_line(ReaderFrame(2, "heartbeat", uptime_ms=9, antennas=13)), 5.0)
    assert reader.status == "ok"
    reader._port = None
