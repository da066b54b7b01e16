"""The Pico firmware's logic under CPython: its own MFRC522 and PN5180 code against the project's
simulated chips on a simulated SPI bus, in virtual time, and what it writes to USB read by the
host's PT1 decoder and the table's own serial reader (drivers/tag_reader.py)."""

from __future__ import annotations

import io
import itertools
import json
import random

import pytest

from controller.events import CardEvent, ChipsEvent, GoneEvent, TableEvent
from drivers.decode import decode_stream
from drivers.hf_reader import ReaderFrame
from drivers.reader_config import ReaderConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.simulated.pn5180 import SimulatedPn5180
from drivers.tag_reader import TagReader
from tests.firmware.shim import START, Rig, cards_config, chips_config

CARDS = [f"04{k:012X}" for k in range(52)]  # NTAG21x: 7-byte UIDs, one manufacturer byte
DECK = Deck(name="t", cards=dict(zip(CARDS, REGISTRATION_ORDER, strict=True)))


def chip_uids(count: int, seed: int) -> list[str]:
    """ICODE SLIX style UIDs (E0 04 ...), random below: stacks collide in their slots."""
    rng = random.Random(seed)
    return [f"E00401{rng.getrandbits(40):010X}" for _ in range(count)]


def max_gap(times: list[float]) -> float:
    return max(b - a for a, b in itertools.pairwise(times))


def tag_lines(rig: Rig, antenna: int, uid: str) -> list[tuple[float, ReaderFrame]]:
    frames, _ = rig.frames()
    return [(when, f) for when, f in frames if f.antenna == antenna and f.uid == uid]


def test_two_and_four_cards_on_one_antenna_are_all_read() -> None:
    """Hold'em and Omaha: 7-byte UIDs that agree in their first cascade level (one maker), so
    every card is told apart by collisions in the second; and a 4-byte UID beside them."""
    rig = Rig(cards_config())
    rig.field.place_many(3, CARDS[:2])
    rig.field.place_many(5, CARDS[10:14])
    rig.field.place(1, "A1B2C3D4")
    rig.run(0.3)
    assert rig.reads() == {(3, CARDS[0]), (3, CARDS[1]), (1, "A1B2C3D4")} | {
        (5, uid) for uid in CARDS[10:14]}
    frames, decoder = rig.frames()
    assert (decoder.bad, decoder.lost) == (0, 0)
    assert [f.seq for _, f in frames] == list(range(len(frames)))


@pytest.mark.parametrize(("miss", "within"), [(0.0, 0.3), (0.03, 0.75)])
def test_a_20_chip_stack_reads_whole_despite_collisions_and_missed_answers(
        miss: float, within: float) -> None:
    """Collisions alone: the whole stack in the zone's first scan, well within RULES R9's
    settle time (0.4 s). A chip that missed its answer (3 % of answers here) is read at one of
    the zone's next scans, a round of the board later (0.23 s with this stack), and nothing is
    reported gone meanwhile."""
    rig = Rig(chips_config(), miss=miss, seed=4)
    stack = chip_uids(20, seed=7)
    rig.field.place_many(3, stack)
    rig.run(1.5)
    assert rig.reads() == {(3, uid) for uid in stack}
    frames, decoder = rig.frames()
    firsts = {f.uid: when for when, f in reversed(frames) if f.kind == "read"}
    assert max(firsts.values()) - START < within
    assert not [f for _, f in frames if f.kind == "removed"]  # a missed answer is no removal
    assert (decoder.bad, decoder.lost) == (0, 0)
    chips = [c for c in rig.chips.values() if isinstance(c, SimulatedPn5180)]
    assert sum(c.protocol_errors for c in chips) == 0  # never a frame while BUSY was high


@pytest.mark.parametrize("height", [1, 2, 17, 40])
def test_stacks_of_any_height_read_whole(height: int) -> None:
    rig = Rig(chips_config())
    stack = chip_uids(height, seed=height)
    rig.field.place_many(7, stack)
    rig.run(0.5)
    assert rig.reads() == {(7, uid) for uid in stack}


def test_a_card_taken_away_is_reported_removed_and_no_longer_read() -> None:
    rig = Rig(cards_config())
    rig.field.place_many(4, CARDS[:2])
    rig.run(0.5)
    rig.field.remove(4, CARDS[0])
    removed_at = rig.clock.now()
    rig.run(1.0)
    gone = [(when, f) for when, f in tag_lines(rig, 4, CARDS[0]) if when >= removed_at]
    assert [f.kind for _, f in gone] == ["removed"]  # X once, then no R
    assert gone[0][0] - removed_at < 0.3  # two scans of the board
    still = [when for when, f in tag_lines(rig, 4, CARDS[1]) if when >= removed_at]
    assert len(still) >= 4  # the other card is still there, and said so


def test_r_repeats_within_250_ms_and_heartbeats_within_a_second() -> None:
    rig = Rig(cards_config())
    rig.field.place(2, CARDS[7])
    rig.run(4.0)
    reads = [when for when, f in tag_lines(rig, 2, CARDS[7])]
    assert max_gap(reads) <= 0.25
    frames, decoder = rig.frames()
    beats = [(when, f) for when, f in frames if f.kind == "heartbeat"]
    assert beats[0][0] - START < 0.01  # the board says it is there at once
    assert all(f.antennas == 13 for _, f in beats)
    times = [when for when, _ in beats]
    assert max_gap(times) <= 1.0
    assert len(beats) >= 4
    for when, f in beats:  # uptime: milliseconds since the board started
        assert f.uptime_ms is not None and abs(f.uptime_ms / 1000 - (when - START)) < 0.002
    assert (decoder.bad, decoder.lost) == (0, 0)


def test_a_52_card_muck_holds_up_no_other_antennas_repeats() -> None:
    """A muck antenna with the whole deck takes over half a second to read; the reporter sends
    what falls due while the chip waits for its cards."""
    rig = Rig(cards_config())
    rig.field.place_many(12, CARDS)
    rig.field.place(6, "A1B2C3D4")
    rig.run(1.5)
    assert rig.reads() == {(12, uid) for uid in CARDS} | {(6, "A1B2C3D4")}
    reads = [when for when, _ in tag_lines(rig, 6, "A1B2C3D4")]
    assert max_gap(reads) <= 0.25


def test_a_module_that_stops_answering_loses_its_tags_and_is_started_again() -> None:
    rig = Rig(chips_config())
    stack = chip_uids(3, seed=1)
    rig.field.place_many(5, stack)
    rig.field.place(6, stack[0][:-1] + "F")
    rig.run(0.5)
    rig.chips[5].alive = False  # unplugged
    cut = rig.clock.now()
    rig.run(1.0)
    lines = [(when, f) for when, f in rig.frames()[0] if when >= cut]
    assert {(f.kind, f.uid) for _, f in lines if f.antenna == 5} == {
        ("removed", uid) for uid in stack}
    assert any(f.antenna == 6 and f.kind == "read" for _, f in lines)  # the others go on
    assert any(f.kind == "heartbeat" for _, f in lines)
    rig.chips[5].alive = True  # plugged in again: started within RETRY_US (2 s)
    back = rig.clock.now()
    rig.run(2.5)
    assert {(5, uid) for uid in stack} <= rig.reads(since=back)


def test_a_chip_select_on_the_wrong_pin_reads_nothing_and_fails_no_other_antenna() -> None:
    config = cards_config()
    config["antennas"][8]["cs"] = 20  # the module is wired to GP8; config.json says GP20
    rig = Rig(config)
    rig.spi.chips = [(wire, chip) for wire, chip in rig.spi.chips if chip is not rig.chips[8]]
    rig.field.place(8, CARDS[0])
    rig.field.place(9, CARDS[1])
    rig.run(0.5)
    assert rig.reads() == {(9, CARDS[1])}
    antenna = next(a for a in rig.scanner.antennas if a.number == 8)
    assert antenna.error == "MFRC522 on GP20 does not answer (reads 0x00)"


def test_the_table_reads_the_board_through_its_own_pt1_reader() -> None:
    """The bytes as the table service takes them: cards dealt, one mucked, all in zones."""
    rig = Rig(cards_config())
    rig.field.place_many(3, CARDS[:2])
    rig.field.place(11, CARDS[20])
    rig.run(0.6)
    rig.field.remove(3, CARDS[1])
    rig.run(0.6)
    events: list[TableEvent] = []
    config = ReaderConfig(name="cards", url="loop://", protocol="pt1",
                          zones={0: "burn", 11: "board", 12: "muck"} | {
                              s: f"seat:{s}" for s in range(1, 11)})
    reader = TagReader(config, events.append, deck=DECK, clock=rig.clock.now)
    for when, data in rig.writes:
        reader.process(data, when)
    reader.process(b"", rig.clock.now())
    cards = [(e.zone, e.uid) for e in events if isinstance(e, CardEvent)]
    assert sorted(cards) == [("board", CARDS[20]), ("seat:3", CARDS[0]), ("seat:3", CARDS[1])]
    gone = [(e.zone, e.card) for e in events if isinstance(e, GoneEvent)]
    assert gone == [("seat:3", DECK.cards[CARDS[1]])]


def test_the_table_settles_a_bet_read_from_the_chip_board() -> None:
    rig = Rig(chips_config(), miss=0.02, seed=2)
    stack = chip_uids(20, seed=3)
    rig.field.place_many(4, stack)
    rig.run(1.2)
    events: list[TableEvent] = []
    config = ReaderConfig(name="chips", url="loop://", protocol="pt1", reads="chips",
                          zones={s: f"seat:{s}" for s in range(1, 11)} | {11: "pot"})
    reader = TagReader(config, events.append, chips=ChipSet(name="t", chips=dict.fromkeys(
        stack, 25)), clock=rig.clock.now)
    for when, data in rig.writes:
        reader.process(data, when)
    reader.process(b"", rig.clock.now())
    bets = [e for e in events if isinstance(e, ChipsEvent)]
    assert [(e.zone, len(e.chips), sum(e.chips)) for e in bets] == [("seat:4", 20, 500)]


def test_pokertable_decode_reads_the_boards_output() -> None:
    rig = Rig(cards_config())
    rig.field.place_many(0, CARDS[30:32])
    rig.run(0.3)
    out = io.StringIO()
    assert decode_stream("pt1", io.BytesIO(rig.output()), out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert {(x["antenna"], x["uid"]) for x in lines if x.get("kind") == "read"} == {
        (0, CARDS[30]), (0, CARDS[31])}
    assert lines[-1] == {"frames": len(lines) - 1, "bad": 0}
