"""The cash floor seats its players at the tables themselves, on a real Mosquitto with real table
services (`linked_table`: a table's session, journal and MQTT link, as a Pi runs them): a player
seated from the waiting list with his buy-in is asked to the table (``table/<id>/cmd/seat``, the
tournament's path) and reaches a seat there; a player the floor lets go is asked off it
(``unseat``, between hands: one who leaves mid-hand goes after it, even when the cash floor was
restarted meanwhile, and his seat goes to the player the floor gave it to); a seat the table shows
empty is learned (the player left) and the
seat is open; a must-move player who accepts the main table's seat leaves his table with the
stack it showed last and sits down with it at the main table (CG "Must Move", "Tischwechsel":
the whole table stake). Each of these is one of the cash floor's own commands in its journal, and
a request's id is the same every time it is sent: the table applies it once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.room.cash.core import replay
from controller.room.cash.ledger import MUST_MOVE
from controller.room.cash.service import CashService
from controller.room.cash.store import CashStore
from tests.room.cash.cash_table_helpers import (
    NLH,
    SEATS,
    SETTINGS,
    cash_room,
    hands_feed,
    own,
    players,
    seats,
    sits,
)
from tests.room.tournament import tournament_helpers as hands
from tests.venue import address, login
from tests.waiting import wait_for


@pytest.fixture(scope="module")
def two_tables() -> Iterator[LocalBroker]:
    with LocalBroker("testhall", tables=2) as broker:
        yield broker


def test_from_the_list_to_a_table_seat_and_off_it_again(two_tables: LocalBroker,
                                                        tmp_path: Path) -> None:
    with cash_room(two_tables, tmp_path) as (service, floor, tables):
        one = tables["1"]
        floor.ok("open_table", table="1", game=NLH)
        for name in ("Anna", "Ben", "Cleo"):
            floor.ok("sign_up", game=NLH, name=name)
        floor.ok("call", game=NLH, table="1")
        assert floor.ok("seat", table="1", name="Anna", stack=2_000) == (
            "Anna sits down at table 1 (NLH 2/5) with 2,000")
        # The table is asked, and seats her at its first free seat with her buy-in; her chips
        # are still to be read there (counted: False, as any newcomer's)
        wait_for(lambda: sits(one, "Anna") == (1, 2_000), what="Anna at table 1, seat 1")
        assert one.memory.last.seats[1].counted is False
        state = floor.state(lambda s: players(s, "1").get("Anna") == (1, True))
        assert state.recent[-1].text == "Anna takes seat 1 at table 1"
        assert floor.waiting(NLH, state) == ["Ben", "Cleo"]
        # The request's id is the same every time: sent again, the table does nothing twice
        asked = floor.table_reply("1", "seat")
        epoch = int(service.core.ledger.at_tables.epoch or 0)
        assert (asked.status, asked.id) == ("ok", f"cash:{epoch}:seat:1")
        request = {"v": 1, "id": asked.id, "by": "cash",
                   "args": {"seat": 2, "player": "Anna", "stack": 2_000}}
        assert not floor.client.publish(floor.topics.table("1", "cmd/seat"),
                                        json.dumps(request).encode()).is_failure
        wait_for(lambda: any("already applied" in (r.reason or "")
                             for r in floor.table_replies("1")), what="the table's answer")
        assert sits(one, "Anna") == (1, 2_000) and len(seats(one)) == 1
        # A seat the floor gives is the one the table is asked for
        floor.ok("call", game=NLH, table="1")
        floor.ok("seat", table="1", name="Ben", seat=3, stack=500)
        wait_for(lambda: sits(one, "Ben") == (3, 500), what="Ben at table 1, seat 3")
        # The floor lets Anna go: the table is asked to let her go (between hands: it is)
        floor.ok("leave", table="1", name="Anna")
        wait_for(lambda: sits(one, "Anna") is None, what="Anna off table 1")
        state = floor.state(lambda s: "Anna" not in players(s, "1") and not
                            service.core.ledger.at_tables.leaving)
        unseat = floor.table_reply("1", "unseat")
        assert (unseat.status, unseat.id) == ("ok", f"cash:{epoch}:unseat:1")
        # Ben gets up at the table (the dealer lets him go): the floor learns it from the state
        one.feed([{"type": "seat", "seat": 3, "player": None}])
        state = floor.state(lambda s: "Ben" not in players(s, "1"))
        assert state.tables[0].seats_open == SEATS
        assert any(h.text == "table 1 shows seat 3 empty: Ben has left the table; a seat is "
                   "open" for h in state.recent)
        # Each player's own in the order it happened (Anna's chips read and Ben's arrival at
        # the table come in two states of the table, in either order)
        journal = own(service)
        assert [name for name, args in journal if args["name"] == "Anna"] == [
            "at_table", "carries", "gone"]
        assert [name for name, args in journal if args["name"] == "Ben"] == [
            "at_table", "left_seat"]
        assert len(journal) == 5
        # The floor cannot say what only the tables say
        refused = floor.command("at_table", table="1", name="Cleo", seat=2)
        assert refused.status == "error" and "unknown cash command" in (refused.reason or "")
        # ... and the journal, replayed, makes the same ledger (the tables' side too)
        assert replay(SETTINGS, service.store.journal()).ledger == service.core.ledger


def test_a_must_move_player_brings_the_stack_his_table_showed(two_tables: LocalBroker,
                                                              tmp_path: Path) -> None:
    with cash_room(two_tables, tmp_path) as (service, floor, tables):
        main, feeder = tables["1"], tables["2"]
        floor.ok("open_table", table="1", game=NLH)
        floor.ok("open_table", table="2", game=NLH)
        for name in ("Anna", "Ben", "Cleo", "Dora"):  # walk-ins: nobody waits for the game
            floor.ok("seat", table="1", name=name, stack=1_000)
        for name in ("Emil", "Fay"):
            floor.ok("seat", table="2", name=name, stack=1_000)
        wait_for(lambda: len(seats(main)) == 4 and len(seats(feeder)) == 2,
                 what="both tables seated")
        said = floor.ok("must_move", table="2", main="1")
        assert said == ("table 2 is a must-move table for main table 1; the order (in the "
                        "order they came): Emil, Fay")
        # A hand at the must-move table: the big blind wins the small blind's 50
        feed = hands_feed(feeder)
        feed([{"type": "shuffle"}])
        hands.fold_around(feed, lambda: feeder.memory.last)
        after = {name: stack for name, stack in seats(feeder).values()}
        assert sorted(after.values()) == [950, 1_050]
        # A seat opens at the main table: Emil, first in the order, is asked and says yes
        floor.ok("leave", table="1", name="Cleo")
        state = floor.state(lambda s: bool(s.offers))
        assert (state.offers[0].asking, state.offers[0].seat) == ("Emil", 3)
        said = floor.ok("answer", table="1", name="Emil", accept=True)
        assert said.startswith("Emil says yes: Emil moves from table 2 to main table 1 (no "
                               "blind to bring: moved by the floor)")
        # Off table 2 with what it showed, onto Cleo's seat at table 1 with the same chips
        wait_for(lambda: sits(main, "Emil") == (3, after["Emil"]), what="Emil at table 1")
        assert sits(feeder, "Emil") is None and sits(main, "Cleo") is None
        state = floor.state(lambda s: players(s, "1").get("Emil") == (3, True))
        assert state.recent[-1].rule is None and state.recent[-1].text == (
            "Emil takes seat 3 at table 1")
        assert ("carries", {"name": "Emil", "stack": after["Emil"]}) in own(service)
        assert not service.core.ledger.at_tables.leaving
        assert any(h.rule == MUST_MOVE for h in state.recent)


def test_a_player_who_leaves_mid_hand_goes_after_it_even_across_a_restart(
        two_tables: LocalBroker, tmp_path: Path) -> None:
    with cash_room(two_tables, tmp_path) as (service, floor, tables):
        one = tables["1"]
        floor.ok("open_table", table="1", game=NLH)
        for name in ("Anna", "Ben", "Cleo"):
            floor.ok("seat", table="1", name=name, stack=1_000)
        wait_for(lambda: len(seats(one)) == 3, what="three seated")
        feed = hands_feed(one)
        feed([{"type": "shuffle"}])
        assert one.memory.last.stage == "betting"
        ben = sits(one, "Ben")
        assert ben is not None
        floor.ok("leave", table="1", name="Ben")
        # The floor gives his seat to Dora at once; at the table he plays the hand out first
        floor.ok("seat", table="1", name="Dora", seat=ben[0], stack=700)
        state = floor.state(lambda s: "Ben" not in players(s, "1") and "Dora" in players(s, "1"))
        assert players(state, "1")["Dora"] == (ben[0], False)
        # ... and the cash floor, which knows he must go, is stopped and started again
        service.close()
        service.store.close()
        store = CashStore(tmp_path / "cash.db")
        again = CashService(address(two_tables), login(two_tables, "cash"), SETTINGS, store,
                            retry_seconds=0.5).start()
        try:
            assert again.connected.wait(5)
            assert [g.name for g in again.core.ledger.at_tables.leaving] == ["Ben"]
            hands.fold_around(feed, lambda: one.memory.last)  # the hand ends
            wait_for(lambda: sits(one, "Dora") == (ben[0], 700), what="Dora in Ben's seat")
            assert {name for name, _ in seats(one).values()} == {"Anna", "Cleo", "Dora"}
            # (the cash floor journals what the table's state says when it reads it: after
            # the table has published it, not with it)
            wait_for(lambda: [name for name, _ in own(again)][-2:] == ["gone", "at_table"],
                     what="Ben gone and Dora at the table in the cash floor's journal")
            assert not again.core.ledger.at_tables.leaving
        finally:
            again.close()
            store.close()
