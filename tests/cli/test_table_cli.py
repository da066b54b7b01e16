"""`pokertable replay-events` and the table configuration file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.table.config import load_table_config
from controller.table.runner import _session_config
from drivers.registry import ChipSet
from tests.session.helpers import played_session

ROOT = Path(__file__).resolve().parents[2]


def test_replay_events_prints_one_json_record_per_finished_hand(tmp_path: Path) -> None:
    stream = tmp_path / "session.jsonl"
    lines = [json.dumps(e) for e in played_session(6, seed=9)]
    stream.write_text("\n".join([*lines[:5], "not json", '{"type":"teleport"}', *lines[5:]]))
    done = subprocess.run([sys.executable, "-m", "controller.cli", "replay-events", str(stream)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["hand"] for r in records] == list(range(1, len(records) + 1))
    assert len(records) == 6  # the last press opens a seventh hand, unfinished: no record
    first = records[0]
    for field in ("hand", "button", "sb", "bb", "level", "starting_stacks", "finishing_stacks",
                  "hole_cards", "board", "actions", "pots", "status", "irregularities"):
        assert field in first
    assert all(isinstance(k, str) and k.isdigit() for k in first["starting_stacks"])
    assert any(r["status"] == "misdeal" for r in records)
    assert all(sum(r["finishing_stacks"].values()) == sum(r["starting_stacks"].values())
               for r in records)
    assert "line 6: not a table event" in done.stderr


@pytest.mark.parametrize("command", [
    ["replay-events", "docs/examples/two-hands.jsonl"],
    ["readers", "check", "--config", "deploy/table.example.toml", "--simulate", "--no-walk"],
])
def test_a_reader_that_stopped_early_ends_the_output_without_a_traceback(
        command: list[str]) -> None:
    """`| head`: the pipe is closed before the command writes its first line."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "controller.cli", *command], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60, cwd=ROOT)
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 0


def test_example_table_configuration_validates() -> None:
    config = load_table_config(ROOT / "deploy" / "table.example.toml")
    assert [r.name for r in config.readers] == ["cards", "chips"]
    assert config.readers[0].zones[12] == "muck" and config.buttons is not None
    assert config.table.journal == (ROOT / "deploy" / "journal.db")


def test_table_configuration_typos_are_errors(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\nid = "1"\nsaets = 9\n')
    with pytest.raises(ConfigError, match="saets"):
        load_table_config(bad)


def test_s2_the_tables_chip_set_names_its_smallest_chip(tmp_path: Path) -> None:
    """PVB 62: split pots pay in the smallest chip in play; a table that reads chips knows it
    from its registered chip set, unless the configuration names it."""
    chip_set = ChipSet(name="house", chips={"0500000000000001": 25, "0500000000000002": 100,
                                            "0500000000000003": 500})
    plain = tmp_path / "table.toml"
    plain.write_text('[table]\nid = "1"\n')
    assert _session_config(load_table_config(plain), {"chips": chip_set}).level.smallest_chip == 25
    assert _session_config(load_table_config(plain), {}).level.smallest_chip == 1
    named = tmp_path / "named.toml"
    named.write_text('[table]\nid = "1"\n\n[table.level]\nsb = 100\nbb = 200\n'
                     'smallest_chip = 100\n')
    assert _session_config(load_table_config(named), {"chips": chip_set}).level.smallest_chip == 100


@pytest.mark.parametrize("simulate", [[], ["--simulate"]], ids=["readers", "simulated"])
def test_a_deck_its_reader_chip_cannot_read_is_refused_before_anything_is_written(
        tmp_path: Path, simulate: list[str]) -> None:
    """A deck registered on an MFRC522 (ISO 14443A tags) named for a PN5180's antennas (ISO
    15693): on the table's readers it would wait for ever for cards it never sees; a
    simulation of that table refuses it as soon (it made its journal first)."""
    from controller.sim.table_rig import demo_deck
    from drivers.registry import save

    save(demo_deck("mfrc522"), tmp_path / "decks" / "house.json")
    (tmp_path / "table.toml").write_text(
        '[table]\nid = "1"\n[[readers]]\nname = "seats"\nurl = "/dev/spidev1.0"\n'
        'protocol = "pn5180"\nreads = "cards"\ndeck = "decks/house.json"\n'
        'zones = { 1 = "seat:1", 2 = "seat:2" }\nselects = { 1 = 12, 2 = 13 }\nbusy = 25\n')
    before = sorted(tmp_path.rglob("*"))
    done = subprocess.run([sys.executable, "-m", "controller.cli", "table", "--config",
                           "table.toml", *simulate], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert ("table.toml: readers.seats.deck: " in done.stderr and "are not ISO 15693 tags, the "
            "only ones a pn5180 reads; give this reader a deck of its own, registered on it: "
            "pokertable deck register --reader seats --out decks/seats.json, then deck = "
            '"decks/seats.json"' in done.stderr), done.stderr
    assert sorted(tmp_path.rglob("*")) == before  # no journal, no output
