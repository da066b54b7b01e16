"""Simulators speak the real protocols: a whole simulated deal read by the real driver."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from controller.events import CardEvent, GoneEvent, HealthEvent
from drivers.reader_config import ReaderConfig
from drivers.registry import REGISTRATION_ORDER, Deck
from drivers.simulators import (
    SimulatedPt1Reader,
    SimulatedRdm6300,
    VirtualSerialDevice,
    random_deal,
    scripted_deal,
)
from drivers.tag_reader import TagReader
from tests.drivers.helpers import Events
from tests.waiting import wait_for

DECK = Deck(name="sim", cards={f"04{k:012X}": c for k, c in enumerate(REGISTRATION_ORDER)})
ZONES = {0: "burn", 1: "seat:1", 2: "seat:2", 3: "seat:3", 4: "seat:4", 11: "board", 12: "muck"}


def test_a_random_deal_through_a_simulated_pt1_reader(tmp_path: Path) -> None:
    device = VirtualSerialDevice(tmp_path / "usb-pt1")
    simulator = SimulatedPt1Reader(device, repeat=0.05)
    events = emit = Events()
    config = ReaderConfig(name="cards", url=str(device.path), protocol="pt1", zones=ZONES,
                          presence_timeout=0.5)
    antenna_of = {zone: antenna for antenna, zone in ZONES.items()}
    deal = list(random_deal(DECK, [1, 2, 3, 4], random.Random(3)))
    try:
        with TagReader(config, emit, deck=DECK) as reader:
            wait_for(lambda: reader.status == "ok")
            simulator.noise(b"\x00\xffline noise\r\n")
            for zone, uid in deal:
                simulator.place(antenna_of[zone], uid)
            wait_for(lambda: sum(isinstance(e, CardEvent) for e in events) == len(deal))
            simulator.clear()
            wait_for(lambda: sum(isinstance(e, GoneEvent) for e in events) == len(deal))
            assert reader.status == "ok" and reader._decoder.bad >= 1
    finally:
        simulator.close()
        device.close()
    cards = [(e.zone, e.card) for e in events if isinstance(e, CardEvent)]
    assert cards == [(zone, DECK.cards[uid]) for zone, uid in deal]  # in dealing order
    assert len({card for _, card in cards}) == 16  # 8 hole cards, 3 burns, 5 board cards


def test_scripted_deal_maps_cards_to_their_tags() -> None:
    steps = scripted_deal(DECK, [("seat:1", "As"), ("seat:2", "Kd"), ("board", "2c")])
    assert steps == [("seat:1", "04000000000033"), ("seat:2", "04000000000018"),
                     ("board", "04000000000000")]


def test_simulated_rdm6300_module(tmp_path: Path) -> None:
    device = VirtualSerialDevice(tmp_path / "usb-rdm")
    module = SimulatedRdm6300(device, repeat=0.05)
    events = emit = Events()
    config = ReaderConfig(name="badge", url=str(device.path), protocol="rdm6300",
                          zones={0: "seat:7"}, presence_timeout=0.3)
    deck = Deck(name="x", cards={f"{k:010X}": c for k, c in enumerate(REGISTRATION_ORDER)})
    try:
        with TagReader(config, emit, deck=deck) as reader:
            wait_for(lambda: reader.status == "ok")
            module.place(f"{12:010X}")
            threading.Event().wait(0.4)  # repeated frames all the while
            module.lift()
            wait_for(lambda: any(isinstance(e, GoneEvent) for e in events))
    finally:
        module.close()
        device.close()
    assert [(e.zone, e.card) for e in events if isinstance(e, CardEvent)] == [("seat:7", "Ac")]
    assert [e.status for e in events if isinstance(e, HealthEvent)] == ["ok"]
