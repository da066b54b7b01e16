"""A break on a real Mosquitto with real tables (each a `TableService` with its `TableLink`),
the real clock and the tournament service: the clock's break colours up the 25s (RULES T5) and
is the break that ends late registration, where the structure offers an add-on. Every table
makes the colour-up between hands; the add-on reaches the player's stack and the prize pool;
the service is restarted in the middle of the break; the dealers run the chip race (APSA
2.1.18), one of them losing the race's chip. After the break the chip count is silent for the
table that raced right and says once, naming the table and hand, what the other lacks."""

from __future__ import annotations

import contextlib
from pathlib import Path

from controller.mqtt.local_broker import LocalBroker
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import Structure
from controller.room.tournament.ledger import Settings, TableSpec
from controller.session import SessionConfig
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_service_helpers import (
    Floor,
    Room,
    counts,
    feeder,
    shuffle,
    state_of,
)
from tests.room.tournament.tournament_service_helpers import start_service as start_tournament
from tests.venue import address, login
from tests.waiting import wait_until

STRUCTURE = Structure.model_validate({
    "name": "breaks", "chips": [25, 100, 500], "late_registration_ends": 1,
    "levels": [{"sb": 25, "bb": 50, "minutes": 60}, {"sb": 100, "bb": 200, "minutes": 60}],
    "breaks": [{"after_level": 1, "minutes": 60, "colour_up": [25]}],
    "entry": {"stack": 5_000, "buy_in": 10, "add_on": {"chips": 5_000, "price": 10}},
    "prizes": {"payouts": [{"percent": [60, 40]}]}})
SETTINGS = Settings(name="break test", structure=STRUCTURE, seats=4,
                    tables=[TableSpec(table=t, seats=4) for t in ("1", "2")])


def fold(table: LinkedTable) -> None:
    assert shuffle(table), table.memory.last.waiting_for
    hands.fold_around(feeder(table), state_of(table))


def test_a_break_colours_up_and_an_add_on_is_taken(broker: LocalBroker, tmp_path: Path) -> None:
    clock_store = ClockStore(tmp_path / "clock.db")
    clock = ClockService(address(broker), login(broker, "clock"), STRUCTURE, clock_store).start()
    with contextlib.ExitStack() as stack:
        stack.callback(clock_store.close)
        stack.callback(clock.close)
        tables = {t.table: stack.enter_context(linked_table(
            broker, tmp_path / f"t{t.table}", table=t.table,
            config=SessionConfig(table_id=t.table, seats=t.seats))) for t in SETTINGS.tables}
        running = Room(*start_tournament(broker, tmp_path, SETTINGS))
        stack.callback(lambda: running.close())
        floor = Floor(broker, clock=True)  # (one login: one connection for both)
        stack.callback(floor.client.close)

        for k in range(6):
            assert floor.command("register", name=f"b{k}").status == "ok"
        assert floor.command("draw", seed=9).status == "ok"
        assert wait_until(lambda: counts(tables) == {"1": 3, "2": 3})
        assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()))
        assert floor.clock.command("start").status == "ok"
        assert wait_until(lambda: all(t.memory.last.pending_level == 1 for t in tables.values()))
        for table in tables.values():
            fold(table)  # 25/50: the blinds leave 4,975 and 5,025 at each table
            assert table.memory.last.blinds.bb == 50
        refused = floor.command("add_on", player="b0")
        assert refused.status == "error" and "the break after level 1" in (refused.reason or "")

        # The break: the tables hold, and each makes the colour-up between hands
        assert floor.clock.command("remove_time", seconds=3600).status == "ok"
        assert wait_until(lambda: floor.clock_state().on_break)
        assert wait_until(lambda: all(
            t.memory.last.colour_up is not None
            and t.memory.last.colour_up.ref == "colour-up:1" for t in tables.values()), 15)
        for table in tables.values():
            up = table.memory.last.colour_up
            assert up is not None and up.race_chips == 1 and len(up.race) == 2
            # The break's hold comes from the clock, the colour-up from the tournament: two
            # messages on two topics, in either order
            assert wait_until(lambda table=table: "break" in table.memory.last.holds)
        # The add-on, at the break that ends late registration
        player = next(v.player for v in tables["1"].memory.last.seats.values())
        seat = next(s for s, v in tables["1"].memory.last.seats.items() if v.player == player)
        before = tables["1"].memory.last.seats[seat].stack
        taken = floor.command("add_on", player=player)
        assert taken.status == "ok" and "5,000 chips to their stack" in (taken.reason or "")
        assert wait_until(lambda: tables["1"].memory.last.seats[seat].stack == before + 5_000)
        assert wait_until(lambda: floor.state().prize_pool == 6 * 10 + 10)
        state = floor.state()  # the page offers him no second add-on (the structure's one)
        assert state.add_on_per_player == 1 and state.add_ons == {player: 1}
        # The service restarted in the middle of the break: nothing twice, nothing lost
        running.restart(broker, tmp_path, SETTINGS)
        assert wait_until(lambda: floor.state().chips is not None)
        assert tables["1"].memory.last.stack_refs.count("add_on:1") == 1

        # The races: table 1's dealer lays the winner's stack with his chip; table 2's forgets
        # to hand the chip out
        up = tables["1"].memory.last.colour_up
        assert up is not None
        winner = min(up.race)
        tables["1"].feed([{"type": "chips", "zone": f"seat:{winner}",
                           "chips": [up.race[winner].keeps + 100]}])
        tables["1"].settle()
        assert wait_until(lambda: (c := floor.state().chips) is not None and c.difference == -100)
        state = floor.state()
        assert state.alerts == [] and state.colour_up is not None
        assert state.colour_up.tables == {"1": "racing", "2": "racing"}

        # The break ends: each table's next hand ends its colour-up
        assert floor.clock.command("remove_time", seconds=3600).status == "ok"
        assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()), 15)
        for table in tables.values():
            fold(table)
        assert wait_until(lambda: len(floor.state().alerts) == 1)
        (alert,) = floor.state().alerts
        hand = tables["2"].memory.last.hand
        assert (alert.table, alert.hand, alert.rule) == ("2", hand, "RULES T5")
        assert "100 chips fewer than the table should hold after the colour-up" in alert.text
        fold(tables["1"])
        fold(tables["2"])
        # (the tournament has heard both tables' last hands)
        assert wait_until(lambda: {s.player: s.stack for s in floor.state().seats} == {
            v.player: v.stack for t in tables.values() for v in t.memory.last.seats.values()})
        state = floor.state()
        assert len(state.alerts) == 1 and state.colour_up is not None
        assert state.colour_up.tables == {"1": "done", "2": "done"}
        assert state.chips is not None and state.chips.difference == -100
        assert state.chips.in_play == 6 * 5_000 + 5_000
        # The average stack is the chips the players have: not the race's chip table 2's dealer
        # never handed out (the TV clock shows it)
        assert state.chips.counted == 6 * 5_000 + 5_000 - 100
        assert state.average_stack == (6 * 5_000 + 5_000 - 100) // state.players_left
