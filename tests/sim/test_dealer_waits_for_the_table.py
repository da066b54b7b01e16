"""The simulated dealer's hands pitch the next card only once the table has the last one: each
reader module's driver reports on its own thread, and a card read late by one module must not
reach the table after the next card read by another (a misdeal, or a street "without" its burn
card, on a clean deal)."""

from __future__ import annotations

import threading

from gpiozero.pins.mock import MockFactory

from controller.events import CardEvent, GoneEvent, parse_event
from controller.session import SessionConfig, TableSession
from controller.sim.hands import FeltSeen, HardwareHands
from controller.sim.table_rig import DEMO_PANEL
from controller.table.sinks import MemorySink
from drivers.simulated.field import TagField, ZoneAntennas
from tests.drivers.chip_helpers import DECK, UID_OF
from tests.session.helpers import HOLE, card, deal, declare, flatten, key, shuffle, three_players

LATE = 0.3  # how long the burn antenna's driver takes to report the card it read


def test_the_burn_card_reaches_the_table_before_the_dealer_pitches_the_flop() -> None:
    """PVB 35(2): a table that checks burns says it waits for one until it has it; the dealer
    waits for that, however late the burn antenna's driver reports."""
    session = TableSession(SessionConfig(check_burns=True))
    for raw in flatten(three_players(), shuffle(), deal(HOLE), declare(1, "call"),
                       declare(2, "call"), key("confirm")):
        session.handle(parse_event(raw))
    watch = MemorySink()
    watch.state(session.state())
    assert watch.last.waiting_for == "burn a card, then deal the flop"

    burn_module, board_module = TagField(), TagField()
    antennas = ZoneAntennas({"burn": (burn_module, 0), "board": (board_module, 0)})
    pins = MockFactory()
    try:
        hands = HardwareHands(antennas, antennas.zones, DECK, None, {}, pins, DEMO_PANEL, watch,
                              lambda event: None, threading.Event())
        pitched = threading.Event()

        def burn_driver() -> None:
            """The burn module's chip reads the card at once; its driver reports it late."""
            while not burn_module.tags(0):
                pitched.wait(0.005)
            burn_module.mark_read(0, UID_OF["3c"])
            pitched.wait(LATE)
            session.handle(parse_event(card("burn", "3c")))
            watch.state(session.state())

        driver = threading.Thread(target=burn_driver)
        driver.start()
        hands.card_on("burn", "3c")
        seen = watch.last  # what the dealer's next move (the flop) comes after
        pitched.set()
        driver.join()
        assert seen.waiting_for == "deal the flop"
    finally:
        pins.close()


def test_a_card_goes_back_where_it_lay_only_once_the_table_saw_it_go() -> None:
    """A polled reader chip (a PN5180) hears a card taken away at its next complete scans, up
    to two seconds later; a card laid there again before then is never heard arriving. The
    dealer deals a card to the zone it lay on last hand only once the table saw it leave."""
    board_module = TagField()
    antennas = ZoneAntennas({"board": (board_module, 0)})
    seen = FeltSeen()
    seen.saw(CardEvent(zone="board", card="3c", ts=0.0))  # last hand's, taken in since
    on_the_felt: list[list[str]] = []
    pins = MockFactory()
    try:
        hands = HardwareHands(antennas, antennas.zones, DECK, None, {}, pins, DEMO_PANEL,
                              MemorySink(), lambda event: None, threading.Event(), seen=seen)
        reported = threading.Event()

        def board_driver() -> None:
            """Its complete scans miss the card late, then it reads it dealt again."""
            reported.wait(LATE)
            on_the_felt.append(board_module.tags(0))  # what lay there when the table saw it go
            seen.saw(GoneEvent(zone="board", card="3c", ts=1.0))
            while not board_module.tags(0):
                reported.wait(0.005)
            board_module.mark_read(0, UID_OF["3c"])

        driver = threading.Thread(target=board_driver)
        driver.start()
        hands.card_on("board", "3c")
        reported.set()
        driver.join()
        assert on_the_felt == [[]]
        assert board_module.tags(0) == [UID_OF["3c"]]
    finally:
        pins.close()
