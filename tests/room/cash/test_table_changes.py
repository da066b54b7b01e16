"""Table changes (CG "Tischwechsel", Allgemeine Regeln 12): nobody changes tables without the
floor's approval; whether and when is the floor's decision; a change in the same game and limit
brings the whole table stake (CG "Table Stake"); for another limit or game the player signs up
for its waiting list. An approved change is made when a seat opens at the table asked for,
before the waiting list (the CG is silent on the order: common practice, said in
controller/room/cash/seating.py)."""

from __future__ import annotations

from controller.room.cash.ledger import CHANGE, FLOOR, MUST_MOVE
from tests.room.cash.helpers import NLH, PLO, Floor, full, room_settings


def two_tables() -> Floor:
    """Tables 1 and 2 deal NLH 2/5, six seats each: table 1 full, table 2 with Anna and Ben."""
    floor = Floor(room_settings(seats=6))
    floor.table_of("1", NLH, full("1", 6))
    floor.table_of("2", NLH, ["Anna", "Ben"])
    return floor


def test_cg_tischwechsel_a_request_waits_for_the_floor_s_approval() -> None:
    floor = two_tables()
    said = floor.do("request_change", name="anna", table="1")
    assert said == ("Anna asks to change from table 2 to table 1: the floor decides whether and "
                    "when")
    floor.do("leave", table="1", name="t1-1")  # a seat opens: not approved, nobody moves
    assert floor.seated("2") == ["Anna", "Ben"] and len(floor.seated("1")) == 5
    assert [(c.player, c.source, c.to, c.approved) for c in floor.core.state().changes] == [
        ("Anna", "2", "1", False)]


def test_cg_tischwechsel_approved_with_a_seat_open_the_change_is_made_at_once() -> None:
    floor = two_tables()
    floor.do("leave", table="1", name="t1-1")
    floor.do("request_change", name="Anna", table="1")
    said = floor.do("approve_change", name="Anna")
    assert said == ("the floor approves Anna's change to table 1: the move is made when a "
                    "seat opens there; Anna changes from table 2 to table 1, as the floor "
                    "approved, bringing the whole table stake")
    assert "Anna" in floor.seated("1") and floor.seated("2") == ["Ben"]
    assert floor.core.ledger.changes == []


def test_cg_tischwechsel_approved_the_change_is_made_when_a_seat_opens_before_the_list() -> None:
    floor = two_tables()
    floor.do("request_change", name="Anna", table="1")
    floor.do("request_change", name="Ben", table="1")
    floor.do("approve_change", name="Ben")
    floor.do("approve_change", name="Anna")  # approved later, but asked first: hers goes first
    floor.do("sign_up", game=NLH, name="Dan")
    floor.do("call", game=NLH)
    said = floor.do("leave", table="1", name="t1-4")
    assert said == ("t1-4 leaves table 1: a seat is open; Anna changes from table 2 to table 1, "
                    "as the floor approved, bringing the whole table stake")
    assert floor.seated("1")[-1] == "Anna" and floor.seated("2") == ["Ben"]
    assert floor.waiting(NLH) == ["Dan"]  # the list waits for the next seat
    assert [c.player for c in floor.core.ledger.changes] == ["Ben"]


def test_cg_tischwechsel_a_change_chain_a_seat_opened_by_a_change_goes_on() -> None:
    floor = Floor(room_settings(seats=2))
    floor.table_of("1", NLH, ["A1", "A2"])
    floor.table_of("2", NLH, ["B1", "B2"])
    floor.table_of("3", NLH, ["C1"])
    floor.do("request_change", name="B1", table="1")
    floor.do("approve_change", name="B1")
    floor.do("request_change", name="C1", table="2")
    floor.do("approve_change", name="C1")
    floor.do("leave", table="1", name="A1")  # B1 goes to 1, then C1 to B1's seat at 2
    assert floor.seated("1") == ["A2", "B1"] and floor.seated("2") == ["B2", "C1"]
    assert floor.seated("3") == []


def test_cg_tischwechsel_another_game_or_limit_is_the_waiting_list_s() -> None:
    floor = two_tables()
    floor.table_of("3", PLO, [])
    refused = floor.refused("request_change", name="Anna", table="3")
    assert (refused.reason, refused.rule) == (
        "table 3 deals PLO 5/5, Anna's table NLH 2/5: for another game or limit he signs up for "
        "its waiting list", CHANGE)
    refused = floor.refused("request_change", name="Zoe", table="1")
    assert (refused.reason, refused.rule) == (
        "Zoe sits at no table: a player who is not playing signs up for the game's waiting "
        "list", CHANGE)
    assert floor.refused("request_change", name="Anna", table="2").reason == ("Anna sits at "
                                                                              "table 2 already")
    assert floor.refused("request_change", name="Anna", table="4").rule == FLOOR  # closed


def test_cg_tischwechsel_no_change_in_the_same_game_without_the_floor_s_approval() -> None:
    floor = two_tables()
    floor.do("leave", table="1", name="t1-1")
    refused = floor.refused("seat", table="1", name="Anna")
    assert refused.rule == CHANGE
    assert refused.reason == ("Anna plays NLH 2/5 at table 2: a change of table in the same "
                              "game and limit is the floor's to approve (request_change, "
                              "approve_change)")


def test_cg_tischwechsel_one_request_at_a_time_and_the_floor_may_say_no() -> None:
    floor = two_tables()
    floor.table_of("3", NLH, [])
    floor.do("request_change", name="Anna", table="1")
    refused = floor.refused("request_change", name="Anna", table="3")
    assert refused.reason == "Anna asked for table 1 already (cancel_change first)"
    assert floor.do("cancel_change", name="Anna") == "Anna's change to table 1 is off"
    assert floor.refused("approve_change", name="Anna").reason == ("Anna has asked for no "
                                                                   "table change")
    floor.do("request_change", name="Anna", table="3")
    floor.do("approve_change", name="Anna")  # table 3 has seats: at once
    assert floor.seated("3") == ["Anna"]
    floor.do("request_change", name="Ben", table="1")
    floor.do("approve_change", name="Ben")
    assert floor.refused("approve_change", name="Ben").reason == ("Ben's change to table 1 is "
                                                                  "approved already")


def test_cg_tischwechsel_a_player_who_leaves_his_table_drops_his_request() -> None:
    floor = two_tables()
    floor.do("request_change", name="Anna", table="1")
    floor.do("approve_change", name="Anna")
    floor.do("leave", table="2", name="Anna")
    assert floor.core.ledger.changes == []
    floor.do("leave", table="1", name="t1-1")
    assert "Anna" not in floor.seated("1")


def test_cg_must_move_a_change_to_a_main_table_goes_by_its_must_move_order() -> None:
    floor = two_tables()
    floor.do("must_move", table="2", main="1")
    floor.table_of("3", NLH, ["Cleo"])
    refused = floor.refused("request_change", name="Cleo", table="1")
    assert (refused.reason, refused.rule) == ("table 1 is a main table: its seats go down the "
                                              "must-move order of table(s) 2", MUST_MOVE)


def test_closing_a_table_calls_off_the_changes_to_it() -> None:
    floor = two_tables()
    floor.table_of("3", NLH, ["Cleo", "Dan"])
    floor.do("request_change", name="Cleo", table="1")
    floor.do("leave", table="1", name="t1-1")
    for k in range(2, 7):
        floor.do("leave", table="1", name=f"t1-{k}")
    floor.do("close_table", table="1")
    assert floor.core.ledger.changes == []
    assert floor.core.ledger.recent[-1].text == "Cleo's change to table 1 is off: the table closed"


def test_an_approved_change_leaves_a_called_player_his_seat() -> None:
    """The CG is silent on a change and a call for the same seat: the call came first (CG
    "Poker Manager", said in controller/room/cash/seating.py)."""
    floor = two_tables()
    floor.do("leave", table="1", name="t1-1")
    floor.do("sign_up", game=NLH, name="Dan")
    floor.do("call", game=NLH, table="1")
    floor.do("request_change", name="Anna", table="1")
    floor.do("approve_change", name="Anna")
    assert floor.seated("2") == ["Anna", "Ben"]  # the seat is Dan's: the change waits
    floor.tick(floor.now + 600)  # Dan does not come: the seat is free, the change is made
    assert floor.seated("2") == ["Ben"] and floor.seated("1")[-1] == "Anna"
    assert floor.core.ledger.recent[-1].text == ("Anna changes from table 2 to table 1, as the "
                                                 "floor approved, bringing the whole table "
                                                 "stake")
