"""Hand records: what a finished hand records, and its PHH export replaying to the same result."""

from __future__ import annotations

from controller.engine.records import HandRecord
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Level,
    Settle,
    Show,
    SitDown,
    StartHand,
    Table,
)
from controller.history.phh import replay_text
from controller.history.phh_export import record_phh


def play(table: Table, holes: dict[int, str], script: list[object]) -> HandRecord:
    table.apply(StartHand())
    for seat, cards in holes.items():
        table.apply(DealHole(seat=seat, cards=cards))
    record = None
    for op in script:
        record = table.apply(op)  # type: ignore[arg-type]
    assert record is not None
    return record


def test_record_of_a_showdown_and_its_phh_export_round_trip() -> None:
    table = Table(table_id="7", level=Level(level=3, sb=100, bb=200, bb_ante=200))
    for seat, name in [(2, "Ana"), (4, "Ben"), (5, "Cem"), (9, "Dora")]:
        table.apply(SitDown(seat=seat, player=name, stack=20_000))
    record = play(table, {2: "AsKs", 4: "QdQc", 5: "7h2c", 9: "9s9d"}, [
        BetOrRaise(seat=9, to=600), Fold(seat=2), Call(seat=4), Fold(seat=5),
        DealBoard(cards="2d3d4s"), Check(seat=4), BetOrRaise(seat=9, to=800), Call(seat=4),
        DealBoard(cards="Kh"), Check(seat=4), Check(seat=9),
        DealBoard(cards="Jc"), Check(seat=4), Check(seat=9),
        Show(seat=4), Show(seat=9), Settle(),
    ])
    assert (record.table, record.hand, record.level, record.blinds.bb_ante) == ("7", 1, 3, 200)
    assert (record.button, record.sb, record.bb) == (2, 4, 5)
    assert list(record.starting_stacks) == [4, 5, 9, 2]  # action order from left of the button
    assert record.hole_cards[9] == "9s9d" and record.board == "2d3d4sKhJc"
    assert record.status == "complete"
    (pot,) = record.pots
    assert pot.winners == [4] and pot.winning_hand == "one pair"
    assert pot.amount == 200 + 200 + 2 * 1_400  # big-blind ante, folded big blind, two callers
    assert sum(record.finishing_stacks.values()) == sum(record.starting_stacks.values())
    text = record_phh(record)
    assert "d dh p3 9s9d" in text and "p3 cbr 600" in text
    replay = replay_text(text)
    assert replay.finishing_stacks() == list(record.finishing_stacks.values())


def test_heads_up_record_exports_with_reversed_blinds() -> None:
    table = Table(level=Level(sb=50, bb=100, ante=10))
    table.apply(SitDown(seat=3, player="A", stack=5_000))
    table.apply(SitDown(seat=6, player="B", stack=5_000))
    record = play(table, {3: "AhAd", 6: "KcKd"}, [
        BetOrRaise(seat=3, to=5_000 - 10), Call(seat=6),
        DealBoard(cards="2c7d9h"), DealBoard(cards="Js"), DealBoard(cards="3s"), Settle(),
    ])
    assert (record.button, record.sb, record.bb) == (3, 3, 6)
    assert record.finishing_stacks == {6: 0, 3: 10_000}
    text = record_phh(record)
    assert "blinds_or_straddles = [50, 100]" in text  # heads-up lists read reversed (phh-std)
    assert replay_text(text).finishing_stacks() == [0, 10_000]


def test_the_odd_chip_unit_is_written_only_when_it_is_not_a_single_chip() -> None:
    """RULES S2: a record shared in single chips reads as records did before the unit was kept
    (no ``odd_chip_unit``); one shared in a larger chip names it, and reads back the same."""
    table = Table(table_id="3", level=Level(level=1, sb=50, bb=100))
    for seat, name in [(1, "Ana"), (2, "Ben")]:
        table.apply(SitDown(seat=seat, player=name, stack=5_000))
    record = play(table, {1: "AsKs", 2: "QdQc"}, [Fold(seat=1)])
    assert record.odd_chip_unit == 1
    assert "odd_chip_unit" not in record.model_dump_json()
    assert "odd_chip_unit" not in record.model_dump()
    kept = record.model_copy(update={"odd_chip_unit": 25})
    assert '"odd_chip_unit":25' in kept.model_dump_json()
    assert HandRecord.model_validate_json(kept.model_dump_json()) == kept
    assert HandRecord.model_validate_json(record.model_dump_json()) == record
