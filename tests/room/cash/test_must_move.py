"""Must-move tables feeding a main table (CG "Must Move", Allgemeine Regeln 15):

- the order is drawn at the start and/or is the waiting list's (a setting: ``list`` keeps the
  order the players came in, ``draw`` draws it from a journaled seed);
- every new player of that limit is put on the list and starts at the must-move table;
- when a seat opens at the main table the first in the order is asked, then the next; if all
  say no, the first must move.

(controller/room/cash/seating.py)"""

from __future__ import annotations

import pytest

from controller.room.cash.ledger import FLOOR, MUST_MOVE
from tests.room.cash.helpers import NLH, PLO, Floor, full, room_settings


def must_move_room(order: str = "list", seed: int | None = None, seats: int = 6) -> Floor:
    """Main table 1 full; table 2 must-move for it, with Anna, Ben, Cleo (in that order)."""
    floor = Floor(room_settings(seats=seats, order=order))  # type: ignore[arg-type]
    floor.table_of("1", NLH, full("1", seats))
    floor.table_of("2", NLH, ["Anna", "Ben", "Cleo"])
    floor.do("must_move", table="2", main="1", **({"seed": seed} if seed is not None else {}))
    return floor


def test_cg_must_move_by_the_list_the_order_is_the_order_they_came_in() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("1", NLH, full("1", 6))
    floor.table_of("2", NLH, ["Anna", "Ben"])
    floor.from_list(NLH, "2", "Cleo")
    said = floor.do("must_move", table="2", main="1")
    assert said == ("table 2 is a must-move table for main table 1; the order (in the order "
                    "they came): Anna, Ben, Cleo")
    assert floor.order("1") == ["Anna", "Ben", "Cleo"]
    assert floor.core.state().tables[0].must_move == ["Anna", "Ben", "Cleo"]
    assert floor.core.state().tables[1].feeds == "1"


def test_cg_must_move_by_draw_the_seed_decides_and_the_same_seed_draws_the_same() -> None:
    orders = {tuple(must_move_room("draw", seed).order("1")) for seed in range(40)}
    assert all(sorted(o) == ["Anna", "Ben", "Cleo"] for o in orders)
    assert len(orders) == 6  # every order can be drawn
    assert must_move_room("draw", 7).order("1") == must_move_room("draw", 7).order("1")
    floor = Floor(room_settings(order="draw"))
    floor.table_of("1", NLH, [])
    floor.table_of("2", NLH, [])
    refused = floor.refused("must_move", table="2", main="1")
    assert refused.rule == MUST_MOVE and "the draw needs a seed" in refused.reason


def test_cg_must_move_a_newcomer_joins_at_the_end_of_the_order_drawn_or_not() -> None:
    floor = must_move_room("draw", seed=3)
    drawn = floor.order("1")
    floor.from_list(NLH, "2", "Dan")
    assert floor.order("1") == [*drawn, "Dan"]


def test_cg_must_move_the_floor_is_told_a_newcomer_is_last_in_the_order_by_name() -> None:
    floor = must_move_room()
    floor.do("sign_up", game=NLH, name="Mia")
    floor.do("call", game=NLH)
    assert floor.do("seat", table="2", name="Mia") == (
        "Mia sits down at table 2 (NLH 2/5); table 2 is a must-move table for table 1: Mia is "
        "last in its order")


def test_cg_must_move_a_new_player_starts_at_the_must_move_table_not_the_main_table() -> None:
    floor = must_move_room()
    floor.do("leave", table="1", name="t1-1")  # a seat opens at the main table ...
    floor.do("sign_up", game=NLH, name="Dan")
    refused = floor.refused("call", game=NLH, table="1")  # ... it is not the list's
    assert refused.rule == MUST_MOVE
    assert refused.reason == ("table 1 is a main table: its open seats go down the must-move "
                              "order (Anna, Ben, Cleo), and a new player starts at the "
                              "must-move table (2)")
    floor.do("call", game=NLH)
    assert floor.refused("seat", table="1", name="Dan").rule == MUST_MOVE
    assert floor.refused("seat", table="1", name="Eve").rule == MUST_MOVE  # a walk-in neither
    floor.do("seat", table="2", name="Dan")
    assert floor.order("1") == ["Anna", "Ben", "Cleo", "Dan"]
    # the main table's seat is held for the order: not counted open for the game
    assert floor.core.state().games[0].seats_open == 6 - 4


def test_cg_must_move_the_first_is_asked_then_the_next_and_the_first_who_says_yes_moves() -> None:
    floor = must_move_room()
    said = floor.do("leave", table="1", name="t1-3")
    assert said == ("t1-3 leaves table 1: a seat is open; a seat is open at main table 1: Anna, "
                    "first in its must-move order, is asked whether to move")
    assert floor.asking("1") == "Anna"
    assert floor.do("answer", table="1", name="Anna", accept=False) == (
        "Anna stays at the must-move table; Ben is asked next for the seat at table 1")
    said = floor.do("answer", table="1", name="Ben", accept=True)
    assert said == ("Ben says yes: Ben moves from table 2 to main table 1 (no blind to bring: "
                    "moved by the floor)")
    assert "Ben" in floor.seated("1") and floor.seated("2") == ["Anna", "Cleo"]
    assert floor.order("1") == ["Anna", "Cleo"]  # Anna keeps her place: she is first still
    assert floor.asking("1") is None
    # he takes the seat that opened (seat numbers where the floor gave them)
    floor.do("leave", table="1", name="Ben")
    assert floor.asking("1") == "Anna"


def test_cg_must_move_if_all_say_no_the_first_must_move() -> None:
    floor = must_move_room()
    floor.do("leave", table="1", name="t1-1")
    floor.do("answer", table="1", name="Anna", accept=False)
    floor.do("answer", table="1", name="Ben", accept=False)
    said = floor.do("answer", table="1", name="Cleo", accept=False)
    assert said == ("Cleo stays at the must-move table; everyone in the must-move order said "
                    "no: Anna, the first, must move: Anna moves from table 2 to main table 1 "
                    "(no blind to bring: moved by the floor)")
    assert "Anna" in floor.seated("1") and floor.order("1") == ["Ben", "Cleo"]
    recent = floor.core.ledger.recent[-1]
    assert recent.rule == MUST_MOVE


def test_cg_must_move_the_order_is_asked_one_by_one() -> None:
    floor = must_move_room()
    refused = floor.refused("answer", table="1", name="Anna", accept=True)
    assert (refused.reason, refused.rule) == ("no seat of table 1 is being offered down a "
                                              "must-move order", MUST_MOVE)
    floor.do("leave", table="1", name="t1-1")
    refused = floor.refused("answer", table="1", name="Ben", accept=True)
    assert (refused.reason, refused.rule) == ("table 1's seat is offered to Anna now: the "
                                              "order is asked one by one", MUST_MOVE)


def test_cg_must_move_one_asked_who_leaves_passes_the_question_on() -> None:
    floor = must_move_room()
    floor.do("leave", table="1", name="t1-1")
    floor.do("answer", table="1", name="Anna", accept=False)
    floor.do("leave", table="2", name="Ben")  # asked, he goes home instead
    assert floor.asking("1") == "Cleo"
    floor.do("answer", table="1", name="Cleo", accept=False)  # everyone left said no
    assert "Anna" in floor.seated("1") and floor.order("1") == ["Cleo"]


def test_cg_must_move_two_seats_open_at_the_main_table_two_players_move_one_by_one() -> None:
    floor = must_move_room()
    floor.do("leave", table="1", name="t1-1")
    floor.do("leave", table="1", name="t1-2")
    assert [o.asking for o in floor.core.ledger.offers] == ["Anna"]  # one question at a time
    floor.do("answer", table="1", name="Anna", accept=True)
    assert floor.asking("1") == "Ben"
    floor.do("answer", table="1", name="Ben", accept=True)
    assert floor.seated("2") == ["Cleo"] and floor.asking("1") is None


def test_cg_must_move_a_must_move_table_is_made_with_the_main_table_s_seat_open() -> None:
    floor = Floor(room_settings(seats=6))
    floor.table_of("1", NLH, full("1", 5))
    floor.table_of("2", NLH, ["Anna", "Ben"])
    said = floor.do("must_move", table="2", main="1")
    assert said.endswith("a seat is open at main table 1: Anna, first in its must-move order, "
                         "is asked whether to move")


def test_cg_must_move_the_order_empty_the_main_table_s_seat_is_the_list_s() -> None:
    floor = must_move_room()
    floor.do("leave", table="1", name="t1-1")
    for name in ("Anna", "Ben", "Cleo"):
        floor.do("leave", table="2", name=name)
    assert floor.asking("1") is None and floor.order("1") == []
    floor.from_list(NLH, "1", "Dan")
    # a newcomer at the must-move table starts the order again
    floor.from_list(NLH, "2", "Eve")
    assert floor.order("1") == ["Eve"]


def test_cg_must_move_ending_a_must_move_table_drops_its_order() -> None:
    floor = must_move_room()
    floor.do("leave", table="1", name="t1-1")
    assert floor.do("end_must_move", table="2") == "table 2 is no longer a must-move table for " \
                                                   "table 1"
    assert floor.order("1") == [] and floor.asking("1") is None
    assert floor.refused("end_must_move", table="2").reason == "table 2 is no must-move table"
    floor.from_list(NLH, "1", "Dan")  # the seat is the list's again


def test_cg_must_move_two_must_move_tables_share_one_order() -> None:
    floor = must_move_room()
    floor.table_of("3", NLH, ["Dan"])
    floor.do("must_move", table="3", main="1")
    assert floor.order("1") == ["Anna", "Ben", "Cleo", "Dan"]
    floor.do("leave", table="1", name="t1-1")
    for name in ("Anna", "Ben", "Cleo"):
        floor.do("answer", table="1", name=name, accept=False)
    floor.do("answer", table="1", name="Dan", accept=True)
    assert "Dan" in floor.seated("1") and floor.seated("3") == []


@pytest.mark.parametrize(("table", "main", "reason", "rule"), [
    ("2", "2", "table 2 cannot feed itself: name the main table it protects", MUST_MOVE),
    ("3", "1", "a must-move table feeds a main table of its own game and limit: table 3 deals "
     "PLO 5/5, table 1 NLH 2/5", MUST_MOVE),
    ("2", "4", "table 4 is closed", FLOOR),
    ("2", "1", "table 2 is a must-move table for table 1 already", MUST_MOVE),
    ("5", "2", "table 2 is itself a must-move table (for table 1): a must-move table feeds a "
     "main table", FLOOR),
    ("1", "5", "table 1 is a main table (fed by 2): it cannot be a must-move table too", FLOOR),
])
def test_cg_must_move_what_cannot_be_a_must_move_table(table: str, main: str, reason: str,
                                                       rule: str) -> None:
    floor = must_move_room()
    floor.table_of("3", PLO, [])
    floor.table_of("5", NLH, [])
    refused = floor.refused("must_move", table=table, main=main)
    assert (refused.reason, refused.rule) == (reason, rule)


def test_cg_must_move_a_main_table_closes_only_without_its_must_move_tables() -> None:
    floor = must_move_room()
    for k in range(1, 7):
        floor.do("leave", table="1", name=f"t1-{k}")
        if floor.asking("1"):
            floor.do("answer", table="1", name=floor.asking("1"), accept=False)
            while floor.asking("1"):
                floor.do("answer", table="1", name=floor.asking("1"), accept=False)
    assert floor.seated("2") == []  # everyone was made to move, one by one
    assert floor.seated("1") == ["Anna", "Ben", "Cleo"]
    for name in ("Anna", "Ben", "Cleo"):
        floor.do("leave", table="1", name=name)
    assert floor.refused("close_table", table="1").rule == MUST_MOVE
    floor.do("close_table", table="2")  # the empty must-move table closes: it feeds no more
    floor.do("close_table", table="1")
