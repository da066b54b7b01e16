"""The room's holds where two things meet, through a real Mosquitto with real tables
(docs/rules.md, "The room's holds"): hand-for-hand switched on during a break, a break that
begins in the middle of a round and a round that finishes during it, a break that ends while
hand-for-hand is on, the clock restarted after a break ended while it was down in a round, and a
table that freezes in the middle of a round (PVB 14, PVB 35a)."""

from __future__ import annotations

import contextlib
import json
import logging
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, decode
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import Structure
from tests.mqtt.helpers import LinkedTable, a_whole_tick, linked_table
from tests.room.clock.clock_helpers import Floor
from tests.room.floor.floor_helpers import FloorApi, floor_server
from tests.session.helpers import HOLE, deal, declare, three_players
from tests.venue import VenueClient, address, login
from tests.waiting import wait_until

# Long slots: the tests move the clock with remove_time (a break begins or ends at once).
LONG = Structure.model_validate({
    "name": "long", "chips": [25, 100],
    "levels": [{"sb": 25, "bb": 50, "minutes": 60}, {"sb": 50, "bb": 100, "minutes": 60},
               {"sb": 100, "bb": 200, "minutes": 60}],
    "breaks": [{"after_level": 1, "minutes": 60}, {"after_level": 2, "minutes": 60}],
})
SKIP = 3 * 3600  # seconds of remove_time: the level (or break) ends now


@contextlib.contextmanager
def room(broker: LocalBroker, tmp_path: Path, structure: Structure = LONG, tables: int = 2,
         answer_seconds: float = 5.0) -> Iterator[tuple[ClockService, Floor, list[LinkedTable]]]:
    store = ClockStore(tmp_path / "clock.db")
    clock = ClockService(address(broker), login(broker, "clock"), structure, store,
                         answer_seconds=answer_seconds).start()
    floor = Floor(broker)
    with contextlib.ExitStack() as stack:
        stack.callback(store.close)
        stack.callback(clock.close)
        stack.callback(floor.client.close)
        linked = [stack.enter_context(linked_table(broker, tmp_path / f"t{n}", table=str(n)))
                  for n in range(1, tables + 1)]
        for table in linked:
            table.feed(three_players())
            table.settle()
        assert clock.connected.wait(5)
        assert wait_until(lambda: clock.online >= {t.link.table_id for t in linked})
        yield clock, floor, linked


def shuffle(table: LinkedTable) -> bool:
    """The dealer presses the shuffle button: whether a hand began."""
    before = table.memory.last.hand
    table.feed([{"type": "shuffle"}])
    table.settle()
    return table.memory.last.hand > before


def finish(table: LinkedTable) -> None:
    """The hand in play is dealt and everyone folds to the last player."""
    table.feed(deal(HOLE))
    table.settle()
    while (state := table.memory.last).stage == "betting" and state.actor is not None:
        table.feed([declare(state.actor, "fold")])
        table.settle()
    assert table.memory.last.stage == "over"


def holds(table: LinkedTable) -> set[str]:
    return set(table.memory.last.holds)


def decided(clock: ClockService, floor: Floor, tables: list[LinkedTable]) -> None:
    """The sentinel of what the clock would do now: a whole tick of its (what it decides from
    what it knew, it has decided and sent), then a minute added by the floor, whose state the
    clock sends after whatever it asked of the tables (one connection, in order): once every
    table has taken that state, and its loop what came before, they have had all of it."""
    assert a_whole_tick(clock.loop)
    assert floor.command("add_time", seconds=60).status == "ok"
    ends_at = clock.state().ends_at
    assert ends_at is not None
    assert wait_until(lambda: all(t.link._level_ends_at == ends_at for t in tables))
    for table in tables:
        table.settle()


def released(tables: list[LinkedTable]) -> int:
    """The hand-for-hand round the tables were released for (the same at each): the floor's
    copy of the clock's state may come after the tables' release."""
    rounds = {t.memory.last.released_round for t in tables}
    assert len(rounds) == 1 and None not in rounds, rounds
    (number,) = rounds
    assert number is not None
    return number


def one_hand_each(floor: Floor, tables: list[LinkedTable], number: int) -> None:
    """Hand-for-hand round ``number`` (PVB 35a): each table deals one hand of it, and then
    waits. A table the round still waits for refuses the shuffle; the round's last table
    finishing releases the next round at once (the clock may be quicker than any dealer), so
    its next hand, whenever it comes, is of the next round, never a second of this one."""
    for k, table in enumerate(tables):
        assert shuffle(table)
        assert table.memory.last.played_round == number
        finish(table)
        if k < len(tables) - 1:
            assert not shuffle(table) and holds(table) == {"hand_for_hand"}
    assert wait_until(lambda: floor.state().round == number + 1)
    assert wait_until(lambda: all(t.memory.last.released_round == number + 1 for t in tables))
    assert all(t.memory.last.played_round == number for t in tables)


def test_pvb_14_35a_hand_for_hand_switched_on_during_a_break_deals_nothing_until_it_ends(
        broker: LocalBroker, tmp_path: Path) -> None:
    with room(broker, tmp_path) as (clock, floor, tables):
        assert floor.command("start").status == "ok"
        assert floor.command("remove_time", seconds=SKIP).status == "ok"  # the break
        assert wait_until(lambda: all(holds(t) == {"break"} for t in tables))
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert wait_until(lambda: all(holds(t) == {"break", "hand_for_hand"} or (
            "break" in holds(t) and t.memory.last.released_round) for t in tables))
        decided(clock, floor, tables)  # whatever the clock does with the round, the break
        assert not any(shuffle(t) for t in tables)  # holds the tables
        assert all(t.memory.last.hand == 0 for t in tables)
        assert floor.command("remove_time", seconds=SKIP).status == "ok"  # the break ends
        assert wait_until(lambda: all(t.memory.last.released_round for t in tables))
        one_hand_each(floor, tables, released(tables))


def test_pvb_14_35a_a_round_that_finishes_during_a_break_waits_for_its_end(
        broker: LocalBroker, tmp_path: Path) -> None:
    """The break begins while table 2 plays the round's hand; it finishes during the break:
    the next round is not dealt until the break is over, and then the round goes on (the
    break's end used to clear the tables' hand-for-hand hold and the round stuck)."""
    with room(broker, tmp_path) as (clock, floor, (one, two)):
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert floor.command("start").status == "ok"
        assert wait_until(lambda: all(t.memory.last.released_round for t in (one, two)))
        first = released([one, two])
        assert shuffle(one) and shuffle(two)
        finish(one)
        assert floor.command("remove_time", seconds=SKIP).status == "ok"  # the break begins
        assert wait_until(lambda: "break" in holds(one) and "break" in holds(two))
        finish(two)  # the round's last hand, during the break
        assert wait_until(lambda: floor.state().waiting == [])
        decided(clock, floor, [one, two])
        assert not shuffle(one) and not shuffle(two)
        assert floor.state().round == first  # the next round waits for the end of the break
        assert floor.command("remove_time", seconds=SKIP).status == "ok"  # the break ends
        assert wait_until(lambda: floor.state().round == first + 1)
        assert wait_until(lambda: all(holds(t) == set() for t in (one, two)))
        one_hand_each(floor, [one, two], first + 1)


def test_a_clock_down_while_a_break_ended_in_hand_for_hand_resumes_the_round(
        broker: LocalBroker, tmp_path: Path) -> None:
    """Killed during a break in hand-for-hand, started again after the break should have
    ended: the break ends at once and the round it held goes on."""
    short = Structure.model_validate({
        "name": "short", "chips": [25, 100],
        "levels": [{"sb": 25, "bb": 50, "minutes": 60}, {"sb": 50, "bb": 100, "minutes": 60}],
        "breaks": [{"after_level": 1, "minutes": 0.05}]})
    with room(broker, tmp_path, short) as (clock, floor, (one, two)):
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert floor.command("start").status == "ok"
        assert wait_until(lambda: all(t.memory.last.released_round for t in (one, two)))
        first = released([one, two])
        assert floor.command("remove_time", seconds=SKIP).status == "ok"  # a 3-second break
        assert wait_until(lambda: "break" in holds(one) and "break" in holds(two))
        on_break = clock.state()
        ends_at = on_break.ends_at
        assert on_break.status == "on_break" and ends_at is not None
        clock.close()
        assert wait_until(lambda: time.time() > ends_at + 0.3, 10)  # the break is over, and
        assert "break" in holds(one) and not shuffle(one)  # nobody said so
        again = ClockService(address(broker), login(broker, "clock"), short,
                             clock.store).start()
        try:
            assert wait_until(lambda: holds(one) == set() and holds(two) == set())
            one_hand_each(floor, [one, two], first)  # the round released before the break
        finally:
            again.close()


def test_pvb_35a_a_frozen_table_is_named_late_and_the_floor_lets_the_round_go_on(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A table whose process stops (not crashed: the broker still has it online) holds the
    round: within the clock's answer time its state names the table late, the log says so at
    WARNING, and the floor gets an alert; release_table lets the round go on without it (it
    used to wait for the broker's keepalive, about 16 s each round, with no reason shown)."""
    caplog.set_level(logging.WARNING)
    with room(broker, tmp_path, answer_seconds=1.5) as (_clock, floor, (one, two)):
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert wait_until(lambda: all(t.memory.last.released_round for t in (one, two)))
        first = released([one, two])
        two.link._sync_stop.set()  # frozen: no time requests, no messages taken or sent
        two.link._client.loop_stop()
        frozen_at = time.monotonic()
        assert shuffle(one)
        finish(one)
        assert wait_until(lambda: floor.state().late == ["2"], 8)
        assert time.monotonic() - frozen_at < 6  # the clock's answer time, not the keepalive
        state = floor.state()
        assert state.waiting == ["2"] and "2" in state.heard and "2" in state.silent
        assert "table 2 holds hand-for-hand round" in caplog.text
        # From here the floor server is the floor (one "floor" login at a time on a broker);
        # the clock's state is watched as a display sees it
        floor.client.close()
        watch = VenueClient(broker, "display", ("clock/state",))

        def clock_state() -> ClockState:
            assert watch.wait(lambda ms: bool(ms))
            return decode(ClockState, watch.on("state")[-1].payload)

        with floor_server(broker, tmp_path / "floor") as server:
            def snapshot() -> dict[str, Any]:
                with urllib.request.urlopen(f"{server.url}/api/snapshot", timeout=5) as response:
                    taken: dict[str, Any] = json.loads(response.read())
                return taken

            # (the floor server takes the clock's retained state as it starts)
            assert wait_until(lambda: any(a["kind"] == "round" for a in snapshot()["alerts"]))
            taken = snapshot()
            alerts = [a for a in taken["alerts"] if a["kind"] == "round"]
            assert [a["table"] for a in alerts] == ["2"] and alerts[0]["rule"] == "PVB 35a"
            assert alerts[0]["severity"] == "urgent"
            card = next(t for t in taken["tables"] if t["table"] == "2")
            assert any("not answering" in reason["text"] for reason in card["attention"])
            api = FloorApi(server.url)
            assert api.command("clock", "release_table", table="2")["status"] == "ok"
            assert wait_until(lambda: clock_state().round == first + 1)
            assert clock_state().playing == ["1"]  # the silent table sits the round out
            assert wait_until(lambda: one.memory.last.released_round == first + 1)
            assert shuffle(one) and one.memory.last.played_round == first + 1
        watch.close()
