"""The simulated dealer's hands pitch the next card only once the table has the last one: each
reader module's driver reports on its own thread, and a card read late by one module must not
reach the table after the next card read by another (a misdeal, or a street "without" its burn
card, on a clean deal)."""

from __future__ import annotations

import threading

from gpiozero.pins.mock import MockFactory

from controller.events import parse_event
from controller.session import SessionConfig, TableSession
from controller.sim.hands import HardwareHands
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
