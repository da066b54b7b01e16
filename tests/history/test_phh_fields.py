"""The PHH reader checks a file's fields itself, without pydantic (issue 37: the replay's
start-up and per-hand cost): every field of the wrong type is refused as `PHH field NAME: what it
should be`, every amount that is no amount as such, never a crash; `pokertable replay` imports
no pydantic at all."""

from __future__ import annotations

import subprocess
import sys

import pytest

from controller.errors import PhhError
from controller.history.phh import parse_phh, parse_phhs, replay_text
from tests.conftest import PHH_DIR

BASE = {
    "variant": "'NT'", "antes": "[0, 0]", "blinds_or_straddles": "[1, 2]", "min_bet": "2",
    "starting_stacks": "[200, 200]", "actions": "['p2 f']",
}


def phh(**fields: str) -> str:
    values = {**BASE, **fields}
    return "".join(f"{key} = {value}\n" for key, value in values.items() if value != "")


def test_the_base_hand_replays() -> None:
    assert replay_text(phh()).finishing_stacks() == [201, 199]  # heads-up: p2 posted the 1


@pytest.mark.parametrize(("fields", "message"), [
    ({"min_bet": ""}, "PHH field min_bet: missing"),
    ({"antes": "[0, 'x']"}, "PHH field antes.1: should be a number"),
    ({"antes": "[0, true]"}, "PHH field antes.1: should be a number"),
    ({"starting_stacks": "200"}, "PHH field starting_stacks: should be a list of numbers"),
    ({"variant": "3"}, "PHH field variant: should be text"),
    ({"actions": "['p2 f', 3]"}, "PHH field actions.1: should be text"),
    ({"ante_trimming_status": "'yes'"}, "PHH field ante_trimming_status: should be true or"),
    ({"players": "['a', 2]"}, "PHH field players.1: should be text"),
    ({"seats": "[1, 2.5]"}, "PHH field seats.1: should be a whole number"),
    ({"hand": "[1]"}, "PHH field hand: should be a number or text"),
    ({"level": "'three'"}, "PHH field level: should be a whole number"),
    ({"_odd_chip_unit": "0"}, "PHH field _odd_chip_unit: should be greater than 0"),
    ({"finishing_stacks": "['a']"}, "PHH field finishing_stacks.0: should be a number"),
])
def test_a_field_of_the_wrong_kind_is_refused_by_name(fields: dict[str, str],
                                                      message: str) -> None:
    with pytest.raises(PhhError, match=message):
        parse_phh(phh(**fields))


@pytest.mark.parametrize(("fields", "message"), [
    ({"starting_stacks": "[inf, 200]"}, "inf is not an amount"),
    ({"starting_stacks": "[nan, 200]"}, "nan is not an amount"),
    ({"actions": "['p2 cbr x1']"}, "action 1 'p2 cbr x1': 'x1' is not an amount"),
    ({"starting_stacks": "[0, 200]"}, "p1 has no chips"),
    ({"antes": "[-1, 0]"}, "p2 owes a negative ante or blind"),  # (heads-up: read reversed)
    ({"min_bet": "0"}, "min_bet 0 is not a bet"),
])
def test_an_amount_that_is_no_amount_is_refused_not_a_crash(fields: dict[str, str],
                                                            message: str) -> None:
    with pytest.raises(PhhError, match=message):
        replay_text(phh(**fields))


def test_other_fields_are_kept_and_phhs_hands_are_named() -> None:
    hand = parse_phh(phh(venue="'Club'", time="00:00:09", table="'T1'", hand="7"))
    assert hand.extra == {"venue": "Club", "time": hand.extra["time"]}
    assert (hand.table, hand.hand, hand.odd_chip_unit) == ("T1", 7, 1)
    document = "[1]\n" + phh() + "\n[2]\n" + phh(min_bet="'2'")
    with pytest.raises(PhhError, match=r"hand \[2\]: PHH field min_bet: should be a number"):
        parse_phhs(document)


def test_replay_imports_no_pydantic() -> None:
    """The start-up of `pokertable replay` is part of the replay benchmark: the engine deals
    the file's hand from a plain set-up, the reader checks its fields itself."""
    hand = sorted(PHH_DIR.glob("pluribus*.phh"))[0]
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "controller.cli", "replay",
                           str(hand)], capture_output=True, text=True, timeout=60, check=False)
    assert '"finishing_stacks"' in done.stdout
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:")}
    assert "controller.engine.hand" in modules
    assert sorted(m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core")) == []
    assert "controller.engine.hand_setup" not in modules
