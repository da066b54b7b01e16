"""How a player comes to a cash table and how he leaves it, on a real Mosquitto with real table
services under the cash game's rules (`linked_table` with a cash profile and a minimum buy-in):

- a player the cash floor moves (a must-move player taking the main table's seat, an approved
  table change) is seated with ``arrival: "moved"``: the table takes his whole stake even below
  its minimum buy-in and he brings no blind (CG "Tischwechsel", CG "Table Stake", CG "Blinds");
- a player who ends his play without the floor naming his stake leaves with the stack his table
  showed between hands, and the cash floor's ledger keeps it for the day (CG "Table Stake": not
  back today with less), whether the floor let him go (``leave``) or the dealer did;
- a player who loses his last chip keeps his seat with 0 (no elimination at a cash table), the
  cash floor still sees him seated, and learns the seat is open once the dealer lets him go."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.room.cash.core import replay
from controller.room.cash.ledger import STAKE, CashSettings, TableSpec
from controller.room.cash.service import CashService
from controller.session import SessionConfig
from controller.session.model import BuyIn
from controller.sim.soak import cash_profile
from tests.mqtt.helpers import LinkedTable
from tests.room.cash.cash_table_helpers import Floor, hands_feed, own, players, seats, sits
from tests.room.cash.cash_table_helpers import cash_room as tables_room
from tests.room.tournament import tournament_helpers as hands
from tests.waiting import wait_for

NLH = "NLH 2/5"
SEATS = 4
MINIMUM = 1_000  # the tables' minimum buy-in (CG "Buy-in") and the game's for the day's rule
SETTINGS = CashSettings(games=[NLH], tables=[TableSpec(table=t, seats=SEATS) for t in ("1", "2")],
                        call_seconds=600, minimum_buy_ins={NLH: 500})


@pytest.fixture(scope="module")
def two_tables() -> Iterator[LocalBroker]:
    with LocalBroker("testhall", tables=2) as broker:
        yield broker


@contextlib.contextmanager
def cash_room(broker: LocalBroker, tmp_path: Path
              ) -> Iterator[tuple[CashService, Floor, dict[str, LinkedTable]]]:
    """Two cash tables (the CG's profile, first button on seat 1, a minimum buy-in of 1,000)
    and the cash floor."""
    profile = tmp_path / "cash.toml"
    profile.write_text(cash_profile("NT"), encoding="utf-8")
    with tables_room(broker, tmp_path, SETTINGS, lambda t: SessionConfig(
            table_id=t.table, seats=t.seats, profile=str(profile),
            buy_in=BuyIn(min=MINIMUM))) as room:
        yield room


def three_seated(floor: Floor, one: LinkedTable) -> None:
    """Table 1 opened with NLH; Anna, Ben and Cleo seated there with the minimum buy-in."""
    floor.ok("open_table", table="1", game=NLH)
    for name in ("Anna", "Ben", "Cleo"):
        floor.ok("seat", table="1", name=name, stack=MINIMUM)
    wait_for(lambda: len(seats(one)) == 3, what="three seated")


def told(table: LinkedTable, kind: str) -> list[str]:
    return [e.text for e in table.memory.events if e.kind == kind]


def test_cg_tischwechsel_a_moved_player_is_seated_as_moved_below_the_minimum(
        two_tables: LocalBroker, tmp_path: Path) -> None:
    with cash_room(two_tables, tmp_path) as (service, floor, tables):
        main, feeder = tables["1"], tables["2"]
        floor.ok("open_table", table="1", game=NLH)
        floor.ok("open_table", table="2", game=NLH)
        for name in ("Anna", "Ben", "Cleo"):
            floor.ok("seat", table="1", name=name, stack=MINIMUM)
        for name in ("Emil", "Fay", "Gus"):
            floor.ok("seat", table="2", name=name, stack=MINIMUM)
        wait_for(lambda: len(seats(main)) == 3 and len(seats(feeder)) == 3,
                 what="both tables seated")
        floor.ok("must_move", table="2", main="1")
        # A hand at the must-move table: Emil (the button, seat 1) folds, Fay the small blind
        # folds, Gus wins the blinds. Emil keeps 1,000; Fay has 950, below the minimum.
        feed = hands_feed(feeder)
        feed([{"type": "shuffle"}])
        hands.fold_around(feed, lambda: feeder.memory.last)
        assert sits(feeder, "Fay") == (2, 950) and sits(feeder, "Gus") == (3, 1_050)
        # A seat opens at the main table: Emil says no, Fay yes
        floor.ok("leave", table="1", name="Cleo", stack=MINIMUM)
        floor.state(lambda s: bool(s.offers) and s.offers[0].asking == "Emil")
        floor.ok("answer", table="1", name="Emil", accept=False)
        said = floor.ok("answer", table="1", name="Fay", accept=True)
        assert said.startswith("Fay says yes: Fay moves from table 2 to main table 1")
        # The main table is asked to seat her as moved: her 950 whole, though below its
        # minimum (a buy-in of 950 would be refused), and no blind to bring
        wait_for(lambda: sits(main, "Fay") == (3, 950), what="Fay at table 1 with 950")
        # (the table's reply may come after its state)
        wait_for(lambda: any(r.command == "seat" and r.status == "ok" and
                             "seat 3: Fay comes moved by the floor with his whole stake and "
                             "brings no blind (CG Blinds)" in (r.reason or "")
                             for r in floor.table_replies("1")), what="the table's reply")
        wait_for(lambda: "seat 3: Fay comes moved by the floor with his whole stake and brings "
                 "no blind (CG Blinds)" in told(main, "seat"), what="the table saying so")
        floor.state(lambda s: players(s, "1").get("Fay") == (3, True))
        assert not service.core.ledger.at_tables.moved  # (arrived: nothing more to say)
        # An approved change is the floor's move too: Gus asks for table 1 (no longer a main
        # table), the floor approves, and he takes its open seat as moved, with his 1,050
        floor.ok("end_must_move", table="2")
        floor.ok("request_change", name="Gus", table="1")
        floor.ok("approve_change", name="Gus")
        wait_for(lambda: sits(main, "Gus") == (4, 1_050), what="Gus at table 1")
        # (his seat in the state may be read before the table's line reaches its sink)
        wait_for(lambda: "seat 4: Gus comes moved by the floor with his whole stake and brings "
                 "no blind (CG Blinds)" in told(main, "seat"), what="the table saying so")
        # A newcomer from the list is no mover: he buys in within the table's limits
        floor.ok("sign_up", game=NLH, name="Hana")
        floor.ok("call", game=NLH, table="2")
        floor.ok("seat", table="2", name="Hana", stack=800)
        wait_for(lambda: any("Hana buys in for 800: this table's minimum buy-in is 1,000"
                             in (r.reason or "") for r in floor.table_replies("2")),
                 what="the table refusing Hana's 800")
        assert sits(feeder, "Hana") is None
        assert replay(SETTINGS, service.store.journal()).ledger == service.core.ledger


def test_cg_table_stake_he_leaves_with_what_his_table_showed_and_not_back_with_less(
        two_tables: LocalBroker, tmp_path: Path) -> None:
    with cash_room(two_tables, tmp_path) as (service, floor, tables):
        one = tables["1"]
        three_seated(floor, one)
        # Two hands: the big blind wins the small blind each time (seat 3, then seat 1)
        feed = hands_feed(one)
        for _ in range(2):
            feed([{"type": "shuffle"}])
            hands.fold_around(feed, lambda: one.memory.last)
        assert {name: stack for name, stack in seats(one).values()} == {
            "Anna": 1_050, "Ben": 950, "Cleo": 1_000}
        # The floor lets Anna go and names no stake: she leaves with the 1,050 her table shows
        floor.ok("leave", table="1", name="Anna")
        wait_for(lambda: sits(one, "Anna") is None, what="Anna off table 1")
        ends = ("Anna ends play at NLH 2/5 with 1,050, above the minimum buy-in of 500: today "
                "he plays NLH 2/5 again only with 1,050 or more")
        floor.state(lambda s: any(h.rule == STAKE and h.text == ends for h in s.recent))
        assert ("carries", {"name": "Anna", "stack": 1_050}) in own(service)
        assert not service.core.ledger.at_tables.leaving
        refused = floor.command("seat", table="1", name="Anna", stack=1_000)
        assert (refused.status, refused.reason, refused.rule) == (
            "error", "Anna ended play at NLH 2/5 today with 1,050: he cannot come back today "
            "with less (1,000)", STAKE)
        # The dealer lets Cleo go between hands: the stack the table showed just before is
        # the stake she ended play with
        one.feed([{"type": "seat", "seat": 3, "player": None}])
        floor.state(lambda s: "Cleo" not in players(s, "1"))
        assert ("left_seat", {"table": "1", "name": "Cleo", "stack": 1_000}) in own(service)
        assert [(d.name, d.stake) for d in service.core.ledger.departures] == [
            ("Anna", 1_050), ("Cleo", 1_000)]
        assert replay(SETTINGS, service.store.journal()).ledger == service.core.ledger


def test_a_busted_cash_player_keeps_his_seat_until_the_dealer_lets_him_go(
        two_tables: LocalBroker, tmp_path: Path) -> None:
    with cash_room(two_tables, tmp_path) as (service, floor, tables):
        one = tables["1"]
        three_seated(floor, one)
        feed = hands_feed(one)
        feed([{"type": "shuffle"}])
        hands.bust(feed, lambda: one.memory.last, winner=1, losers=[2])  # Ben loses it all
        # No elimination: Ben sits on with 0, told he may buy chips
        assert sits(one, "Ben") == (2, 0)
        assert not told(one, "elimination")
        assert any(t.startswith("seat 2: Ben has no chips left and keeps his seat")
                   for t in told(one, "seat"))
        # The next hand deals him out; the cash floor still has him at his seat
        feed([{"type": "shuffle"}])
        assert not one.memory.last.seats[2].in_hand
        hands.fold_around(feed, lambda: one.memory.last)
        state = floor.state(lambda s: s.tables[0].seats_open == SEATS - 3)
        assert players(state, "1")["Ben"] == (2, True)
        # The floor sees him marked: at his seat with no chips (Anna and Cleo have theirs once
        # the hand's last state has reached the cash floor: in a loaded run a state from within
        # it showed Anna with none for a moment)
        floor.state(lambda s: [p.name for p in s.tables[0].players if p.no_chips] == ["Ben"])
        # The dealer lets him go: the cash floor learns the seat is open
        feed([{"type": "seat", "seat": 2, "player": None}])
        state = floor.state(lambda s: "Ben" not in players(s, "1"))
        assert state.tables[0].seats_open == SEATS - 2
        assert not any(p.no_chips for p in state.tables[0].players)
        assert [(name, args) for name, args in own(service) if name == "left_seat"] == [
            ("left_seat", {"table": "1", "name": "Ben", "stack": 0})]
        assert service.core.ledger.departures == []  # with 0 nothing binds him (CG Table Stake)
