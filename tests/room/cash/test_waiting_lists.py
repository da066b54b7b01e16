"""The waiting lists, one per game and limit (CG "Tischwechsel": a player may put his name on
the list of another limit or game at any time; CG "Must Move": a new player is put on the
list): sign up, call in order, seat, time out (the floor's setting: the CG names no time), and
the screens' view of them (controller/room/cash/waiting.py)."""

from __future__ import annotations

from controller.room.cash.core import CashCore
from controller.room.cash.ledger import CHANGE, FLOOR, Ledger
from tests.room.cash.helpers import LIMIT, NLH, PLO, Floor, full, room_settings


def test_cg_tischwechsel_the_list_keeps_the_order_players_signed_up_in() -> None:
    floor = Floor()
    assert floor.do("sign_up", game=NLH, name="Anna") == "Anna is 1st on the NLH 2/5 list"
    floor.do("sign_up", game=NLH, name="Ben")
    assert floor.do("sign_up", game="nlh 2/5", name="Cleo") == "Cleo is 3rd on the NLH 2/5 list"
    floor.do("sign_up", game=PLO, name="Anna")  # another game's list: his own order
    assert floor.waiting(NLH) == ["Anna", "Ben", "Cleo"]
    assert floor.waiting(PLO) == ["Anna"]
    floor.do("remove", game=NLH, name="ben")
    assert floor.waiting(NLH) == ["Anna", "Cleo"]


def test_cg_tischwechsel_nobody_is_on_one_list_twice() -> None:
    floor = Floor()
    floor.do("sign_up", game=NLH, name="Anna")
    floor.do("sign_up", game=NLH, name="Ben")
    refused = floor.refused("sign_up", game=NLH, name="  ANNA ")
    assert (refused.reason, refused.rule) == ("Anna is on the NLH 2/5 list already (1st)", CHANGE)
    assert "no 'PLO 10/20'" in floor.refused("sign_up", game="PLO 10/20", name="Cleo").reason


def test_cg_tischwechsel_a_player_at_a_table_signs_up_for_another_game_at_any_time() -> None:
    floor = Floor()
    floor.table_of("1", NLH, ["Anna", "Ben"])
    floor.do("sign_up", game=PLO, name="Anna")
    assert floor.waiting(PLO) == ["Anna"] and floor.seated("1") == ["Anna", "Ben"]
    # ... but not for the game he plays: changing tables in it is the floor's to approve
    refused = floor.refused("sign_up", game=NLH, name="Ben")
    assert refused.rule == CHANGE
    assert refused.reason.startswith("Ben plays NLH 2/5 at table 1 already: a change of table "
                                     "in the same game and limit is the floor's to approve")


def test_cg_tischwechsel_the_floor_calls_the_first_not_yet_called_then_the_next() -> None:
    floor = Floor()
    floor.table_of("1", NLH, full("1", 7))
    floor.table_of("2", NLH, full("2", 7))  # four seats open in NLH 2/5
    for name in ("Anna", "Ben", "Cleo"):
        floor.do("sign_up", game=NLH, name=name)
    assert floor.do("call", game=NLH, table="1") == ("Anna is called to table 1 for NLH 2/5: "
                                                     "10 minutes to sit down")
    assert floor.do("call", game=NLH).startswith("Ben is called for NLH 2/5")
    entries = floor.core.ledger.lists[NLH]
    assert [(e.name, e.called, e.table, e.until) for e in entries] == [
        ("Anna", floor.now - 1, "1", floor.now + 599), ("Ben", floor.now, None, floor.now + 600),
        ("Cleo", None, None, None)]
    # table 1 has two seats open, one of them promised to Anna: one more call to it goes
    floor.do("sign_up", game=NLH, name="Dan")
    floor.do("call", game=NLH, table="1")
    refused = floor.refused("call", game=NLH, table="1")
    assert refused.reason == ("table 1 has no seat left for another call (2 open, called to "
                              "it: Anna, Cleo)")
    floor.do("call", game=NLH)
    assert floor.refused("call", game=NLH).reason == ("nobody on the NLH 2/5 list waits to be "
                                                      "called (4 called already)")
    assert floor.refused("call", game=PLO).reason == ("nobody on the PLO 5/5 list waits to be "
                                                      "called (the list is empty)")


def test_a_call_to_a_table_of_another_game_is_refused() -> None:
    floor = Floor()
    floor.table_of("2", PLO, [])
    floor.do("sign_up", game=NLH, name="Anna")
    assert floor.refused("call", game=NLH, table="2").reason == ("table 2 deals PLO 5/5, not "
                                                                  "NLH 2/5")
    assert floor.refused("call", game=NLH, table="3").reason == ("table 3 deals nothing "
                                                                  "(closed), not NLH 2/5")


def test_cg_tischwechsel_a_player_sits_down_from_the_list_once_called() -> None:
    floor = Floor()
    floor.table_of("1", NLH, [])
    for name in ("Anna", "Ben"):
        floor.do("sign_up", game=NLH, name=name)
    floor.do("sign_up", game=PLO, name="Ben")
    refused = floor.refused("seat", table="1", name="Ben")
    assert (refused.reason, refused.rule) == (
        "Ben is on the NLH 2/5 list but not called: the list is called in order (next: Anna)",
        CHANGE)
    floor.do("call", game=NLH)
    floor.do("call", game=NLH)
    assert floor.do("seat", table="1", name="ben", seat=4) == ("Ben sits down at table 1, seat "
                                                               "4 (NLH 2/5)")
    assert floor.waiting(NLH) == ["Anna"]  # Anna, called, still has her time
    assert floor.waiting(PLO) == ["Ben"]  # on the other game's list still
    assert floor.seated("1") == ["Ben"]
    assert floor.refused("seat", table="1", name="Anna", seat=4).reason == ("seat 4 at table 1 "
                                                                            "is taken")


def test_cg_tischwechsel_a_walk_in_sits_down_only_while_nobody_waits_for_the_game() -> None:
    floor = Floor()
    floor.table_of("1", NLH, ["Anna"])  # nobody waits: he sits down
    floor.do("sign_up", game=NLH, name="Ben")
    refused = floor.refused("seat", table="1", name="Cleo")
    assert (refused.reason, refused.rule) == ("1 wait on the NLH 2/5 list (first: Ben): sign "
                                              "Cleo up and call in the list's order", CHANGE)


def test_cg_tischwechsel_the_floor_seats_a_player_from_another_game_his_old_seat_opens() -> None:
    floor = Floor()
    floor.table_of("1", NLH, ["Anna", "Ben"])
    floor.table_of("2", PLO, [])
    floor.do("sign_up", game=PLO, name="Anna")
    floor.do("call", game=PLO, table="2")
    said = floor.do("seat", table="2", name="Anna")
    assert said == "Anna leaves table 1 (NLH 2/5) for PLO 5/5; Anna sits down at table 2 (PLO 5/5)"
    assert floor.seated("1") == ["Ben"] and floor.seated("2") == ["Anna"]


def test_seating_refuses_a_closed_or_full_table_and_a_player_seated_there() -> None:
    floor = Floor(room_settings(seats=2))
    assert floor.refused("seat", table="1", name="Anna").reason == ("table 1 is closed: open "
                                                                     "it with a game first")
    floor.table_of("1", NLH, ["Anna"])
    assert floor.refused("seat", table="1", name="anna").reason == ("Anna sits at table 1 "
                                                                     "already")
    assert floor.refused("seat", table="1", name="Ben", seat=3).reason == ("seat 3 at table 1 "
                                                                           "is not there (2 "
                                                                           "seats)")
    floor.do("seat", table="1", name="Ben")
    assert floor.refused("seat", table="1", name="Cleo").reason == ("table 1 has no seat open "
                                                                     "(2 seated)")
    assert floor.refused("seat", table="9", name="Cleo").reason.startswith("there is no table "
                                                                           "'9' in the room")


def test_a_called_player_who_does_not_come_within_the_setting_leaves_the_list() -> None:
    floor = Floor(room_settings(call_seconds=120))
    floor.table_of("1", NLH, full("1", 7))
    for name in ("Anna", "Ben", "Cleo", "Dan"):
        floor.do("sign_up", game=NLH, name=name)
    floor.do("call", game=NLH)  # Anna
    called = floor.now
    floor.do("call", game=NLH)  # Ben, a second later
    assert not floor.tick(called + 119.9)  # not yet: nothing journaled
    assert floor.tick(called + 120)
    assert floor.waiting(NLH) == ["Ben", "Cleo", "Dan"]  # the others keep their order
    recent = floor.core.ledger.recent[-1]
    assert (recent.text, recent.rule) == ("Anna did not sit down within 2 minutes of the call: "
                                          "off the NLH 2/5 list", FLOOR)
    assert floor.journal[-1] == ("tick", {}, "cash", called + 120)
    floor.do("seat", table="1", name="Ben")  # he came in time
    assert not floor.tick(called + 10_000)
    assert floor.waiting(NLH) == ["Cleo", "Dan"]


def test_the_default_call_lasts_ten_minutes() -> None:
    floor = Floor()
    floor.table_of("1", LIMIT, [])
    floor.do("sign_up", game=LIMIT, name="Anna")
    floor.do("call", game=LIMIT)
    assert floor.core.state().games[2].entries[0].until == floor.now + 600
    assert not floor.tick(floor.now + 599) and floor.tick(floor.now + 600)
    assert floor.waiting(LIMIT) == []


def test_a_tick_with_no_call_run_out_is_not_journaled() -> None:
    floor = Floor()
    assert not floor.tick(floor.now + 10_000)
    assert floor.refused("tick").reason == "nobody's call has run out"


def test_the_screens_see_seats_open_and_list_lengths_the_tv_initials_never_a_phone() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("1", NLH, full("1", 5))
    floor.table_of("2", NLH, full("2", 6))
    floor.table_of("3", PLO, full("3", 2))
    floor.do("sign_up", game=NLH, name="Anna Berger", initials="AB", phone="+43 660 1234567")
    floor.do("sign_up", game=NLH, name="Ben")
    floor.do("call", game=NLH, table="1")
    state = floor.core.state()
    nlh = state.games[0]
    assert (nlh.game, nlh.tables, nlh.seats_open, nlh.waiting, nlh.called) == (
        NLH, ["1", "2"], 1, 2, 1)
    assert [(e.shown, e.table, e.until) for e in nlh.entries] == [
        ("AB", "1", floor.now + 600), ("Ben", None, None)]
    assert [(t.table, t.game, t.seats_open) for t in state.tables] == [
        ("1", NLH, 1), ("2", NLH, 0), ("3", PLO, 4), ("4", None, 0), ("5", None, 0)]
    assert "660" not in state.model_dump_json()
    assert [(c.game, c.name, c.phone) for c in floor.core.contacts().contacts] == [
        (NLH, "Anna Berger", "+43 660 1234567")]


def test_closing_a_table_keeps_its_callers_called_and_refuses_while_players_sit() -> None:
    floor = Floor()
    floor.table_of("1", NLH, ["Anna"])
    floor.do("sign_up", game=NLH, name="Ben")
    floor.do("call", game=NLH, table="1")
    assert floor.refused("close_table", table="1").reason == ("Anna still sits at table 1: the "
                                                               "table closes once Anna has left "
                                                               "or moved")
    floor.do("leave", table="1", name="Anna")
    floor.do("close_table", table="1")
    entry = floor.core.ledger.lists[NLH][0]
    assert (entry.name, entry.called is not None, entry.table) == ("Ben", True, None)
    assert floor.refused("close_table", table="1").reason == "table 1 is closed already"
    assert floor.refused("open_table", table="2", game="Stud").reason.startswith(
        "the room deals no 'Stud'")
    floor.do("open_table", table="2", game=NLH)
    assert floor.refused("open_table", table="2", game=PLO).reason == ("table 2 is open "
                                                                       "already, dealing NLH 2/5")


# ---------------------------------------------------------------- a call is a promise of a seat


def test_a_call_to_any_table_is_refused_when_the_game_has_no_seat_left_to_promise() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("2", PLO, full("2", 6))
    floor.table_of("4", PLO, full("4", 6))  # the page: PLO 0 seats open
    floor.table_of("1", NLH, full("1", 2))  # (another game's seats are not PLO's)
    for name in ("Vera", "Karl", "Xena"):
        floor.do("sign_up", game=PLO, name=name)
    refused = floor.refused("call", game=PLO)
    assert (refused.reason, refused.rule) == ("PLO 5/5 has no seat left for another call (0 "
                                              "open)", FLOOR)
    assert floor.refused("call", game=PLO, table="4").reason == ("table 4 has no seat left for "
                                                                 "another call (0 open)")
    floor.do("leave", table="4", name="t4-1")  # a seat opens: one call
    assert floor.do("call", game=PLO) == "Vera is called for PLO 5/5: 10 minutes to sit down"
    refused = floor.refused("call", game=PLO)
    assert (refused.reason, refused.rule) == ("PLO 5/5 has no seat left for another call (1 "
                                              "open, called: Vera)", FLOOR)
    # ... and table 4's one seat may have room for a call, the game has none: Vera's is it
    refused = floor.refused("call", game=PLO, table="4")
    assert (refused.reason, refused.rule) == ("table 4 has a seat, but PLO 5/5 has no seat left "
                                              "for another call (1 open, called: Vera)", FLOOR)
    floor.do("seat", table="4", name="Vera")
    assert floor.refused("call", game=PLO).reason == "PLO 5/5 has no seat left for another call " \
                                                     "(0 open)"


def test_a_main_table_s_open_seat_is_its_must_move_order_s_not_a_call_s() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("1", NLH, full("1", 6))
    floor.table_of("3", NLH, full("3", 6))
    floor.do("must_move", table="3", main="1")
    floor.do("leave", table="1", name="t1-1")  # offered to t3-1
    floor.do("sign_up", game=NLH, name="Anna")
    assert floor.refused("call", game=NLH).reason == ("NLH 2/5 has no seat left for another "
                                                      "call (0 open)")
    floor.do("answer", table="1", name="t3-1", accept=True)  # his seat at table 3 opens
    assert floor.do("call", game=NLH) == "Anna is called for NLH 2/5: 10 minutes to sit down"


def test_a_call_to_a_table_keeps_its_seat_for_him_against_one_called_to_any_table() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("2", PLO, full("2", 5))
    floor.table_of("4", PLO, full("4", 5))  # a seat open at each
    for name in ("Karl", "Vera", "Xena", "Yann"):
        floor.do("sign_up", game=PLO, name=name)
    floor.do("call", game=PLO)  # Karl, to any table
    assert floor.do("call", game=PLO, table="4") == ("Vera is called to table 4 for PLO 5/5: "
                                                     "10 minutes to sit down")
    # every seat is promised now: to table 4 no more, nor to any table
    assert floor.refused("call", game=PLO, table="4").reason == (
        "table 4 has no seat left for another call (1 open, called to it: Vera)")
    assert floor.refused("call", game=PLO).reason == ("PLO 5/5 has no seat left for another "
                                                      "call (2 open, called: Karl, Vera)")
    # Karl, called to any table, does not take the seat table 4 keeps for Vera
    refused = floor.refused("seat", table="4", name="Karl")
    assert (refused.reason, refused.rule) == (
        "table 4's 1 open seat is promised to Vera, called to it: Karl sits down at another "
        "PLO 5/5 table, or here once another seat opens", FLOOR)
    floor.do("seat", table="2", name="Karl")
    assert floor.do("seat", table="4", name="Vera") == "Vera sits down at table 4 (PLO 5/5)"


def test_the_promised_seats_of_a_table_with_two_called_to_it() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("2", PLO, full("2", 4))
    floor.table_of("4", PLO, full("4", 4))  # two seats open at each
    for name in ("Karl", "Vera", "Xena"):
        floor.do("sign_up", game=PLO, name=name)
    floor.do("call", game=PLO, table="4")
    floor.do("call", game=PLO, table="4")
    floor.do("call", game=PLO)  # Xena, to any table
    refused = floor.refused("seat", table="4", name="Xena")
    assert refused.reason == ("table 4's 2 open seats are promised to Karl and Vera, called to "
                              "it: Xena sits down at another PLO 5/5 table, or here once "
                              "another seat opens")
    floor.do("seat", table="4", name="Vera", seat=2)  # one of them: his seat is there
    floor.do("leave", table="4", name="t4-1")  # a seat opens at table 4: Xena may have it
    floor.do("seat", table="4", name="Xena")
    assert floor.seated("4")[-2:] == ["Vera", "Xena"] and floor.waiting(PLO) == ["Karl"]


def test_a_closed_table_s_callers_keep_their_promise_and_new_calls_wait_for_seats() -> None:
    floor = Floor()
    floor.table_of("1", NLH, [])
    floor.table_of("2", NLH, full("2", 8))  # one seat open
    for name in ("Anna", "Ben", "Cleo"):
        floor.do("sign_up", game=NLH, name=name)
    floor.do("call", game=NLH, table="1")
    floor.do("call", game=NLH, table="1")
    floor.do("close_table", table="1")  # both called still, for another table of the game
    assert [(e.name, e.called is not None, e.table) for e in floor.core.ledger.lists[NLH]] == [
        ("Anna", True, None), ("Ben", True, None), ("Cleo", False, None)]
    assert floor.refused("call", game=NLH).reason == ("NLH 2/5 has no seat left for another "
                                                      "call (1 open, called: Anna, Ben)")
    floor.do("seat", table="2", name="Ben")
    assert floor.waiting(NLH) == ["Anna", "Cleo"]  # Anna's call stands until her time is up


def test_a_table_made_a_main_table_keeps_its_callers_called_for_another_table() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("1", NLH, full("1", 5))
    floor.table_of("3", NLH, full("3", 5))
    floor.do("sign_up", game=NLH, name="Anna")
    floor.do("call", game=NLH, table="1")
    floor.do("must_move", table="3", main="1")  # table 1's seat goes down the order now
    entry = floor.core.ledger.lists[NLH][0]
    assert (entry.name, entry.called is not None, entry.table) == ("Anna", True, None)


def test_closing_a_table_says_who_still_sits_there_in_words_for_one_and_for_several() -> None:
    floor = Floor()
    floor.table_of("2", NLH, ["Nico", "Ola", "Pia"])
    assert floor.refused("close_table", table="2").reason == (
        "Nico, Ola and Pia still sit at table 2: the table closes once they have left or moved")
    floor.do("leave", table="2", name="Nico")
    assert floor.refused("close_table", table="2").reason == (
        "Ola and Pia still sit at table 2: the table closes once they have left or moved")
    floor.do("leave", table="2", name="Ola")
    assert floor.refused("close_table", table="2").reason == (
        "Pia still sits at table 2: the table closes once Pia has left or moved")


# ---------------------------------------------------------------- a call keeps its time


def test_a_call_keeps_the_time_the_player_was_told_when_the_setting_changes() -> None:
    """Called with 10 minutes, restarted with call_minutes = 1: his call still lasts 10."""
    floor = Floor(room_settings(call_seconds=600))
    floor.table_of("1", PLO, full("1", 7))
    for name in ("Karl", "Xena", "Vera"):
        floor.do("sign_up", game=PLO, name=name)
    floor.do("call", game=PLO)
    called = floor.now
    floor.do("call", game=PLO, seconds=300.0)  # (the service journals its setting with it)
    stored = Ledger.model_validate_json(floor.core.ledger.model_dump_json())
    floor.core = CashCore(room_settings(call_seconds=60), stored)  # the restart
    assert not floor.tick(called + 60)
    assert floor.tick(called + 301)  # Xena had 5 minutes
    assert floor.core.ledger.recent[-1].text == ("Xena did not sit down within 5 minutes of "
                                                 "the call: off the PLO 5/5 list")
    assert floor.core.state().games[1].entries[0].until == called + 600
    assert not floor.tick(called + 599) and floor.tick(called + 600)
    assert floor.core.ledger.recent[-1].text == ("Karl did not sit down within 10 minutes of "
                                                 "the call: off the PLO 5/5 list")
    assert floor.do("call", game=PLO).endswith("1 minute to sit down")  # a new call: the new


def test_a_call_stored_without_its_time_gets_the_setting_s() -> None:
    """A store written before calls kept their time: the configured minutes, as then."""
    floor = Floor(room_settings(call_seconds=120))
    floor.table_of("1", NLH, [])
    floor.do("sign_up", game=NLH, name="Anna")
    floor.do("call", game=NLH)
    called = floor.now
    old = floor.core.ledger.model_dump(mode="json")
    del old["lists"][NLH][0]["until"]
    floor.core = CashCore(floor.settings, Ledger.model_validate(old))
    assert floor.core.ledger.lists[NLH][0].until == called + 120
    assert not floor.tick(called + 119) and floor.tick(called + 120)
    assert floor.core.ledger.recent[-1].text == ("Anna did not sit down within 2 minutes of the "
                                                 "call: off the NLH 2/5 list")
