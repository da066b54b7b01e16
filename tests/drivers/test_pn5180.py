"""The PN5180 driver against the chip simulated at its host interface (frames, BUSY, 32-bit
registers): ISO 15693 inventories read a chip stack whole, collisions and missed answers
included, within the chip zone's settle time (RULES R9)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.events import ChipsEvent, HealthEvent
from drivers.scan import ChipError, run_scans
from tests.drivers.chip_helpers import CHIP_UIDS, Table, chips_config


def test_a_stack_of_20_chips_reads_as_20_tags_despite_collisions_and_missed_answers() -> None:
    table = Table(chips_config(), miss=0.03, seed=5)
    try:
        chip = table.reader._opened.chips[3]  # type: ignore[union-attr]
        table.sim.field.place_many(3, CHIP_UIDS[:20])
        started = table.clock.now()
        reading = run_scans([(3, chip.scan)], table.clock)[3]
        assert not isinstance(reading, ChipError)
        took = table.clock.now() - started
        # A missed answer is read at the next scan; most scans read all twenty.
        assert set(reading.uids) <= set(CHIP_UIDS[:20]) and len(reading.uids) >= 18
        assert took < 0.4, took  # the settle time of a chip zone
        assert sum(s.protocol_errors for s in table.sim.chips.values()) == 0  # type: ignore[attr-defined]
    finally:
        table.close()


def test_rules_r9_the_stack_settles_as_one_bet_of_20_chips_with_every_zone_busy() -> None:
    table = Table(chips_config(settle=0.4), miss=0.02, seed=9)
    try:
        rng = random.Random(3)
        uids = iter(CHIP_UIDS[20:])
        for seat in range(1, 11):
            if seat != 3:
                table.sim.field.place_many(seat, [next(uids) for _ in range(rng.randint(1, 5))])
        table.run(1.0)
        table.events.clear()
        table.sim.field.place_many(3, CHIP_UIDS[:20])
        table.run(2.0)
        bets = [e for e in table.events if isinstance(e, ChipsEvent) and e.zone == "seat:3"]
        assert [len(e.chips) for e in bets] == [20], bets  # one motion, one bet: never a part
        assert bets[0].ts is not None
    finally:
        table.close()


def test_opening_reports_every_chip_zone_once_what_it_holds_and_the_empty_ones() -> None:
    """A table restarted mid-hand may remember bets that the dealer swept while it was down,
    and a zone is otherwise reported only when it changes: on opening, the reader reports each
    chip zone once, after a whole scan of it (nothing, where nothing lies); then only changes."""
    table = Table(chips_config(settle=0.4), placed={3: CHIP_UIDS[:4], 11: CHIP_UIDS[4:6]},
                  miss=0.02, seed=4)
    try:
        table.run(2.0)
        reports = sorted((e.zone, len(e.chips)) for e in table.of("chips"))
        assert reports == sorted([("seat:3", 4), ("pot", 2)] + [
            (f"seat:{s}", 0) for s in range(1, 11) if s != 3]), reports
        table.events.clear()
        table.sim.field.place_many(5, CHIP_UIDS[10:12])
        table.run(2.0)
        assert [(e.zone, len(e.chips)) for e in table.of("chips")] == [("seat:5", 2)]
    finally:
        table.close()


def test_a_chip_zone_whose_module_stops_answering_is_not_read_as_emptied() -> None:
    """A module that stops answering (a loose wire): its zone stands as last read while it is
    offline (no bet taken back, no sweep where nothing moved), and is read again once it
    answers, reported as it is then. (A reader of chips on a serial line: test_tag_reader.py.)"""
    table = Table(chips_config(settle=0.4), placed={5: CHIP_UIDS[:3]})
    try:
        table.run(1.5)
        assert ("seat:5", 3) in [(e.zone, len(e.chips)) for e in table.of("chips")]
        table.events.clear()
        table.sim.chips[5].alive = False  # type: ignore[attr-defined]
        table.run(3.0)
        assert [(e.device, e.status) for e in table.of("health")] == [  # type: ignore[attr-defined]
            ("chips/seat:5", "offline")]
        assert table.of("chips") == []  # not read as emptied
        table.sim.field.remove_many(5, CHIP_UIDS[:1])  # meanwhile a chip goes back to the stack
        table.sim.chips[5].alive = True  # type: ignore[attr-defined]
        table.run(4.0)
        assert [(e.zone, len(e.chips)) for e in table.of("chips")] == [("seat:5", 2)]
    finally:
        table.close()


@settings(max_examples=25)
@given(st.integers(min_value=0, max_value=40), st.integers(min_value=0, max_value=2**32))
def test_inventories_find_every_chip_of_any_stack(height: int, seed: int) -> None:
    table = Table(chips_config())
    try:
        uids = random.Random(seed).sample(CHIP_UIDS, height)
        table.sim.field.place_many(1, uids)
        chip = table.reader._opened.chips[1]  # type: ignore[union-attr]
        reading = run_scans([(1, chip.scan)], table.clock)[1]
        assert not isinstance(reading, ChipError) and sorted(reading.uids) == sorted(uids)
    finally:
        table.close()


def test_a_module_that_stops_answering_is_offline_and_back() -> None:
    table = Table(chips_config())
    try:
        table.sim.chips[11].alive = False  # type: ignore[attr-defined]
        table.run(0.6)
        health = [e for e in table.of("health") if isinstance(e, HealthEvent)]
        assert [(e.device, e.status) for e in health][-1] == ("chips/pot", "offline")
        table.sim.chips[11].alive = True  # type: ignore[attr-defined]
        table.run(1.5)
        assert [(e.device, e.status) for e in table.of("health")][-1] == ("chips/pot", "ok")  # type: ignore[union-attr]
    finally:
        table.close()


@pytest.mark.parametrize("missing", [True, False])
def test_start_names_the_chip_or_says_it_does_not_answer(missing: bool) -> None:
    table = Table(chips_config(), missing=(4,) if missing else ())
    try:
        if missing:
            assert table.reader.chip_status[4] == "offline"
        else:
            assert table.reader.names[4] == "PN5180 product 3.5, firmware 4.1"
    finally:
        table.close()


def _scan(table: Table, antenna: int) -> list[str]:
    chip = table.reader._opened.chips[antenna]  # type: ignore[union-attr]
    reading = run_scans([(antenna, chip.scan)], table.clock)[antenna]
    assert not isinstance(reading, ChipError)
    return reading.uids


def test_between_complete_scans_the_chips_stay_quiet_and_only_newcomers_answer() -> None:
    table = Table(chips_config())
    try:
        table.sim.field.place_many(2, CHIP_UIDS[:5])
        assert _scan(table, 2) == sorted(CHIP_UIDS[:5])  # complete: a 16-slot inventory
        bus = table.sim.bus
        assert bus is not None
        before = bus.transfers
        assert _scan(table, 2) == sorted(CHIP_UIDS[:5])  # quick: five told to stay quiet
        quick = bus.transfers - before
        table.sim.field.place_many(2, CHIP_UIDS[5:7])
        assert _scan(table, 2) == sorted(CHIP_UIDS[:7])  # the two newcomers heard
        # ... and the zone changed: the next scan is complete again, and it misses a chip
        # taken out meanwhile (change made: the chips swapped out must not stay in the bet).
        table.sim.field.remove_many(2, CHIP_UIDS[:1])
        before = bus.transfers
        assert _scan(table, 2) == sorted(CHIP_UIDS[1:7])
        complete = bus.transfers - before
        assert quick * 2 < complete, (quick, complete)
    finally:
        table.close()


def test_a_chip_heard_in_another_zone_is_no_longer_listed_where_it_was() -> None:
    table = Table(chips_config())
    try:
        table.sim.field.place_many(4, CHIP_UIDS[:3])
        assert _scan(table, 4) == sorted(CHIP_UIDS[:3])
        table.sim.field.remove_many(4, CHIP_UIDS[:1])
        table.sim.field.place_many(11, CHIP_UIDS[:1])  # swept into the pot
        assert _scan(table, 11) == CHIP_UIDS[:1]
        assert _scan(table, 4) == sorted(CHIP_UIDS[1:3])  # a quick scan, yet not listed
    finally:
        table.close()


def test_a_chip_taken_back_is_gone_within_two_seconds() -> None:
    table = Table(chips_config(settle=0.4))
    try:
        table.sim.field.place_many(5, CHIP_UIDS[:3])
        table.run(1.0)
        assert table.reader.zones.presence.present(5) == set(CHIP_UIDS[:3])
        table.sim.field.remove_many(5, CHIP_UIDS[:1])  # back to the player's stack
        taken = table.clock.now()
        while table.reader.zones.presence.present(5) != set(CHIP_UIDS[1:3]):
            table.run(0.05)
            assert table.clock.now() - taken < 2.0
    finally:
        table.close()


def test_a_chip_heard_elsewhere_while_its_old_zone_was_being_scanned_is_not_listed_there() -> None:
    """Scans run side by side (four at once): a zone's quick scan lists the chips it told to
    stay quiet without hearing them, so a chip another zone heard meanwhile has moved. It came
    back to the zone it left, and then to where it lay again (a card dealt to seat 3 read back
    on the board it lay on last hand: "fouled deck", at a table whose cards PN5180s read)."""
    table = Table(chips_config())
    try:
        table.sim.field.place_many(4, CHIP_UIDS[:3])
        assert _scan(table, 4) == sorted(CHIP_UIDS[:3])  # complete: the three are known
        table.sim.field.remove_many(4, CHIP_UIDS[:1])
        table.sim.field.place_many(11, CHIP_UIDS[:1])
        chips = table.reader._opened.chips  # type: ignore[union-attr]
        readings = run_scans([(4, chips[4].scan), (11, chips[11].scan)], table.clock,
                             parallel=2)
        assert not isinstance(readings[11], ChipError)
        assert not isinstance(readings[4], ChipError)
        assert readings[11].uids == CHIP_UIDS[:1]
        assert readings[4].uids == sorted(CHIP_UIDS[1:3])
    finally:
        table.close()
