"""config.json on the Pico: the shipped examples, the mistakes a technician makes (each one
sentence naming the key), and the USB identity the table's udev rule and configuration expect."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from controller.install.table import UDEV_RULES
from firmware.pico.pt1reader.config import MANUFACTURER, PRODUCT, ConfigError, parse
from tests.firmware.shim import cards_config, chips_config

PICO = Path(__file__).resolve().parents[2] / "firmware" / "pico"
EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "table.example.toml"


def test_the_shipped_configurations_are_a_card_board_and_a_chip_board() -> None:
    cards = parse(json.loads((PICO / "config.json").read_text()))
    assert cards.serial == "cards"
    assert [(a.number, a.chip, a.cs) for a in cards.antennas] == [
        (n, "mfrc522", n) for n in range(13)]
    chips = parse(json.loads((PICO / "config-chips.json").read_text()))
    assert chips.serial == "chips"
    assert {(a.chip, a.busy) for a in chips.antennas} == {("pn5180", 15)}
    assert [a.number for a in chips.antennas] == list(range(1, 12))
    for config in (cards, chips):
        assert (config.spi.id, config.spi.sck, config.spi.mosi, config.spi.miso) == (0, 18, 19, 16)
        assert config.maintenance_pin == 22


def _antenna(config: dict[str, Any], k: int, **changes: Any) -> dict[str, Any]:
    antennas = [dict(a) for a in config["antennas"]]
    antennas[k].update(changes)
    return config | {"antennas": antennas}


@pytest.mark.parametrize(("config", "says"), [
    (cards_config(serial="Cards Reader"), "'serial'"),
    (cards_config(serial=""), "'serial'"),
    (cards_config(antennas=[]), "'antennas' must list 1 to 32"),
    (cards_config(colour="red"), "unknown key 'colour'"),
    (_antenna(cards_config(), 2, cs=1), "GP1 cannot be both the chip select of antenna 1 and "
     "the chip select of antenna 2"),
    (_antenna(cards_config(), 2, cs=18), "GP18 cannot be both SPI0 SCK"),
    (_antenna(cards_config(), 2, cs=25), "'cs' is GP25, which the Pico does not bring out"),
    (_antenna(cards_config(), 2, antenna=1), "antenna 1 is listed twice"),
    (_antenna(cards_config(), 2, antenna=32), "'antenna' must be a whole number from 0 to 31"),
    (_antenna(cards_config(), 2, chip="pn532"), "'chip' must be 'mfrc522' or 'pn5180'"),
    (_antenna(cards_config(), 2, busy=15), "an MFRC522 has no BUSY line"),
    (_antenna(cards_config(), 2, cs="2"), "'cs' must be a whole number"),
    (_antenna(chips_config(), 0, busy=None), "'busy' must be a whole number"),
    (chips_config(antennas=[{"antenna": 1, "chip": "pn5180", "cs": 1}]), "a PN5180 needs 'busy'"),
    (_antenna(chips_config(), 0, busy=22), "GP22 cannot be both the maintenance pin"),
    (cards_config(spi={"id": 0, "sck": 10}), "SPI0's SCK can be on GP2, GP6, GP18, GP22, not GP10"),
    (cards_config(spi={"id": 1}), "'sck' must be a whole number"),
    (chips_config(spi={"id": 0, "baudrate": 8_000_000}), "more than the PN5180 takes"),
    (cards_config(maintenance_pin=0), "GP0 cannot be both the maintenance pin"),
    ([], "config.json must be a JSON object"),
])
def test_a_mistake_is_one_sentence_naming_it(config: Any, says: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(says)):
        parse(config)


def test_busy_lines_may_share_a_pin_and_spi1_works() -> None:
    config = parse({"serial": "chips", "spi": {"id": 1, "sck": 10, "mosi": 11, "miso": 12},
                    "antennas": [{"antenna": 1, "chip": "pn5180", "cs": 2, "busy": 3},
                                 {"antenna": 2, "chip": "pn5180", "cs": 4, "busy": 3},
                                 {"antenna": 0, "chip": "mfrc522", "cs": 5}]})
    assert [(a.number, a.busy) for a in config.antennas] == [(1, 3), (2, 3), (0, -1)]
    assert config.spi.baudrate == 4_000_000


def test_the_usb_identity_is_what_the_udev_rule_and_the_table_config_expect() -> None:
    """The installer's rule matches the manufacturer and links the tty as
    /dev/pokertable/<serial>; the example configuration names udev's by-id link,
    usb-<manufacturer>_<product>_<serial>-if00 (interface 0: the board's only one)."""
    rule = next(line for line in UDEV_RULES.splitlines() if "ATTRS{manufacturer}" in line)
    manufacturer = re.search(r'ATTRS\{manufacturer\}=="([^"]+)"', rule)
    assert manufacturer is not None and manufacturer[1] == MANUFACTURER
    assert 'SYMLINK+="pokertable/$attr{serial}"' in UDEV_RULES
    serials = {parse(json.loads((PICO / board).read_text())).serial
               for board in ("config.json", "config-chips.json")}
    assert serials == {"cards", "chips"}  # the readers' names in a table's configuration
    names = re.findall(r"/dev/serial/by-id/(usb-pokertable_[^\"\s]*)", EXAMPLE.read_text())
    assert names, "deploy/table.example.toml names a PT1 board by its by-id link"
    for name in names:
        assert re.fullmatch(f"usb-{MANUFACTURER}_{PRODUCT}_({'|'.join(serials)})-if00", name)
