"""The cash floor's seats at the tables, on the pure core (at_tables.py): what a table's state
says becomes the cash floor's own commands, and what the ledger says becomes the requests the
tables still need; each of those commands refused in the floor's words when the ledger does not
bear it out (changing nothing), and a seat the floor gave waited for while its old player is
still leaving it. The same over a real broker and real tables: test_cash_tables.py."""

from __future__ import annotations

from controller.engine.records import Blinds
from controller.room.cash.ledger import FLOOR, MUST_MOVE
from controller.session.outputs import SeatView, TableState
from tests.room.cash.helpers import NLH, Floor, room_settings


def table_state(table: str, seats: dict[int, tuple[str, int]], stage: str = "waiting",
                hand: int = 0) -> TableState:
    """A table's published state (the model the tables publish) with these players."""
    return TableState.model_validate({
        "table": table, "hand": hand, "stage": stage, "level": 1,
        "blinds": Blinds(sb=50, bb=100), "seat_count": 4, "waiting_for": "the shuffle",
        "seats": {n: SeatView(player=p, stack=s) for n, (p, s) in seats.items()}})


def follow(floor: Floor, state: TableState) -> list[str]:
    """What the state says, carried out as the service does (journaled by the helper)."""
    names = []
    while said := floor.core.observed(state):
        name, args = said[0]
        floor.do(name, **args)
        names.append(name)
    return names


def test_the_floor_s_seat_becomes_a_request_and_the_state_its_answer() -> None:
    floor = Floor(room_settings(seats=4))
    floor.do("open_table", table="1", game=NLH)
    floor.do("seat", table="1", name="Anna", stack=800)
    floor.do("seat", table="1", name="Ben")  # no buy-in: the dealer seats him himself
    empty = table_state("1", {})
    asks = floor.core.wanted({"1": empty})
    epoch = int(floor.core.ledger.at_tables.epoch or 0)
    assert [(a.command, a.args, a.id) for a in asks] == [
        ("seat", {"seat": 1, "player": "Anna", "stack": 800}, f"cash:{epoch}:seat:1")]
    there = table_state("1", {1: ("Anna", 800), 4: ("Ben", 300)})
    assert follow(floor, there) == ["at_table", "at_table"]
    assert floor.core.wanted({"1": there}) == []
    lines = {p.name: (p.seat, p.at_table) for p in floor.core.state().tables[0].players}
    assert lines == {"Anna": (1, True), "Ben": (4, True)}
    # Refused, changing nothing: what the ledger does not bear out
    assert floor.refused("at_table", table="1", name="Anna", seat=1).reason == (
        "Anna is at table 1, seat 1 already")
    assert floor.refused("at_table", table="2", name="Anna", seat=1).reason == (
        "Anna does not sit at table 2 for the cash floor")
    assert floor.refused("carries", name="Anna", stack=5).rule == FLOOR
    assert floor.refused("gone", table="1", name="Anna").reason == (
        "nobody called Anna is leaving table 1")
    assert floor.refused("at_table", table="1", name="Anna", seat=11).reason.startswith(
        "args.seat: a seat number from 1 to 10")


def test_a_seat_given_away_is_asked_for_once_its_player_has_gone() -> None:
    floor = Floor(room_settings(seats=4))
    floor.do("open_table", table="1", game=NLH)
    for name in ("Anna", "Ben"):
        floor.do("seat", table="1", name=name, stack=1_000)
    playing = table_state("1", {1: ("Anna", 1_000), 2: ("Ben", 1_000)}, stage="betting", hand=3)
    follow(floor, playing)
    floor.do("leave", table="1", name="Ben")
    floor.do("seat", table="1", name="Cleo", seat=2, stack=400)
    assert floor.core.wanted({"1": playing}) == []  # Ben plays his hand out; seat 2 is his
    over = playing.model_copy(update={"stage": "over"})
    # (the stake he ends play with, as the table shows it between hands, is journaled first)
    assert follow(floor, over) == ["carries"]
    asks = floor.core.wanted({"1": over})
    assert [(a.command, a.args["seat"], a.args["player"]) for a in asks] == [
        ("unseat", 2, "Ben")]
    gone = table_state("1", {1: ("Anna", 1_000)}, hand=3)
    assert follow(floor, gone) == ["gone"]
    assert [(a.command, a.args) for a in floor.core.wanted({"1": gone})] == [
        ("seat", {"seat": 2, "player": "Cleo", "stack": 400})]


def test_a_seat_the_table_shows_empty_is_open_for_the_must_move_order() -> None:
    floor = Floor(room_settings(seats=2))
    floor.do("open_table", table="1", game=NLH)
    floor.do("open_table", table="2", game=NLH)
    for table, name in (("1", "Anna"), ("1", "Ben"), ("2", "Cleo")):
        floor.do("seat", table=table, name=name, stack=1_000)
    follow(floor, table_state("1", {1: ("Anna", 1_000), 2: ("Ben", 1_000)}))
    follow(floor, table_state("2", {1: ("Cleo", 1_000)}))
    floor.do("must_move", table="2", main="1")
    # Ben went broke and home: the table shows his seat empty
    assert follow(floor, table_state("1", {1: ("Anna", 1_150)}, hand=4)) == ["left_seat"]
    assert floor.seated("1") == ["Anna"] and floor.asking("1") == "Cleo"
    said = floor.do("answer", table="1", name="Cleo", accept=True)
    assert said.startswith("Cleo says yes: Cleo moves from table 2 to main table 1")
    # Off table 2 with what it showed between hands (journaled first), then onto table 1
    two = table_state("2", {1: ("Cleo", 870)}, hand=9)
    assert follow(floor, two) == ["carries"]
    asks = floor.core.wanted({"1": table_state("1", {1: ("Anna", 1_150)}), "2": two})
    assert [(a.table, a.command, a.args["seat"]) for a in asks] == [("2", "unseat", 1)]
    assert asks[0].args["reason"] == "table 1 (the cash floor moves him)"
    assert follow(floor, table_state("2", {}, hand=9)) == ["gone"]
    asks = floor.core.wanted({"1": table_state("1", {1: ("Anna", 1_150)}),
                              "2": table_state("2", {})})
    assert [(a.table, a.command, a.args) for a in asks] == [
        ("1", "seat", {"seat": 2, "player": "Cleo", "stack": 870, "arrival": "moved"})]
    assert any(h.rule == MUST_MOVE for h in floor.core.ledger.recent)


def test_a_player_all_in_is_not_shown_with_no_chips_until_the_hand_is_over() -> None:
    """CG Table Stake: a player his table shows with no chips keeps his seat, and the floor's
    page marks him. All in, he has none before him while the hand plays: not marked then (a
    player's mark flashed on and off within hands)."""
    floor = Floor(room_settings(seats=4))
    floor.do("open_table", table="1", game=NLH)
    for name in ("Anna", "Ben", "Cleo"):
        floor.do("seat", table="1", name=name, stack=1_000)
    playing = table_state("1", {1: ("Anna", 0), 2: ("Ben", 1_500), 3: ("Cleo", 0)},
                          stage="betting", hand=4)
    seats = dict(playing.seats)
    seats[1] = seats[1].model_copy(update={"in_hand": True, "all_in": True})  # all in
    playing = playing.model_copy(update={"seats": seats})  # (Cleo busted before, sits out)
    follow(floor, playing)

    def marked(state: TableState) -> list[str]:
        return [p.name for t in floor.core.state({"1": state}).tables for p in t.players
                if p.no_chips]

    assert marked(playing) == ["Cleo"]
    assert marked(playing.model_copy(update={"stage": "showdown"})) == ["Cleo"]
    assert marked(playing.model_copy(update={"stage": "over"})) == ["Anna", "Cleo"]  # he lost
    won = {**seats, 1: seats[1].model_copy(update={"stack": 2_000})}
    assert marked(playing.model_copy(update={"stage": "over", "seats": won})) == ["Cleo"]
