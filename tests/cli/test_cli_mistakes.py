"""A person's mistakes at the command line: one or two lines on stderr naming the file,
the field and what is wrong, exit status 2, no traceback, and nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

GOOD = '[table]\nid = "1"\n'
# The first 100 bytes of an SQLite file whose application id says "clock store" (sqlite_store.py).
CLOCK_STORE = b"SQLite format 3\x00" + bytes(52) + (0x50540004).to_bytes(4, "big") + bytes(28)

CASES: dict[str, tuple[str | bytes | None, list[str], list[str]]] = {
    # name: (table.toml content, or None for no file; the command after `pokertable`; what
    #        stderr must say)
    "missing file": (None, ["table", "--config", "{dir}/table.toml", "--simulate"],
                     ["table.toml", "cannot read"]),
    "a directory": (None, ["table", "--config", "{dir}", "--simulate"], ["is a directory"]),
    "binary file": (b"\x00\x01\x02\xff" * 20, ["table", "--config", "{dir}/table.toml"],
                    ["table.toml", "not a text file"]),
    "TOML syntax": ('[table\nid = "1"\n', ["table", "--config", "{dir}/table.toml"],
                    ["table.toml", "not valid TOML"]),
    "misspelt key": ('[table]\nseets = 6\n', ["table", "--config", "{dir}/table.toml"],
                     ["table.toml", "table.seets", "unknown key"]),
    "wrong type": ('[table]\nseats = "ten"\n', ["table", "--config", "{dir}/table.toml"],
                   ["table.toml", "table.seats", "integer"]),
    "unknown profile": ('[table]\nprofile = "pvb-2021"\n',
                        ["table", "--config", "{dir}/table.toml", "--simulate"],
                        ["table.toml", "table.profile", "pvb-2021", "pvb-2020"]),
    "small blind above big": ('[table.level]\nsb = 200\nbb = 100\n',
                              ["table", "--config", "{dir}/table.toml", "--simulate"],
                              ["table.toml", "small blind (200) is more than the big blind"]),
    "no GPIO without --simulate": ('[buttons]\nshuffle = 17\nconfirm = 27\nundo = 22\n'
                                   'floor = 23\n',
                                   ["table", "--config", "{dir}/table.toml"],
                                   ["table.toml", "[buttons]", "no GPIO", "--simulate"]),
    "two keys on one pin": ('[buttons]\npin_factory = "mock"\nshuffle = 17\nconfirm = 17\n'
                            'undo = 22\nfloor = 23\n',
                            ["table", "--config", "{dir}/table.toml", "--simulate"],
                            ["table.toml", "buttons: confirm and shuffle are both GPIO17"]),
    # (the tests' machines have no lgpio: pyproject leaves it to `pokertable install` on a Pi)
    "readers check without lgpio": ('[buttons]\npin_factory = "lgpio"\nshuffle = 17\n'
                                    'confirm = 27\nundo = 22\nfloor = 23\n[[readers]]\n'
                                    'name = "cards"\nurl = "/dev/spidev0.0"\n'
                                    'protocol = "mfrc522"\nzones = { 12 = "muck" }\n'
                                    'selects = { 12 = 5 }\n',
                                    ["readers", "check", "--config", "{dir}/table.toml",
                                     "--no-walk"],
                                    ["[buttons]", "pin factory 'lgpio'", "--simulate"]),
    "a reader misnamed": ('[[readers]]\nname = "cards"\nurl = "/dev/spidev0.0"\n'
                          'protocol = "mfrc522"\nzones = { 12 = "muck" }\nselects = { 12 = 5 }\n',
                          ["deck", "register", "--config", "{dir}/table.toml", "--reader", "card",
                           "--antenna", "12", "--name", "house", "--out", "{dir}/house.json"],
                          ["table.toml", "no reader chips named 'card'",
                           "(reader chips here: cards)"]),
    # (it said "no reader chips that read cards", with no word of the serial reader's way)
    "a deck registered on a PT1 table": (
        '[[readers]]\nname = "board"\nurl = "/dev/serial/by-id/usb-pt1"\nprotocol = "pt1"\n'
        'zones = { 12 = "muck" }\n',
        ["deck", "register", "--config", "{dir}/table.toml", "--antenna", "12", "--name",
         "house", "--out", "{dir}/house.json"],
        ["table.toml", "serial reader 'board'", "--url /dev/serial/by-id/usb-pt1 --protocol pt1",
         "service stopped"]),
    # What --check said OK to, a technician found (each a table that could never play):
    "burns checked, no burn antenna": (
        '[table]\ncheck_burns = true\n[[readers]]\nname = "cards"\nurl = "/dev/spidev0.0"\n'
        'protocol = "mfrc522"\nzones = { 11 = "board", 12 = "muck" }\n'
        'selects = { 11 = 5, 12 = 6 }\n', ["table", "--config", "{dir}/table.toml", "--check"],
        ["table.toml", "table.check_burns: no reader reads a 'burn' zone", "PVB 35(2)"]),
    "two readers on one bus": (
        '[[readers]]\nname = "cards"\nurl = "/dev/spidev1.0"\nprotocol = "mfrc522"\n'
        'zones = { 12 = "muck" }\nselects = { 12 = 5 }\n[[readers]]\nname = "chips"\n'
        'url = "/dev/spidev1.0"\nprotocol = "mfrc522"\nreads = "chips"\n'
        'zones = { 1 = "seat:1" }\nselects = { 1 = 6 }\n',
        ["table", "--config", "{dir}/table.toml", "--check"],
        ["table.toml", "readers.chips.url: /dev/spidev1.0 is reader 'cards''s too"]),
    "a seat beyond the table's": (
        '[table]\nseats = 4\n[[readers]]\nname = "cards"\nurl = "/dev/spidev0.0"\n'
        'protocol = "mfrc522"\nzones = { 5 = "seat:5", 12 = "muck" }\n'
        'selects = { 5 = 5, 12 = 6 }\n', ["table", "--config", "{dir}/table.toml", "--check"],
        ["table.toml", "readers.cards.zones: 'seat:5' at a table of 4 seats"]),
    "an SPI chip on a serial port": (
        '[[readers]]\nname = "cards"\nurl = "/dev/ttyUSB0"\nprotocol = "mfrc522"\n'
        'zones = { 12 = "muck" }\nselects = { 12 = 5 }\n',
        ["table", "--config", "{dir}/table.toml", "--check"],
        ["table.toml", "readers.cards.url: '/dev/ttyUSB0' is no SPI bus"]),
    "a BUSY line on an MFRC522": (
        '[[readers]]\nname = "cards"\nurl = "/dev/spidev0.0"\nprotocol = "mfrc522"\n'
        'zones = { 12 = "muck" }\nselects = { 12 = 5 }\nbusy = 14\n',
        ["table", "--config", "{dir}/table.toml", "--check"],
        ["table.toml", "busy: an MFRC522 has no BUSY line"]),
    "a negative hand count": (GOOD, ["table", "--config", "{dir}/table.toml", "--simulate",
                                     "--hands", "-1"], ["--hands", "at least 0"]),
    "hands without --simulate": (GOOD, ["table", "--config", "{dir}/table.toml", "--hands", "5"],
                                 ["--hands: only with --simulate", "until it is stopped"]),
    "a tournament's table without --simulate": (
        GOOD, ["table", "--config", "{dir}/table.toml", "--tournament"],
        ["--tournament: only with --simulate"]),
    "a table seated by both floors": (
        GOOD, ["table", "--config", "{dir}/table.toml", "--simulate", "--tournament", "--cash"],
        ["--cash", "not allowed with", "--tournament"]),
    # the deck is read before the journal and the output are made (the walkthrough found both)
    "a deck never registered": (GOOD + '[[readers]]\nname = "board"\nurl = "/dev/ttyUSB0"\n'
                                'protocol = "pn532"\nreads = "cards"\n'
                                'deck = "decks/house.json"\nzones = { 0 = "board" }\n',
                                ["table", "--config", "{dir}/table.toml"],
                                ["decks/house.json", "deck register"]),
    "no MQTT credentials": (GOOD + '[mqtt]\nvenue = "hall"\ncredentials = "credentials.json"\n',
                            ["table", "--config", "{dir}/table.toml", "--simulate"],
                            ["credentials.json", "cannot read", "pokertable broker init"]),
    "no venue CA": (GOOD + '[mqtt]\nvenue = "hall"\ncredentials = "credentials.json"\n'
                    'tls = true\nca = "ca.crt"\n',
                    ["table", "--config", "{dir}/table.toml", "--simulate"],
                    ["ca.crt", "No such file", "copy the venue's ca.crt"]),
    # (pydantic's own words were "String should match pattern '^[a-z0-9][a-z0-9-]{0,39}$'")
    "a venue in capitals": (GOOD + '[mqtt]\nvenue = "Hall"\ncredentials = "credentials.json"\n',
                            ["table", "--config", "{dir}/table.toml", "--check"],
                            ["table.toml", "mqtt.venue", "'Hall' is no venue's name",
                             "lower-case letters, digits and dashes"]),
    "no tables": (None, ["room", "--tables", "0"], ["--tables", "from 1 to 8"]),
    "a room of both games": (None, ["room", "--tournament", "--cash"],
                             ["--cash", "not allowed with", "--tournament"]),
    "eleven players": (None, ["demo", "--players", "11"], ["--players", "from 2 to 10"]),
    "events file missing": (None, ["replay-events", "{dir}/events.jsonl"],
                            ["events.jsonl", "cannot read"]),
    "events file binary": (b"\x00\xff" * 50, ["replay-events", "{dir}/table.toml"],
                           ["table.toml", "not a text file"]),
    "events file a directory": (None, ["replay-events", "{dir}"], ["is a directory"]),
    "hands from a missing store": (None, ["hands", "list", "{dir}/records.db"],
                                   ["records.db", "cannot read"]),
    "hands from a clock store": (CLOCK_STORE, ["hands", "list", "{dir}/table.toml"],
                                 ["table.toml is a clock store, not a record store"]),
    "hands from a text file": ('{"hello": 1}\n', ["hands", "export", "{dir}/table.toml"],
                               ["table.toml", "neither a hand record nor a table event"]),
    "hands to a file from a clock store": (CLOCK_STORE, ["hands", "export", "{dir}/table.toml",
                                                         "--out", "{dir}/hands.txt"],
                                           ["is a clock store"]),
    "hands since a bad time": (None, ["hands", "list", "-", "--since", "soon"],
                               ["--since 'soon' is not a time"]),
    "hands full and hero": (None, ["hands", "export", "-", "--full", "--hero", "ana"],
                            ["--full", "--hero", "not both"]),
    "journal export of a text file": ("[table]\n", ["journal", "export", "{dir}/table.toml"],
                                      ["table.toml", "not a table journal"]),
    "blinds out of order": (None, ["replay-events", "-", "--sb", "200", "--bb", "100"],
                            ["--sb 200 is more than --bb 100"]),
    "unknown replay profile": (None, ["replay-events", "-", "--profile", "tda-2024"],
                               ["tda-2024", "pvb-2020"]),
}


def _files(directory: Path) -> set[Path]:
    return {p for p in directory.rglob("*")}


@pytest.mark.parametrize("name", list(CASES))
def test_a_mistake_is_one_clear_line_exit_2_and_nothing_written(tmp_path: Path,
                                                                name: str) -> None:
    content, command, says = CASES[name]
    if isinstance(content, bytes):
        (tmp_path / "table.toml").write_bytes(content)
    elif content is not None:
        (tmp_path / "table.toml").write_text(content)
    before = _files(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", *[c.format(dir=tmp_path) for c in command]],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, input="")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (name, done.stderr)
    assert len(lines) == 1, (name, lines)  # one line, whatever the mistake
    assert "Traceback" not in done.stderr
    for word in says:
        assert word in done.stderr, (name, word, done.stderr)
    assert _files(tmp_path) == before, name  # nothing written


def test_unknown_event_types_are_named_in_plain_words(tmp_path: Path) -> None:
    stream = tmp_path / "events.jsonl"
    stream.write_text('{"type": "dance", "seat": 1}\n{"seat": 2}\n')
    done = subprocess.run([sys.executable, "-m", "controller.cli", "replay-events", str(stream)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0
    assert "line 1: not a table event: event: unknown type 'dance' (known: seat, shuffle" in (
        done.stderr)
    assert "line 2: not a table event: event: no type given" in done.stderr
    assert "discriminator" not in done.stderr and "Input tag" not in done.stderr


def test_version() -> None:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "--version"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.startswith("pokertable 0.")
