"""The hardware a table is simulated on, for `pokertable table --simulate`, the demo and the
benchmarks: every configured reader replaced by its simulator (reader chips at the chip level
on a simulated bus, PT1 boards on ptys), the demo table's readers, deck and chip case, and its
button panel on mock pins. The drivers run on it exactly as on a Pi."""

from __future__ import annotations

import contextlib
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from controller.sim.dealer import DEMO_CHIP_ZONES, DEMO_ZONES
from controller.table.config import ReaderSection
from drivers.buttons import PanelConfig
from drivers.reader_config import POLLED
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.scan import RealClock
from drivers.simulated.field import Antennas
from drivers.simulated.readers import SimulatedReader
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice
from drivers.spi import DecoderConfig

# The simulated chip case: enough tagged chips of each value for every bet of the demo.
DEMO_CHIPS = {5000: 20, 1000: 100, 500: 60, 100: 200, 25: 160, 5: 60, 1: 60}
DEMO_PANEL = PanelConfig(shuffle=17, confirm=27, undo=22, floor=23, led_hand_for_hand=5,
                         led_clock=6, led_irregularity=13, shuffle_guard=0.3)



def demo_panel(taken: set[int]) -> PanelConfig:
    """The simulated dealer's panel of a table configured without one: `DEMO_PANEL`, each key
    or LED whose pin the configuration's readers take moved to a free one (the simulated
    readers are wired as configured, on the same mock pins)."""
    pins = DEMO_PANEL.pins()
    used = set(taken) | set(pins.values())
    free = (pin for pin in range(2, 28) if pin not in used)
    moved = {name: next(free) for name, pin in pins.items() if pin in taken}
    return PanelConfig.model_validate(DEMO_PANEL.model_dump() | moved) if moved else DEMO_PANEL


def demo_deck(protocol: str = "mfrc522") -> Deck:
    """The simulated deck, with tags the reader chip ``protocol`` reads (drivers.registry's
    TAG_KINDS): ISO 15693 for a PN5180, ISO 14443A (7-byte NTAG UIDs) for the others."""
    if protocol == "pn5180":  # (E0 04 01 18: an ICODE SLIX2 inlay, NXP)
        return Deck(name="demo", cards={f"E0040118{k:08X}": c
                                        for k, c in enumerate(REGISTRATION_ORDER)})
    return Deck(name="demo", cards={f"04{k:012X}": c for k, c in enumerate(REGISTRATION_ORDER)})


def demo_chips(protocol: str = "pn5180") -> ChipSet:
    """The simulated chip case, with tags the reader chip ``protocol`` reads."""
    values = [value for value, count in DEMO_CHIPS.items() for _ in range(count)]
    if protocol in ("mfrc522", "pn532"):  # ISO 14443A chips (7-byte UIDs)
        return ChipSet(name="demo", chips={f"04C0{k:010X}": v for k, v in enumerate(values)})
    # ISO 15693 UIDs (E0: the standard's prefix; 04: NXP; 01 50: an ICODE SLIX inlay), as a
    # PN5180 reads them; the PT1 board reads them too.
    return ChipSet(name="demo", chips={f"E0040150{k:08X}": v for k, v in enumerate(values)})


def simulated_readers(
    readers: list[ReaderSection], tmp: Path, stack: contextlib.ExitStack, factory: MockFactory,
    sim_readers: str,
) -> tuple[list[ReaderSection], dict[str, Antennas], dict[str, SimulatedReader]]:
    """Every configured reader replaced by its simulator: reader chips simulated at the chip
    level on a simulated bus (their driver runs as on a Pi), a PT1 board or an RDM6300 by a PT1
    board on a pty. A table configured without readers gets the demo table's: with
    ``sim_readers`` "chips", MFRC522 card modules and PN5180 chip zones wired as
    deploy/table.example.toml has them; with "pt1", a PT1 board for each (the fast simulation
    the tests of what lies above the drivers use)."""
    if not readers:
        readers = demo_readers() if sim_readers == "chips" else [
            ReaderSection(name="cards", url="sim", protocol="pt1", zones=DEMO_ZONES),
            ReaderSection(name="chips", url="sim", protocol="pt1", reads="chips",
                          zones=DEMO_CHIP_ZONES, settle=0.25)]
    out: list[ReaderSection] = []
    antennas: dict[str, Antennas] = {}
    chip_level: dict[str, SimulatedReader] = {}
    for reader in readers:
        if reader.protocol in POLLED:
            simulated = SimulatedReader(reader, factory, RealClock(), tmp=tmp)
            stack.callback(simulated.close)
            chip_level[reader.name] = simulated
            antennas[reader.name] = simulated.field
            out.append(ReaderSection.model_validate(
                simulated.config.model_dump() | {"deck": reader.deck, "chips": reader.chips}))
            continue
        device = VirtualSerialDevice(tmp / f"usb-sim-{reader.name}")
        stack.callback(device.close)
        simulator = SimulatedPt1Reader(device, antennas=max(reader.zones) + 1, repeat=0.1)
        stack.callback(simulator.close)
        antennas[reader.name] = simulator
        out.append(reader.model_copy(update={"url": str(device.path), "protocol": "pt1"}))
    return out, antennas, chip_level


def demo_readers() -> list[ReaderSection]:
    """The demo table's readers: 13 MFRC522 card antennas on SPI0, 11 PN5180 chip zones on
    SPI1, chip selects through one 74HC154 each (docs/hardware.md)."""
    cards = ReaderSection(name="cards", url="/dev/spidev0.0", protocol="mfrc522",
                          zones=DEMO_ZONES, selects={a: a for a in DEMO_ZONES},
                          decoder=DecoderConfig(address=[4, 7, 8, 12], enable=16))
    chips = ReaderSection(name="chips", url="/dev/spidev1.0", protocol="pn5180", reads="chips",
                          zones=DEMO_CHIP_ZONES, selects={a: a for a in DEMO_CHIP_ZONES},
                          decoder=DecoderConfig(address=[2, 3, 24, 25], enable=26), busy=15,
                          settle=0.25)
    return [cards, chips]


__all__ = ["DEMO_CHIPS", "DEMO_PANEL", "MockFactory", "demo_chips", "demo_deck", "demo_panel",
           "demo_readers", "simulated_readers"]
