"""The cash floor's commands at the boundary (controller/room/cash/commands.py): a command or an
argument it does not know, a name, a phone, a seat or an answer it cannot take is refused in the
floor's words, with the CG section, and changes nothing; ``tick`` is the service's alone."""

from __future__ import annotations

from typing import Any

import pytest

from controller.room.cash.commands import COMMANDS, FLOOR_COMMANDS, SignUpArgs, parse
from controller.room.cash.ledger import (
    CHANGE,
    FLOOR,
    MUST_MOVE,
    STAKE,
    CashSettings,
    Refused,
    TableSpec,
)
from tests.room.cash.helpers import NLH, Floor


@pytest.mark.parametrize(("name", "args", "reason", "rule"), [
    ("seat_open", {}, "unknown cash command 'seat_open'; the cash floor knows: answer, "
     "approve_change, call, cancel_change, close_table, end_must_move, leave, must_move, "
     "open_table, remove, request_change, seat, sign_up", FLOOR),
    ("sign_up", {"game": NLH, "name": "Anna", "phon": "123"}, "sign_up does not take args.phon "
     "(it takes game, name, initials, phone); nothing was done", FLOOR),
    ("sign_up", {"game": NLH}, "sign_up needs args.name; nothing was done", FLOOR),
    ("sign_up", {"game": NLH, "name": " "}, "args.name: empty; give the player's name as the "
     "list shows it", CHANGE),
    ("sign_up", {"game": NLH, "name": "An\u200bna"}, "args.name: a name with characters nobody "
     "sees (U+200B ZERO WIDTH SPACE): the floor could not tell it apart", CHANGE),
    ("sign_up", {"game": NLH, "name": "x" * 41}, "args.name: a name is 1 to 40 printable "
     "characters", CHANGE),
    ("sign_up", {"game": NLH, "name": "Anna", "phone": "call me"}, "args.phone: a telephone "
     "number (digits, spaces, + ( ) / -), for the floor to call the player when his seat is "
     "ready", FLOOR),
    ("sign_up", {"game": NLH, "name": "Anna", "initials": "ANNABELLE"}, "args.initials: 1 to 6 "
     "printable characters (what the TV shows instead of the name)", FLOOR),
    ("sign_up", {"game": "", "name": "Anna"}, 'args.game: the game and limit as the room names '
     'it ("NLH 2/5")', CHANGE),
    ("seat", {"table": "1", "name": "Anna", "seat": 0}, "args.seat: a seat number from 1 to 10 "
     "(or none: any open seat)", FLOOR),
    ("seat", {"table": "1/2", "name": "Anna"}, "args.table: a table's id, as cash.toml's "
     "tables name it", FLOOR),
    ("answer", {"table": "1", "name": "Anna", "accept": "yes"}, "args.accept: true (he moves) "
     "or false (he stays)", MUST_MOVE),
    ("must_move", {"table": "2", "main": "1", "seed": -1}, "args.seed: a whole number from 0 "
     "(the must-move draw's)", MUST_MOVE),
    ("call", {}, "call needs args.game; nothing was done", FLOOR),
    # (leaving, the stake he ends with, 0 included: it said what a seat's buy-in is)
    ("leave", {"table": "1", "name": "Anna", "stack": "lots"}, "args.stack: the chips he "
     "leaves with, a whole number from 0 (none: the floor does not count his stake)", STAKE),
    ("seat", {"table": "1", "name": "Anna", "stack": 0}, "args.stack: the chips he sits down "
     "with, a whole number above 0 (his buy-in: the table is asked to seat him with them; "
     "none: the dealer seats him)", STAKE),
])
def test_a_command_the_floor_gets_wrong_is_refused_in_its_words(
        name: str, args: dict[str, Any], reason: str, rule: str) -> None:
    floor = Floor()
    refused = floor.refused(name, **args)
    assert (refused.reason, refused.rule) == (reason, rule)


def test_names_are_kept_as_the_floor_wrote_them_spaces_made_one() -> None:
    parsed = parse("sign_up", {"game": " NLH 2/5 ", "name": "  Anna   Berger ",
                               "phone": " +43 (660) 123-45 ", "initials": ""})
    assert parsed == SignUpArgs(game="NLH 2/5", name="Anna Berger", phone="+43 (660) 123-45")


def test_the_tick_is_the_service_s_alone() -> None:
    assert "tick" in COMMANDS and "tick" not in FLOOR_COMMANDS


def test_the_settings_refuse_a_game_or_a_table_twice() -> None:
    with pytest.raises(ValueError, match="games: 'nlh 2/5' is listed twice"):
        CashSettings(games=[NLH, "nlh 2/5"], tables=[TableSpec(table="1")])
    with pytest.raises(ValueError, match="tables: table '1' is listed twice"):
        CashSettings(games=[NLH], tables=[TableSpec(table="1"), TableSpec(table="1")])
    with pytest.raises(ValueError, match="call_seconds"):
        CashSettings(games=[NLH], tables=[TableSpec(table="1")], call_seconds=5)


def test_a_refusal_is_a_value_error_carrying_its_rule() -> None:
    refused = Refused("x", CHANGE)
    assert isinstance(refused, ValueError) and str(refused) == 'x (CG "Tischwechsel")'
