"""`pokertable readers check` against simulated wiring mistakes: each is one line naming the
antenna, the chip select and what to do."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.bring_up import check_readers
from drivers.chip_reader import open_chips
from drivers.reader_config import ReaderConfig
from drivers.scan import VirtualClock
from drivers.simulated.readers import SimulatedReader
from drivers.spi import LinuxSpi, SpiError
from tests.drivers.chip_helpers import CHIP_UIDS, UID_OF, cards_config, chips_config

SMALL = {1: "seat:1", 2: "seat:2", 3: "seat:3", 4: "seat:4"}


def check(config: ReaderConfig, **wiring: object) -> tuple[list[str], str]:
    clock, factory = VirtualClock(), MockFactory()
    sim = SimulatedReader(config, factory, clock, **wiring)  # type: ignore[arg-type]
    tags = iter(list(UID_OF.values()) if config.reads == "cards" else CHIP_UIDS)

    def technician(reader: ReaderConfig, antenna: int) -> None:
        sim.field.place(antenna, next(tags))  # on the antenna that really is under that zone

    out = io.StringIO()
    try:
        report = check_readers([config], lambda r: sim.connect(), clock, out, wait=2.0,
                               measure=0.3, prompted=technician)
    finally:
        factory.reset()
    return report.problems, out.getvalue()


def test_a_table_wired_as_configured_is_all_in_order_with_its_reads_per_second() -> None:
    problems, said = check(cards_config(zones=SMALL, selects={a: a for a in SMALL}))
    assert problems == [], said
    assert "ok cards seat:3 (decoder line 3): MFRC522 v2.0" in said
    assert "lay any card on seat:3" in said
    assert "ok cards seat:3 (decoder line 3): in place, " in said
    assert said.endswith("readers check: 4 of 4 modules answer, 4 antennas in place: "
                         "all in order\n")


def test_two_antennas_swapped_are_named_with_the_fix() -> None:
    config = cards_config(zones=SMALL, selects={a: a for a in SMALL})
    problems, _ = check(config, wiring={3: 4, 4: 3})  # seat 3's module on seat 4's select
    assert problems == [
        "seat:3: what was laid there was read by the module configured for seat:4 (decoder "
        "line 4): the two are swapped; swap their chip-select wires, or their zones in the "
        "configuration",
        "seat:4: what was laid there was read by the module configured for seat:3 (decoder "
        "line 3): the two are swapped; swap their chip-select wires, or their zones in the "
        "configuration"]


def test_a_chip_select_on_the_wrong_pin_is_a_module_that_does_not_answer() -> None:
    config = cards_config(zones=SMALL, selects={a: 20 + a for a in SMALL}, decoder=None)
    problems, said = check(config, wiring={2: 26})  # seat 2's select wired to GPIO 26
    assert problems == [
        "cards seat:2 (chip select GPIO 22): does not answer (it reads 0x00): check its "
        "chip-select wire, 3.3 V, ground and the SPI wires (MISO, MOSI, SCK)"]
    assert "3 of 4 modules answer, 3 antennas in place: 1 to fix" in said


def test_a_chip_zone_whose_module_is_not_fitted() -> None:
    config = chips_config(zones={1: "seat:1", 11: "pot"}, selects={1: 1, 11: 11})
    problems, said = check(config, missing=(11,))
    assert len(problems) == 1 and problems[0].startswith(
        "chips pot (decoder line 11): does not answer (its EEPROM reads 0x00)"), said
    assert "ok chips seat:1 (decoder line 1): in place" in said


def test_a_missing_spi_device_says_how_to_enable_it(tmp_path: Path) -> None:
    with pytest.raises(SpiError, match=r"spidev0\.0 does not exist: its SPI bus is not enabled "
                       r"on this Pi\. Add 'dtparam=spi=on' and 'dtoverlay=spi0-0cs'"):
        LinuxSpi(str(tmp_path / "spidev0.0"), 4_000_000)
    with pytest.raises(SpiError, match="is not an SPI device"):
        LinuxSpi("/dev/null", 4_000_000)
    config = cards_config(url=str(tmp_path / "spidev0.0"))
    out = io.StringIO()
    report = check_readers([config], lambda r: open_chips(r, VirtualClock(),
                                                          pin_factory=MockFactory()),
                           VirtualClock(), out)
    assert len(report.problems) == 1 and "cards: " in report.problems[0]


def test_the_cli_rehearses_a_check_on_simulated_readers(tmp_path: Path) -> None:
    """With a PN5180 reading cards beside the MFRC522s: its simulated technician lays ISO
    15693 cards, the only ones its inventory reads (ISO 14443A ones were never read). And a
    PN532 board on USB, as docs/hardware.md wires one (its rehearsal ended in a traceback: the
    simulated module had no place for its serial line)."""
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nid = "1"\n[[readers]]\nname = "board"\nurl = "/dev/spidev0.0"\n'
        'protocol = "mfrc522"\nzones = { 11 = "board", 12 = "muck" }\n'
        'selects = { 11 = 5, 12 = 6 }\n'
        '[[readers]]\nname = "seats"\nurl = "/dev/spidev1.0"\nprotocol = "pn5180"\n'
        'reads = "cards"\nzones = { 1 = "seat:1", 2 = "seat:2" }\n'
        'selects = { 1 = 12, 2 = 13 }\nbusy = 25\n'
        '[[readers]]\nname = "burns"\nurl = "/dev/serial/by-id/usb-pn532"\n'
        'protocol = "pn532"\nzones = { 0 = "burn" }\n')
    done = subprocess.run([sys.executable, "-m", "controller.cli", "readers", "check",
                           "--config", str(config), "--simulate", "--wait", "5"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok board muck (chip select GPIO 6): in place" in done.stdout
    assert "ok seats seat:2 (chip select GPIO 13): in place" in done.stdout
    assert "ok burns burn" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr
    no_spi = subprocess.run([sys.executable, "-m", "controller.cli", "readers", "check",
                             "--config", str(config), "--no-walk"],
                            capture_output=True, text=True, timeout=60)
    assert no_spi.returncode == 1
    assert "PROBLEM board: /dev/spidev0.0 does not exist" in no_spi.stdout
