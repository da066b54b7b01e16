"""The hardware part of `pokertable demo`: a simulated shuffle press on gpiozero mock pins and a
simulated deal on a pty, read by the real drivers. Hole cards are masked as on the floor display."""

from __future__ import annotations

import queue
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from gpiozero.pins.mock import MockFactory

from controller.events import CardEvent, HealthEvent, ShuffleEvent, TableEvent
from drivers.buttons import ButtonPanel, PanelConfig
from drivers.reader_config import ReaderConfig
from drivers.registry import REGISTRATION_ORDER, Deck
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice, press, random_deal
from drivers.tag_reader import TagReader

PANEL = PanelConfig(shuffle=17, confirm=27, undo=22, floor=23)


def run_hardware_demo(players: int, seed: int, out: TextIO) -> None:
    rng = random.Random(seed)
    deck = Deck(name="demo", cards={f"04{k:012X}": c for k, c in enumerate(REGISTRATION_ORDER)})
    seats = list(range(1, players + 1))
    zones = {0: "burn", 11: "board", 12: "muck"} | {s: f"seat:{s}" for s in seats}
    antenna_of = {zone: antenna for antenna, zone in zones.items()}
    events: queue.Queue[TableEvent] = queue.Queue()
    say = out.write
    say("\n-- table hardware, simulated: PT1 card reader on a pty, buttons on mock GPIO --\n")
    with tempfile.TemporaryDirectory() as tmp:
        device = VirtualSerialDevice(Path(tmp) / "usb-pt1-cards")
        simulator = SimulatedPt1Reader(device, repeat=0.05)
        factory = MockFactory()
        config = ReaderConfig(name="cards", url=str(device.path), protocol="pt1", zones=zones)
        try:
            with TagReader(config, events.put, deck=deck), \
                    ButtonPanel(PANEL, events.put, pin_factory=factory):
                _expect(events, HealthEvent, say)
                press(factory.pin(PANEL.shuffle))
                _expect(events, ShuffleEvent, say)
                deal = list(random_deal(deck, seats, rng))
                for zone, uid in deal:
                    simulator.place(antenna_of[zone], uid)
                    time.sleep(0.01)
                for _ in deal:
                    _expect(events, CardEvent, say)
        finally:
            simulator.close()
            device.close()
            factory.reset()


def _expect(
    events: queue.Queue[TableEvent], kind: type, write: Callable[[str], object]
) -> None:
    """Wait for the next event of ``kind`` and tell it; hole cards stay hidden."""
    event = events.get(timeout=5)
    while not isinstance(event, kind):
        event = events.get(timeout=5)
    if isinstance(event, HealthEvent):
        write(f"   reader {event.device}: {event.status}\n")
    elif isinstance(event, ShuffleEvent):
        write("   shuffle button pressed: a new hand (RULES H1)\n")
    elif isinstance(event, CardEvent):
        shown = "(hidden until tabled)" if event.zone.startswith("seat:") else event.card
        write(f"   card on {event.zone}: {shown}\n")
