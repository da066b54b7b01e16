"""The clock and the tables it holds, on a real broker: a break that holds three tables and
lets them play on at the next level (PVB 14), a clock that was down when the break ended, and
hand-for-hand with one slow table and one that drops offline (RULES T1, PVB 35a)."""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

from controller.mqtt.local_broker import LocalBroker
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import load_structure
from tests.mqtt.helpers import LinkedTable, a_whole_tick, linked_table
from tests.room.clock.clock_helpers import Floor, quick_hand
from tests.session.helpers import HOLE, deal, three_players
from tests.venue import address, clear_clock_state, login
from tests.waiting import wait_until

SHORT = """name = "short"
chips = [25, 100]
[[levels]]
sb = 25
bb = 50
minutes = 0.02
[[levels]]
sb = 100
bb = 200
minutes = 30
[[breaks]]
after_level = 1
minutes = 0.08
colour_up = [25]
"""


def test_a_break_holds_three_tables_and_play_resumes_at_the_next_level(
        broker: LocalBroker, tmp_path: Path) -> None:
    """PVB 14: at the break every table finishes its hand and then refuses the
    shuffle, with the colour-up in its state; at the end of the break all three play on at the
    next level. Table 1 is in the middle of a hand when the break begins. The break lasts
    as long as the test's presses take on a loaded machine; then the clock's time (the test's)
    moves on to the break's end, and the clock's own tick ends it."""
    structure_file = tmp_path / "short.toml"
    structure_file.write_text(SHORT.replace("minutes = 0.08", "minutes = 0.5"))  # 30 s
    clear_clock_state(broker)
    store = ClockStore(tmp_path / "clock.db")
    ahead = [0.0]  # the clock's time: the wall clock's, and this many seconds more
    clock = ClockService(address(broker), login(broker, "clock"),
                         load_structure(structure_file), store,
                         now=lambda: time.time() + ahead[0])
    floor = Floor(broker)
    try:
        with linked_table(broker, tmp_path / "one", table="1") as one, \
                linked_table(broker, tmp_path / "two", table="2") as two, \
                linked_table(broker, tmp_path / "three", table="3") as three:
            tables = (one, two, three)
            for table in tables:
                table.feed(three_players())
            clock.start()
            assert clock.connected.wait(5) and wait_until(lambda: clock.online >= {"1", "2", "3"})
            hand = quick_hand()
            one.feed(hand[:1 + len(deal(HOLE))])  # table 1's hand runs into the break
            one.settle()
            floor.command("start")
            assert wait_until(lambda: all((t.memory.last.hold or "").startswith("break")
                                          for t in tables), 10)
            assert all("colour up the 25 chips" in (t.memory.last.hold or "") for t in tables)
            assert one.memory.last.stage == "betting"  # the hand in progress is played out
            one.feed(hand[1 + len(deal(HOLE)):])
            for table in tables:
                table.feed([{"type": "shuffle"}])
                table.settle()
            for table, hands in zip(tables, (1, 0, 0), strict=True):
                state = table.memory.last  # the press was refused: the break is shown
                assert state.hand == hands
                assert state.waiting_for.startswith("the break: wait for the clock")
            on_break = clock.state()
            assert on_break.status == "on_break" and on_break.ends_at is not None
            ahead[0] = on_break.ends_at - time.time() + 0.1  # the break is over
            assert wait_until(lambda: all(t.memory.last.hold is None for t in tables), 20)
            for table, hands in zip(tables, (2, 1, 1), strict=True):
                table.feed([{"type": "shuffle"}])
                table.settle()
                state = table.memory.last
                assert state.hand == hands and state.level == 2 and state.blinds.bb == 200
    finally:
        floor.client.close()
        clock.close()
        store.close()


def test_a_clock_down_when_the_break_ended_releases_the_tables_when_it_is_back(
        broker: LocalBroker, tmp_path: Path) -> None:
    """The clock stops during a break and starts again after the break should have ended: it
    resumes at the next level and the tables, still held for the break, are released (they
    stayed held until a person noticed)."""
    structure_file = tmp_path / "short.toml"
    structure_file.write_text(SHORT.replace("minutes = 0.08", "minutes = 0.05"))  # 3 s
    clear_clock_state(broker)
    store = ClockStore(tmp_path / "clock.db")
    clock = ClockService(address(broker), login(broker, "clock"),
                         load_structure(structure_file), store)
    floor = Floor(broker)
    try:
        with linked_table(broker, tmp_path / "one", table="1") as one:
            one.feed(three_players())
            clock.start()
            assert clock.connected.wait(5) and wait_until(lambda: "1" in clock.online)
            floor.command("start")
            assert wait_until(lambda: (one.memory.last.hold or "").startswith("break"), 10)
            on_break = clock.state()
            ends_at = on_break.ends_at
            assert on_break.status == "on_break" and ends_at is not None
            clock.close()  # down for the rest of the break, and more
            assert wait_until(lambda: time.time() > ends_at + 0.3, 10)
            assert (one.memory.last.hold or "").startswith("break")  # nobody released it
            one.feed([{"type": "shuffle"}])
            one.settle()
            assert one.memory.last.hand == 0  # and the table still waits
            clock = ClockService(address(broker), login(broker, "clock"),
                                 load_structure(structure_file), store).start()
            assert wait_until(lambda: one.memory.last.hold is None, 10)
            one.feed([{"type": "shuffle"}])
            one.settle()
            assert one.memory.last.hand == 1 and one.memory.last.blinds.bb == 200
    finally:
        floor.client.close()
        clock.close()
        store.close()


def _drop(table: LinkedTable) -> None:
    """The table's network goes: its connection ends without a word (the broker publishes its
    Last Will, offline), and the table stops."""
    table.link._sync_stop.set()
    table.link._client.loop_stop()
    sock = table.link._client.socket()
    assert sock is not None
    sock.shutdown(socket.SHUT_RDWR)
    table.link.connected.clear()
    table.link.close()
    table.service.close()
    table.outbox.close()


def test_t1_pvb_35a_hand_for_hand_with_three_tables_one_slow_one_dropping_offline(
        broker: LocalBroker, clock: ClockService, tmp_path: Path) -> None:
    """Hand-for-hand on: each table waits after its current hand; when the last has finished,
    the clock releases every table at once for one hand and counts the round. A slow table
    holds the round up until it finishes; one that drops offline does not block the room for
    ever: the state says the round waits for it, the floor releases the round without it, and
    when it comes back it waits for the next round and joins it."""
    floor = Floor(broker)
    with contextlib.ExitStack() as stack:
        stack.callback(floor.client.close)
        one, two, three = (stack.enter_context(linked_table(broker, tmp_path / name, table=n))
                           for n, name in (("1", "one"), ("2", "two"), ("3", "three")))
        for table in (one, two, three):
            table.feed(three_players())
            table.settle()
        assert wait_until(lambda: clock.online >= {"1", "2", "3"})
        one.feed(quick_hand()[:1 + len(deal(HOLE))])  # table 1 is in the middle of a hand
        one.settle()
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert wait_until(lambda: floor.state().waiting == ["1"])  # 2 and 3 were between
        assert floor.state().round == 0                            # hands: done at once
        two.feed([{"type": "shuffle"}])
        two.settle()
        assert two.memory.last.hand == 0  # held: it waits for the room
        one.feed(quick_hand()[1 + len(deal(HOLE)):])  # table 1 finishes: round 1 for all three
        assert wait_until(lambda: floor.state().round == 1)
        assert wait_until(lambda: all(t.memory.last.hold is None for t in (one, two, three)))
        assert all(t.memory.last.round == 1 for t in (one, two, three))  # RULES T2

        # Round 1: table 1 is quick, table 3 slow, table 2 starts its hand and drops offline.
        two.feed(quick_hand()[:3])
        two.settle()
        one.feed(quick_hand())
        three.feed(quick_hand()[:3])
        assert wait_until(lambda: floor.state().waiting == ["2", "3"])
        assert a_whole_tick(clock.loop)  # the slow table: the round waits for it
        assert (clock.state().round, clock.state().waiting) == (1, ["2", "3"])
        assert floor.state().round == 1 and one.memory.last.hold is not None
        three.feed(quick_hand()[3:])
        assert wait_until(lambda: floor.state().waiting == ["2"])
        _drop(two)
        assert wait_until(lambda: "2" not in clock.online)
        assert floor.state().round == 1  # an offline table still holds the round up ...
        refused = floor.command("release_table", table="9")
        assert refused.status == "error" and "does not wait for table '9'" in (
            refused.reason or "")
        assert floor.command("release_table", table="2").status == "ok"  # ... until the floor
        assert wait_until(lambda: floor.state().round == 2)
        assert floor.state().waiting == ["1", "3"]

        # Table 2 comes back in the middle of round 2: it finishes its hand, then waits for
        # round 3, which includes it.
        two = stack.enter_context(linked_table(broker, tmp_path / "two", table="2"))
        assert wait_until(lambda: "2" in clock.online)
        assert two.memory.last.stage == "betting"  # its hand, recovered from the journal
        two.feed(quick_hand()[3:])
        two.settle()
        assert wait_until(lambda: two.memory.last.hold is not None)
        for table in (one, three):
            table.feed(quick_hand())
        assert wait_until(lambda: floor.state().round == 3)
        assert floor.state().waiting == ["1", "2", "3"]
        assert wait_until(lambda: all(t.memory.last.hold is None for t in (one, two, three)))
        assert two.memory.last.round == 3
        # Hand-for-hand over: released for one hand, each table now plays on after it.
        assert floor.command("hand_for_hand", on=False).status == "ok"
        assert wait_until(lambda: all(any(e.text == "the table may shuffle the next hand"
                                          for e in t.memory.events) for t in (one, two, three)))
        for table, hands in ((one, 4), (two, 2), (three, 3)):
            table.feed(quick_hand())
            table.settle()
            assert table.memory.last.hand == hands and table.memory.last.hold is None
