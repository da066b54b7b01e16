"""`pokertable table --check` reads the files a start reads before it opens anything (the venue
CA, this table's login in the credentials, the decks and chip sets) and refuses with the very
line the start would stop with, exit 2, where it used to answer OK for a table whose start then
failed within half a second. It connects to no broker and opens no reader or pin."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.mqtt.venue_ca import new_ca
from controller.sim.table_rig import demo_chips, demo_deck
from drivers.registry import save

ROOT = Path(__file__).resolve().parents[2]
# The example's table and its readers (MFRC522 cards on SPI0, PN5180 chips on SPI1); no
# [buttons], so that a start on this machine stops at the same files, not at its GPIO.
READERS = (ROOT / "deploy" / "table.example.toml").read_text().split("[buttons]")[0]
MQTT = ('\n[mqtt]\nhost = "broker.hall.lan"\nport = 8883\ntls = true\nca = "ca.crt"\n'
        'venue = "hall"\ncredentials = "credentials.json"\n')


def table(tmp_path: Path, toml: str) -> Path:
    """A table's directory as `install table` and `deck register`/`chips register` leave it."""
    save(demo_deck("mfrc522"), tmp_path / "decks" / "house.json")
    save(demo_chips("pn5180"), tmp_path / "chips" / "house.json")
    (tmp_path / "ca.crt").write_bytes(new_ca("hall")[0])
    (tmp_path / "credentials.json").write_text(json.dumps(
        {"table-1": {"username": "table-1", "password": "s3cret-1"}}))
    (tmp_path / "table.toml").write_text(toml)
    return tmp_path / "table.toml"


def run(config: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "table", "--config",
                           str(config), *options], capture_output=True, text=True, timeout=60,
                          cwd=config.parent, input="")


def test_a_table_whose_files_are_there_checks_ok_and_nothing_is_written(tmp_path: Path) -> None:
    config = table(tmp_path, READERS + MQTT)
    before = sorted(tmp_path.rglob("*"))
    done = run(config, "--check")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("table 1: ") and done.stdout.count("\n") == 1, done.stdout
    assert sorted(tmp_path.rglob("*")) == before  # no journal, no outbox, no output


MISTAKES = {
    # the CA the configuration names is not there
    "the venue CA": (lambda t: t.replace('ca = "ca.crt"', 'ca = "ca.pem"'),
                     ["mqtt.ca: cannot use the venue CA ", "ca.pem: No such file or directory",
                      "copy the venue's ca.crt"]),
    # credentials.json holds table-1's login, the configuration says table 7
    "the table's login": (lambda t: re.sub(r'(?m)^id = "1"', 'id = "7"', t),
                          ["mqtt.credentials: ", "credentials.json holds no valid login for "
                           "the MQTT client 'table-7'", "`pokertable broker init`",
                           "pokertable install table --bundle", "table-<table.id>"]),
    # the deck file is not there (never registered, or registered elsewhere)
    "the deck": (lambda t: t.replace('deck = "decks/house.json"', 'deck = "decks/hall.json"'),
                 ["readers.cards.deck: ", "decks/hall.json: cannot read the deck file",
                  "`pokertable deck register` writes it"]),
    # no deck named at all: every card would have read as foreign, every hand void (the
    # check said OK, and the start began)
    "no deck": (lambda t: t.replace('deck = "decks/house.json"', ''),
                ["readers.cards.deck: missing", "read every one as foreign",
                 "`pokertable deck register` writes it", 'deck = "decks/house.json"']),
    "no chip set": (lambda t: t.replace('chips = "chips/house.json"', ''),
                    ["readers.chips.chips: missing", "registered chip set",
                     "`pokertable chips register` writes it"]),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_check_refuses_what_the_start_refuses_in_the_same_line(tmp_path: Path,
                                                               mistake: str) -> None:
    edit, says = MISTAKES[mistake]
    config = table(tmp_path, edit(READERS + MQTT))
    before = sorted(tmp_path.rglob("*"))
    checked = run(config, "--check")
    assert checked.returncode == 2 and checked.stdout == "", checked.stdout
    assert checked.stderr.count("\n") == 1 and "Traceback" not in checked.stderr, checked.stderr
    assert checked.stderr.startswith(f"pokertable table: {config}: "), checked.stderr
    for words in says:
        assert words in checked.stderr, (words, checked.stderr)
    started = run(config)  # stops at the same file, before it opens a reader or the broker
    assert (started.returncode, started.stderr) == (2, checked.stderr)
    assert sorted(tmp_path.rglob("*")) == before


def test_check_as_simulate_starts_leaves_out_a_deck_the_simulation_writes(tmp_path: Path) -> None:
    config = table(tmp_path, READERS)
    (tmp_path / "decks" / "house.json").unlink()
    assert run(config, "--check").returncode == 2
    simulated = run(config, "--check", "--simulate")
    assert simulated.returncode == 0, simulated.stderr
    assert not (tmp_path / "decks" / "house.json").exists()


def test_a_rehearsal_on_the_tables_own_configuration_writes_no_deck_where_the_real_one_goes(
        tmp_path: Path) -> None:
    """`table --simulate` on the Pi's own table.toml before the deck is registered: it deals its
    demo deck from memory. It wrote that deck to decks/house.json, after which `--check` and the
    start took it for the registered one (and would have read every real card as foreign)."""
    config = table(tmp_path, READERS)
    (tmp_path / "decks" / "house.json").unlink()
    (tmp_path / "chips" / "house.json").unlink()
    # (stopped once it has said where its deck comes from: before it deals, it wrote it there)
    with subprocess.Popen([sys.executable, "-m", "controller.cli", "table", "--config",
                           str(config), "--simulate"], stderr=subprocess.PIPE, text=True,
                          cwd=tmp_path, stdin=subprocess.DEVNULL) as table_run:
        assert table_run.stderr is not None
        said = ""
        for line in table_run.stderr:
            said += line
            if "demo deck" in line or "simulated deck" in line or "Traceback" in line:
                break
        table_run.terminate()
        said += table_run.stderr.read()
    assert "the simulation deals its demo deck (written nowhere)" in said, said
    assert not (tmp_path / "decks" / "house.json").exists()
    assert not (tmp_path / "chips" / "house.json").exists()
    checked = run(config, "--check")
    assert checked.returncode == 2 and "decks/house.json" in checked.stderr, checked.stderr
    assert "deck register" in checked.stderr, checked.stderr
