"""Tournament structures: the shipped files check, the schedule is one
time line from zero, and a director's mistake is one line naming the level or break."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.room.clock.structure import Structure

ROOT = Path(__file__).resolve().parents[3]
STRUCTURES = sorted((ROOT / "deploy" / "structures").glob("*.toml"))


def check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "clock", "--structure",
                           str(path), "--check"], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)


def test_a_deep_and_a_turbo_structure_ship() -> None:
    assert {p.name for p in STRUCTURES} >= {"pvb-deep.toml", "turbo.toml"}


@pytest.mark.parametrize("path", STRUCTURES, ids=lambda p: p.name)
def test_the_schedule_is_one_time_line_from_zero(path: Path) -> None:
    done = check(path)
    assert done.returncode == 0, done.stderr
    slots = [json.loads(line) for line in done.stdout.splitlines()]
    assert slots[0]["kind"] == "level" and slots[0]["start"] == 0
    for before, after in itertools.pairwise(slots):
        assert after["start"] == before["end"] > before["start"]
    levels = [s for s in slots if s["kind"] == "level"]
    assert [s["level"] for s in levels] == list(range(1, len(levels) + 1))
    assert all(s["sb"] <= s["bb"] and s["sb"] % s["smallest_chip"] == 0 for s in levels)
    # RULES T5: after a colour-up the smallest chip in play is larger (split pots pay in it)
    for k, slot in enumerate(slots):
        if slot["kind"] == "break" and slot.get("colour_up"):
            before = next(s for s in reversed(slots[:k]) if s["kind"] == "level")
            after = next(s for s in slots[k:] if s["kind"] == "level")
            assert after["smallest_chip"] > before["smallest_chip"]
    late = [s["late_registration"] for s in levels]
    assert late[0] and not late[-1] and late == sorted(late, reverse=True)


BAD = {
    "misspelt key": ('name = "x"\nchips = [25]\n[[levels]]\nsb = 25\nbb = 50\nminuts = 20\n',
                     "level 1: unknown key 'minuts'"),
    "blinds reversed": ('name = "x"\nchips = [25]\n[[levels]]\nsb = 100\nbb = 50\nminutes = 20\n',
                        "small blind (100) is more than the big blind (50)"),
    "no levels": ('name = "x"\nchips = [25]\nlevels = []\n', "levels:"),
    "break after the end": ('name = "x"\nchips = [25]\n[[levels]]\nsb = 25\nbb = 50\n'
                            'minutes = 20\n[[breaks]]\nafter_level = 1\nminutes = 10\n',
                            "break 1: a break after level 1"),
    "colour-up of a chip not in play": (
        'name = "x"\nchips = [25, 100]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[[levels]]\nsb = 100\nbb = 200\nminutes = 20\n'
        '[[breaks]]\nafter_level = 1\nminutes = 10\ncolour_up = [5]\n',
        "5 is not in play"),
    "blinds no chip can pay": (
        'name = "x"\nchips = [25, 100]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[[levels]]\nsb = 150\nbb = 250\nminutes = 20\n'
        '[[breaks]]\nafter_level = 1\nminutes = 10\ncolour_up = [25]\n',
        "level 2: sb 150 cannot be paid in chips of 100"),
    "minutes not a number": ('name = "x"\nchips = [25]\n[[levels]]\nsb = 25\nbb = 50\n'
                             'minutes = nan\n', "level 1: minutes must be a number of minutes "
                             "above 0 and at most 1440, not nan"),
    "late registration past the end": (
        'name = "x"\nchips = [25]\nlate_registration_ends = 3\n'
        '[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n', "late_registration_ends: level 3"),
    "TOML syntax": ('name = "x\n', "not valid TOML"),
    "a colour-up leaving a chip its leftovers cannot be told in": (
        'name = "x"\nchips = [25, 100, 250]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[[levels]]\nsb = 100\nbb = 200\nminutes = 20\n'
        '[[breaks]]\nafter_level = 1\nminutes = 10\ncolour_up = [25]\n',
        "the break after level 1: 250 is no multiple of 100, the smallest chip left"),
    "an add-on at no break": (
        'name = "x"\nchips = [25]\nlate_registration_ends = 1\n'
        '[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n[[levels]]\nsb = 50\nbb = 100\n'
        'minutes = 20\n[entry]\nstack = 5000\n[entry.add_on]\nchips = 5000\n',
        "entry.add_on: the add-on is taken at the break after level 1, and the structure has "
        "no break there"),
    "an add-on in chips gone at its break": (
        'name = "x"\nchips = [25, 100]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[[levels]]\nsb = 100\nbb = 200\nminutes = 20\n'
        '[[breaks]]\nafter_level = 1\nminutes = 10\ncolour_up = [25]\n'
        '[entry]\nstack = 5000\n[entry.add_on]\nchips = 5050\nafter_level = 1\n',
        "entry.add_on: 5,050 chips cannot be given in chips of 100"),
    "a rebuy past the last level": (
        'name = "x"\nchips = [25]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[entry]\nstack = 5000\n[entry.rebuy]\nchips = 5000\nuntil_level = 4\n',
        "entry.rebuy: level 4 does not exist"),
    "a rebuy in chips smaller than any in play": (
        'name = "x"\nchips = [25]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[entry]\nstack = 5000\n[entry.rebuy]\nchips = 3010\nuntil_level = 1\n',
        "entry.rebuy: 3,010 chips cannot be given in chips of 25, the smallest in play in "
        "level 1"),
    "a rebuy in chips gone before its last level": (
        'name = "x"\nchips = [25, 100]\n[[levels]]\nsb = 25\nbb = 50\nminutes = 20\n'
        '[[levels]]\nsb = 100\nbb = 200\nminutes = 20\n'
        '[[breaks]]\nafter_level = 1\nminutes = 10\ncolour_up = [25]\n'
        '[entry]\nstack = 5000\n[entry.rebuy]\nchips = 3025\nuntil_level = 2\n',
        "entry.rebuy: 3,025 chips cannot be given in chips of 100, the smallest in play in "
        "level 2"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_mistake_in_a_structure_is_one_line_naming_it(tmp_path: Path, name: str) -> None:
    text, says = BAD[name]
    path = tmp_path / "structure.toml"
    path.write_text(text)
    done = check(path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "structure.toml" in lines[0] and says in lines[0], lines


def test_add_ons_rebuys_and_the_chips_left_after_each_colour_up() -> None:
    """The structure says whether and when chips can be bought (PVB 20(1): not in the PVB's
    own tournaments, so only when it says so), and which chips are left after each break."""
    structure = Structure.model_validate({
        "name": "x", "chips": [25, 100, 500], "late_registration_ends": 2,
        "levels": [{"sb": 25, "bb": 50, "minutes": 20}, {"sb": 100, "bb": 200, "minutes": 20},
                   {"sb": 500, "bb": 1000, "minutes": 20}],
        "breaks": [{"after_level": 1, "minutes": 5, "colour_up": [25]},
                   {"after_level": 2, "minutes": 10, "colour_up": [100]}],
        "entry": {"stack": 5_000, "add_on": {"chips": 10_000, "price": 10},
                  "rebuy": {"chips": 5_000, "price": 10, "at_most": 2}}})
    assert structure.add_on_level() == 2 and structure.rebuy_until() == 2
    assert structure.in_play_after(1) == [100, 500] and structure.in_play_after(2) == [500]
    assert structure.break_after(2) is not None and structure.break_after(3) is None
    plain = structure.model_copy(update={"entry": structure.entry.model_copy(
        update={"add_on": None, "rebuy": None})})
    assert plain.add_on_level() is None and plain.rebuy_until() is None
