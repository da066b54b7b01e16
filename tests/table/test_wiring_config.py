"""The wiring a technician writes into table.toml, checked before the table opens a pin: a GPIO
pin given two jobs, a zone that does not exist, a zone on two antennas, two readers of one name.
Each is one `ConfigError` naming the file and the fields (what `pokertable table --check` says),
where the table used to stop at start-up with gpiozero's or the dealer's traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.table.config import load_table_config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "deploy" / "table.example.toml").read_text()

# A PN532 reading the board on its own (docs/hardware.md, "Other readers").
PN532_BOARD = ('\n[[readers]]\nname = "board"\nurl = "/dev/ttyUSB0"\nprotocol = "pn532"\n'
               'zones = { 0 = "board" }\n')


def _load(tmp_path: Path, text: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text)
    load_table_config(path)


def _edited(line: str, new: str) -> str:
    """The example with one `key = value` line of it changed (its comment dropped)."""
    edited, count = re.subn(rf"(?m)^{re.escape(line)}\b.*$", new, EXAMPLE)
    assert count == 1, line
    return edited


def test_the_example_wiring_gives_every_pin_one_job(tmp_path: Path) -> None:
    _load(tmp_path, EXAMPLE)  # (cards and chips both have seat:1 to seat:10: not one zone)


@pytest.mark.parametrize(("line", "new", "says"), [
    # hardware.md "Every GPIO": 16 is the card decoder's enable, 4 its A0, 10 SPI0's MOSI, 18
    # SPI1's kernel chip select
    ("shuffle", "shuffle = 16",
     "buttons.shuffle: GPIO16 is also readers.cards.decoder.enable"),
    ("busy", "busy = 4", "readers.chips.busy: GPIO4 is also readers.cards.decoder.address"),
    ("confirm", "confirm = 10", "buttons.confirm: GPIO10 is also the SPI0 bus"),
    ("led_clock", "led_clock = 18", "buttons.led_clock: GPIO18 is also the SPI1 bus"),
    ("confirm", "confirm = 17", "buttons: confirm and shuffle are both GPIO17"),
    ("led_irregularity", "led_irregularity = 23",
     "buttons: led_irregularity and floor are both GPIO23"),
])
def test_a_pin_with_two_jobs_is_named_with_both(tmp_path: Path, line: str, new: str,
                                                 says: str) -> None:
    with pytest.raises(ConfigError) as refused:
        _load(tmp_path, _edited(line, new))
    assert str(refused.value).startswith(f"{tmp_path / 'table.toml'}: ")
    assert says in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("zones", "says"), [
    ('{ 0 = "pott" }', "antenna 0 is 'pott', which is no zone a cards reader has (seat:1 to "
     "seat:10, board, muck, burn)"),
    ('{ 0 = "seat:11" }', "antenna 0 is 'seat:11'"),
    ('{ 0 = "pot" }', "antenna 0 is 'pot', which is no zone a cards reader has"),
])
def test_a_zone_that_does_not_exist_is_refused(tmp_path: Path, zones: str, says: str) -> None:
    with pytest.raises(ConfigError, match=r"readers\.board: zones: ") as refused:
        _load(tmp_path, PN532_BOARD.replace('{ 0 = "board" }', zones))
    assert says in str(refused.value)


def test_a_chip_reader_has_no_board(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"antenna 11 is 'board', which is no zone a chips "
                                          r"reader has \(seat:1 to seat:10, pot\)"):
        _load(tmp_path, EXAMPLE.replace('11 = "pot"', '11 = "board"'))


def test_one_zone_on_two_antennas_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError,
                       match=r"readers\.cards: zones: antennas 11 and 12 are both 'board'"):
        _load(tmp_path, EXAMPLE.replace('12 = "muck"', '12 = "board"'))


def test_a_zone_read_by_two_readers_is_refused(tmp_path: Path) -> None:
    # hardware.md: a PN532 board reader means the board left out of the MFRC522 reader
    with pytest.raises(ConfigError, match=r"readers\.board\.zones: 'board' is read by reader "
                                          "'cards' too: leave it out of one of them"):
        _load(tmp_path, EXAMPLE + PN532_BOARD)
    _load(tmp_path, EXAMPLE.replace(', 11 = "board"', '').replace('11 = 11, ', '')
          + PN532_BOARD)


def test_cards_on_pn5180s_take_the_busy_pin_the_docs_name(tmp_path: Path) -> None:
    """docs/hardware.md, "Cards on PN5180s": the card bus's BUSY on GPIO14, the one free pin;
    on the chip bus's GPIO15 it is refused, naming both."""
    cards = EXAMPLE.replace('protocol = "mfrc522"', 'protocol = "pn5180"')
    cards = cards.replace('reads = "cards"\n', 'reads = "cards"\nbusy = 14\n', 1)
    _load(tmp_path, cards)
    with pytest.raises(ConfigError,
                       match=r"readers\.chips\.busy: GPIO15 is also readers\.cards\.busy"):
        _load(tmp_path, cards.replace("busy = 14", "busy = 15", 1))


@pytest.mark.parametrize(("reads", "zone"), [("cards", "burn"), ("chips", "pot")])
def test_an_rdm6300_is_refused_as_a_tables_reader(tmp_path: Path, reads: str,
                                                  zone: str) -> None:
    """docs/hardware.md: an RDM6300 reads one tag at a time, never cards or chips. As a table's
    reader it passed the check, and the table then waited for cards it could not see (the
    seat's two cards, the board's five read as nothing); even a zone that seldom holds two
    tags at once (the burn cards, the pot) does hold them."""
    rdm6300 = (f'\n[[readers]]\nname = "single"\nurl = "/dev/ttyUSB1"\nprotocol = "rdm6300"\n'
               f'reads = "{reads}"\nzones = {{ 0 = "{zone}" }}\n')
    with pytest.raises(ConfigError) as refused:
        _load(tmp_path, PN532_BOARD + rdm6300)
    assert str(refused.value) == (
        f"{tmp_path / 'table.toml'}: readers.single.protocol: an RDM6300 reads one tag at a "
        f"time, and two cards or chips on its antenna read as nothing, so it cannot read "
        f"'{zone}': use an MFRC522, PN5180 or PN532 (docs/hardware.md, \"Which tag for what\")")
    _load(tmp_path, PN532_BOARD + rdm6300.replace('"rdm6300"', '"pn532"'))  # (the same, read)


def test_two_readers_of_one_name_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="readers: two readers are named 'cards'"):
        _load(tmp_path, EXAMPLE.replace(', 11 = "board"', '').replace('11 = 11, ', '')
              + PN532_BOARD.replace('name = "board"', 'name = "cards"'))


def test_the_simulated_dealers_panel_keeps_off_the_configured_readers_pins() -> None:
    """`table --simulate` without [buttons] gives its dealer the demo panel: its LEDs on GPIO 5,
    6 and 13 stopped a table whose chip selects are there (gpiozero: pin in use)."""
    from controller.sim.table_rig import DEMO_PANEL, demo_panel

    assert demo_panel(set()) is DEMO_PANEL
    panel = demo_panel({5, 6, 13, 2, 3})
    pins = panel.pins()
    assert not set(pins.values()) & {5, 6, 13, 2, 3}
    assert {k: v for k, v in pins.items() if v == DEMO_PANEL.pins()[k]} == {
        k: v for k, v in DEMO_PANEL.pins().items() if v not in {5, 6, 13}}
    assert sorted(v for k, v in pins.items() if k.startswith("led_")) == [4, 7, 8]


def test_pydantics_complaints_name_the_reader_as_the_wiring_checks_do(tmp_path: Path) -> None:
    """A wrong key of the second [[readers]] block was `readers.1.speed` (pydantic counts from
    0, the file does not count at all); the wiring checks say `readers.<name>`. Both now do."""
    text = PN532_BOARD.replace('protocol = "pn532"', 'protocol = "pn532"\nsped = 115200')
    with pytest.raises(ConfigError, match=r"table\.toml: readers\.board\.sped: unknown key"):
        _load(tmp_path, EXAMPLE + text)
    nameless = PN532_BOARD.replace('name = "board"\n', "")  # (then counted, as pydantic does)
    with pytest.raises(ConfigError, match=r"readers\.2\.name: missing"):
        _load(tmp_path, EXAMPLE + nameless)
