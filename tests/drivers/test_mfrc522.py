"""The MFRC522 driver against the chip simulated at its registers: every card on an antenna in
one scan by ISO/IEC 14443-3 anticollision, newcomers heard at once, modules that stop answering
reported and back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.events import CardEvent, ChipsEvent, GoneEvent, HealthEvent
from drivers.mfrc522 import Mfrc522, bcc, crc_a
from drivers.registry import ChipSet
from drivers.scan import ChipError, VirtualClock, run_scans
from drivers.simulated.field import TagField
from drivers.simulated.mfrc522 import SimulatedMfrc522
from drivers.simulated.spi_bus import GpioWire, SimulatedSpiBus
from drivers.spi import ChipSelects, SpiModules
from tests.drivers import chip_helpers
from tests.drivers.chip_helpers import UID_OF, Table, cards_config, chips_config


def test_crc_a_and_bcc_as_iso_14443_3_gives_them() -> None:
    assert crc_a(bytes([0x50, 0x00])) == bytes([0x57, 0xCD])  # HLTA, as every reader sends it
    assert crc_a(b"") == bytes([0x63, 0x63])
    assert bcc(bytes([0x88, 0x04, 0x42, 0xBD])) == 0x88 ^ 0x04 ^ 0x42 ^ 0xBD


class Bench:
    def __init__(self, modules: int = 2, **chip: object) -> None:
        self.factory, self.clock = MockFactory(), VirtualClock()
        self.field = TagField(self.clock.now)
        self.bus = SimulatedSpiBus(self.clock)
        pins = {a: 20 + a for a in range(modules)}
        self.sims = {a: SimulatedMfrc522(self.field, a, self.clock, **chip)  # type: ignore[arg-type]
                     for a in pins}
        for antenna, pin in pins.items():
            self.bus.attach(GpioWire(self.factory, pin), self.sims[antenna])
        spi = SpiModules(self.bus, ChipSelects(self.factory, None, pins))
        self.chips = {a: Mfrc522(spi, a, self.clock) for a in pins}
        for chip in self.chips.values():
            assert chip.start() == "MFRC522 v2.0"

    def scan(self, antenna: int = 0) -> tuple[list[str], bool]:
        result = run_scans([(antenna, self.chips[antenna].scan)], self.clock)[antenna]
        assert not isinstance(result, ChipError), result
        return sorted(result.uids), result.complete


@pytest.fixture
def bench() -> Iterator[Bench]:
    made = Bench()
    yield made
    made.factory.reset()


@pytest.mark.parametrize("cards", [2, 4])
def test_two_cards_of_holdem_and_four_of_omaha_on_one_antenna_in_one_scan(
        bench: Bench, cards: int) -> None:
    uids = [UID_OF[c] for c in ["As", "Ks", "Qs", "Js"][:cards]]
    bench.field.place_many(0, uids)
    read, complete = bench.scan()
    assert read == sorted(uids) and complete
    # Newcomers: the next scan reads the antenna whole again, at once (a bet counts only once
    # a complete scan begun after it has read it: drivers/presence.py).
    assert bench.scan() == (sorted(uids), True)
    # The field stays on and they are halted: the next scan hears nobody until one comes.
    assert bench.scan() == ([], False)
    bench.field.place(0, UID_OF["2c"])
    bench.clock.advance(0.01)  # a card in the field takes a moment to power up
    assert bench.scan() == ([UID_OF["2c"]], False)


def test_the_simulated_dealer_hears_a_card_read_only_when_its_scan_has_ended(
        bench: Bench) -> None:
    """A dealer who waits for a read before his next pitch (controller.sim.hands) must wait for
    the scan that reports it, not the SELECT inside it: several modules scan at once, and a
    loaded host that paused between the two let the next seat's card be reported first (out of
    order: a false misdeal, PVB 30(2)(h))."""
    uid = UID_OF["As"]
    bench.field.place(0, uid)
    bench.clock.advance(0.01)
    scan = bench.chips[0].scan()
    selected = False
    try:
        while True:  # every pause of the scan: read or not, the driver has not reported it yet
            due = next(scan)
            bench.clock.sleep(due - bench.clock.now())
            selected = selected or bench.sims[0].cards[uid].state != "idle"
            assert not bench.field.wait_read(0, uid, 0)
    except StopIteration as done:
        assert done.value.uids == [uid]
    assert selected and bench.field.wait_read(0, uid, 0)  # heard once the scan returned it


@settings(max_examples=60)
@given(st.lists(st.binary(min_size=6, max_size=6), min_size=1, max_size=6, unique=True))
def test_anticollision_reads_every_card_whatever_their_uids(serials: list[bytes]) -> None:
    """Cards whose UIDs share long prefixes collide bit after bit; each is still selected once."""
    made = Bench(modules=1)
    try:
        uids = [(b"\x04" + s).hex().upper() for s in serials]
        made.field.place_many(0, uids)
        assert made.scan()[0] == sorted(uids)
    finally:
        made.factory.reset()


def test_a_module_that_reads_0x00_is_no_mfrc522(bench: Bench) -> None:
    bench.sims[1].alive = False
    with pytest.raises(ChipError, match=r"does not answer \(it reads 0x00\): check its chip-sel"):
        bench.chips[1].start()


def test_a_card_slid_from_one_seat_to_the_next_arrives_there_and_is_gone_here() -> None:
    table = Table(cards_config())
    try:
        uid = UID_OF["Ah"]
        table.sim.field.place(3, uid)
        table.run(0.3)
        assert [(e.zone, e.card) for e in table.of("card")] == [("seat:3", "Ah")]  # type: ignore[union-attr]
        table.sim.field.remove(3, uid)
        table.sim.field.place(4, uid)
        table.run(0.3)
        cards = table.of("card")
        assert [(e.zone, e.card) for e in cards] == [("seat:3", "Ah"), ("seat:4", "Ah")]  # type: ignore[union-attr]
        gone = table.of("gone")
        assert [(e.zone, e.card) for e in gone] == [("seat:3", "Ah")]  # type: ignore[union-attr]
        assert all(isinstance(e, CardEvent | GoneEvent) for e in cards + gone)
    finally:
        table.close()


def test_a_module_that_stops_answering_is_offline_by_name_and_back() -> None:
    table = Table(cards_config())
    try:
        table.sim.field.place(7, UID_OF["9c"])
        table.run(0.3)
        table.sim.chips[7].alive = False  # type: ignore[attr-defined]
        table.run(0.5)
        health = [e for e in table.of("health") if isinstance(e, HealthEvent)]
        assert [(e.device, e.status) for e in health] == [
            ("cards", "ok"), ("cards/seat:7", "offline")]
        reason = str(health[-1].model_extra)
        assert "the module for seat:7 (decoder line 7) does not answer" in reason
        assert [(e.zone, e.card) for e in table.of("gone")] == [("seat:7", "9c")]  # type: ignore[union-attr]
        table.sim.chips[7].alive = True  # type: ignore[attr-defined]
        table.run(1.5)
        assert [(e.device, e.status) for e in table.of("health")][-1] == ("cards/seat:7", "ok")  # type: ignore[union-attr]
        assert [(e.zone, e.card) for e in table.of("card")][-1] == ("seat:7", "9c")  # type: ignore[union-attr]
    finally:
        table.close()


def test_a_module_that_fails_one_scan_keeps_its_cards_and_says_nothing() -> None:
    """A chip that fails a scan (a loose contact's moment; a PN532's late answer on a busy USB
    bus) and answers when set up again a moment later: its card stays (it was taken away and
    read again a second later as a new arrival: cards dealt out of order, a card seen twice),
    no health event, one hiccup counted; the module reads on. One that stays silent is offline
    (the test above)."""
    table = Table(cards_config())
    try:
        table.sim.field.place(7, UID_OF["9c"])
        table.run(0.3)
        chip = table.sim.chips[7]
        chip.alive = False  # type: ignore[attr-defined]
        for _ in range(100):
            table.reader.step(0.01)
            if table.reader.suspect:
                break
        assert table.reader.suspect == [7]
        chip.alive = True  # type: ignore[attr-defined]
        table.run(0.5)
        assert table.reader.suspect == [] and table.reader.hiccups == 1
        assert not table.of("gone")
        assert [(e.device, e.status) for e in table.of("health")] == [("cards", "ok")]  # type: ignore[union-attr]
        assert [(e.zone, e.card) for e in table.of("card")] == [("seat:7", "9c")]  # type: ignore[union-attr]
        table.sim.field.remove(7, UID_OF["9c"])
        table.run(3.0)
        assert [(e.zone, e.card) for e in table.of("gone")] == [("seat:7", "9c")]  # type: ignore[union-attr]
    finally:
        table.close()


def test_a_module_that_keeps_failing_scans_is_noisy_still_read_and_then_ok_again() -> None:
    """A chip that fails every other scan and answers each time it is set up again (a loose
    contact) kept its zone true but was never reported: the floor never heard of it. After
    FLAPPING hiccups within a minute it is `noisy`, naming the module and what to check, and
    still read; after a minute without one it is `ok` again."""
    from drivers.chip_reader import FLAPPING

    table = Table(cards_config())
    try:
        table.sim.field.place(7, UID_OF["9c"])
        table.run(0.3)
        chip = table.sim.chips[7]
        for hiccup in range(1, FLAPPING + 1):
            chip.alive = False  # type: ignore[attr-defined]
            while not table.reader.suspect:
                table.reader.step(0.01)
            chip.alive = True  # type: ignore[attr-defined]
            while table.reader.suspect:
                table.reader.step(0.01)
            assert table.reader.hiccups == hiccup
            noisy = [e for e in table.of("health") if isinstance(e, HealthEvent)
                     and e.device == "cards/seat:7"]
            assert bool(noisy) == (hiccup == FLAPPING)  # (none before the FLAPPING-th)
        assert [(e.status, e.model_extra) for e in noisy] == [("noisy", {"reason": (
            f"the module for seat:7 (decoder line 7) failed {FLAPPING} scans in the last "
            "minute and answered each time it was set up again: check its wires and its "
            "supply (a module on USB: its adapter and cable)")})]
        table.sim.field.place(7, UID_OF["9d"])  # still read while noisy
        table.run(0.3)
        assert [(e.zone, e.card) for e in table.of("card")] == [("seat:7", "9c"), ("seat:7", "9d")]  # type: ignore[union-attr]
        assert not table.of("gone")
        table.run(61.0)
        assert [(e.device, e.status) for e in table.of("health")][-2:] == [  # type: ignore[union-attr]
            ("cards/seat:7", "noisy"), ("cards/seat:7", "ok")]
    finally:
        table.close()


def test_every_card_antenna_is_scanned_within_a_quarter_second() -> None:
    table = Table(cards_config())
    try:
        for seat in range(1, 11):
            rank = "23456789TJ"[seat - 1]
            table.sim.field.place_many(seat, [UID_OF[f"{rank}h"], UID_OF[f"{rank}s"]])
        table.run(3.0)
        assert len(table.of("card")) == 20
        table.run(3.0)
        assert min(table.reader.scans.values()) >= 3.0 / 0.25
    finally:
        table.close()


def test_a_card_lifted_and_laid_again_between_two_scans_is_heard_again(bench: Bench) -> None:
    uid = UID_OF["Tc"]
    bench.field.place(0, uid)
    assert bench.scan() == ([uid], True)
    assert bench.scan() == ([uid], True)  # (newcomers: verified by a complete scan at once)
    bench.field.remove(0, uid)  # no scan sees it gone: it is back before the next one
    bench.field.place(0, uid)
    bench.clock.advance(0.01)
    assert bench.scan() == ([uid], False)


def test_a_newcomer_does_not_cut_short_the_scans_that_confirm_a_tag_gone(bench: Bench) -> None:
    """A tag missing from a complete scan is confirmed gone by three more at once (three
    misses on a chip zone, then one begun after); a tag arriving meanwhile asks for one
    more, and must not cut those three short (the third miss waited a second)."""
    a, b, c, d = (UID_OF[x] for x in ("2h", "3h", "4h", "5h"))
    bench.field.place_many(0, [a, b, c])
    assert bench.scan() == (sorted([a, b, c]), True)
    assert bench.scan() == (sorted([a, b, c]), True)  # (newcomers verified)
    assert bench.scan() == ([], False)
    bench.field.remove(0, c)
    bench.clock.advance(1.6)  # past the antenna's periodic complete scan
    assert bench.scan() == (sorted([a, b]), True)  # c missed once
    bench.field.place(0, d)
    bench.clock.advance(0.01)
    assert bench.scan() == (sorted([a, b, d]), True)  # c missed twice; d new
    assert bench.scan() == (sorted([a, b, d]), True)  # three times: gone
    assert bench.scan() == (sorted([a, b, d]), True)  # the zone counts again after this
    assert bench.scan() == ([], False)


def test_a_floating_miso_reads_0xff_and_is_named_so() -> None:
    """No module on that chip select and MISO pulled up: every byte reads 0xFF."""
    factory, clock = MockFactory(), VirtualClock()
    try:
        bus = SimulatedSpiBus(clock, idle=0xFF)
        chip = Mfrc522(SpiModules(bus, ChipSelects(factory, None, {0: 5})), 0, clock)
        with pytest.raises(ChipError, match=r"does not answer \(it reads 0xFF\)"):
            chip.start()
    finally:
        factory.reset()


@pytest.mark.parametrize("between", ["scanned", "not scanned"])
def test_a_card_dealt_again_to_the_seat_it_left_is_read_again(between: str) -> None:
    """A card collected at the end of a hand and dealt to the same seat in the next one: the
    table must hear it again, whether quick scans saw it gone (no complete scan came between)
    or nothing was scanned meanwhile, so that the scan that first hears it is a complete one."""
    table = Table(cards_config())
    try:
        uid = UID_OF["4d"]
        table.sim.field.place(2, uid)
        table.run(0.2)
        table.sim.field.remove(2, uid)
        if between == "scanned":
            table.run(0.1)
        else:
            table.clock.advance(2.0)  # the next scan is complete
        table.sim.field.place(2, uid)
        table.clock.advance(0.01)
        table.run(0.2)
        assert [(e.zone, e.card) for e in table.of("card")] == [("seat:2", "4d")] * 2  # type: ignore[union-attr]
    finally:
        table.close()


MIFARE_CHIPS = ChipSet(name="t", chips={f"04AB{k:010X}": 100 for k in range(40)})


def _counted_within(table: Table, limit: float, **wanted: int) -> None:
    """Until each zone (``seat_3=5``: seat:3) counts that many chips (RULES R9: still for the
    settle time), failing past ``limit`` seconds of the table's clock."""
    zones = {name.replace("_", ":"): chips for name, chips in wanted.items()}
    start, seen = table.clock.now(), len(table.events)
    while table.clock.now() - start < limit:
        table.reader.step(0.01)
        for event in table.events[seen:]:
            if isinstance(event, ChipsEvent) and zones.get(event.zone) == len(event.chips):
                del zones[event.zone]
        seen = len(table.events)
        if not zones:
            return
    raise AssertionError(f"not counted within {limit} s: {zones}")


@pytest.mark.parametrize("protocol", ["mfrc522", "pn5180"])
def test_mfrc522_chip_zones_count_a_bet_a_change_and_a_sweep_as_soon_as_pn5180s_do(
        protocol: str) -> None:
    """RULES R9: a bet counts once it has stayed still for the settle time (0.4 s). MFRC522
    chip zones counted a swap for change four seconds after it and chips taken back after four
    (the soak's MFRC522 chip table ran at half the PN5180 table's pace): a quick scan hears only
    newcomers, and complete scans came a second apart. They now follow at once while the zone
    changes, as the PN5180's do; the limits here are the PN5180's times with a scan's margin."""
    mifare = protocol == "mfrc522"
    registry = MIFARE_CHIPS if mifare else chip_helpers.CHIPS
    uids = list(registry.chips)
    config = chips_config(protocol=protocol, busy=None if mifare else 15)
    table = Table(config, chip_set=registry)
    try:
        table.run(2.0)
        field = table.sim.field
        for k in range(3):
            base = 10 * k
            field.place_many(3, uids[base:base + 5])
            _counted_within(table, 0.7, seat_3=5)  # a bet of five
            field.remove_many(3, uids[base:base + 2])  # change: two out, one in
            field.place(3, uids[base + 5])
            _counted_within(table, 0.9, seat_3=4)
            field.remove_many(3, uids[base + 2:base + 6])  # swept into the pot
            field.place_many(11, uids[base + 2:base + 6])
            _counted_within(table, 0.7, pot=4 * (k + 1), seat_3=0)
            field.place_many(4, uids[base + 6:base + 9])  # a bet of three, taken back
            _counted_within(table, 0.7, seat_4=3)
            field.remove_many(4, uids[base + 6:base + 9])
            _counted_within(table, 1.9, seat_4=0)  # (a complete scan at most 1 s away)
    finally:
        table.close()


def test_a_pot_of_more_chips_than_a_deck_is_read_whole_by_a_reader_of_chips() -> None:
    """As a PN532's (test_pn532.py): a reader of chips lists up to 250 tags a scan, not the 52
    of a deck, so that a pot of 80 chips is read whole (APSA 5.4.25)."""
    from drivers.registry import ChipSet

    chips = ChipSet(name="t", chips={f"04{k:012X}": 100 for k in range(80)})
    config = chips_config(protocol="mfrc522", busy=None, zones={11: "pot"},
                          selects={11: 11})
    table = Table(config, chip_set=chips, placed={11: list(chips.chips)})
    try:
        table.run(3.0)
        assert [(e.zone, len(e.chips)) for e in table.of("chips")] == [("pot", 80)]  # type: ignore[attr-defined]
    finally:
        table.close()
