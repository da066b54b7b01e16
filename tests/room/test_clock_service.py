"""The clock on a real broker (issue 17): the floor's commands answered with their correlation
data, the retained state with the level's end instant, a restart that resumes the same instant,
and a table that takes the clock's level from its next hand (RULES H2)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, CommandReply, StateMessage, decode
from controller.mqtt.topics import Topics
from controller.room.clock_service import ClockService, ClockStore
from controller.room.structure import load_structure
from tests.mqtt.helpers import linked_table, wait_until
from tests.session.helpers import HOLE, deal, declare, seat, three_players
from tests.venue import VenueClient, address, login

ROOT = Path(__file__).resolve().parents[2]
TURBO = load_structure(ROOT / "deploy" / "structures" / "turbo.toml")


class Floor:
    """The floor's side: sends clock commands, reads the replies and the clock's state."""

    def __init__(self, broker: LocalBroker) -> None:
        self.client = VenueClient(broker, "floor", ("clock/reply", "clock/state"))
        self.topics = Topics(broker.plan.venue)
        self.sent = 0

    def command(self, name: str, command_id: str | None = None, **args: object) -> CommandReply:
        self.sent += 1
        correlation = f"c-{self.sent}".encode()
        payload = {"v": 1, "id": command_id or f"clock-cmd-{time.monotonic_ns()}",
                   "by": "floor:anna", "args": args}
        assert not self.client.publish(self.topics.clock(f"cmd/{name}"),
                                       json.dumps(payload).encode(), correlation).is_failure
        assert self.client.wait(lambda ms: any(m.correlation == correlation for m in ms))
        found = next(m for m in self.client.on("reply") if m.correlation == correlation)
        return decode(CommandReply, found.payload)

    def state(self) -> ClockState:
        assert self.client.wait(lambda ms: any(m.topic.endswith("/clock/state") for m in ms))
        return decode(ClockState, self.client.on("state")[-1].payload)


@pytest.fixture
def clock(broker: LocalBroker, tmp_path: Path) -> Iterator[ClockService]:
    store = ClockStore(tmp_path / "clock.db")
    service = ClockService(address(broker), login(broker, "clock"), TURBO, store).start()
    assert service.connected.wait(5)
    yield service
    service.close()
    store.close()


def test_start_pause_resume_and_added_time_through_the_broker(broker: LocalBroker,
                                                              clock: ClockService) -> None:
    floor = Floor(broker)
    try:
        before = time.time()
        reply = floor.command("start")
        assert reply.status == "ok" and "level 1" in (reply.reason or "")
        state = floor.state()
        assert (state.status, state.level, state.sb, state.bb) == ("running", 1, 25, 50)
        assert state.ends_at is not None and before + 899 < state.ends_at < time.time() + 901
        assert state.next_level == 2 and state.next_break_at == pytest.approx(
            state.ends_at + 3 * 900)
        assert floor.command("pause").status == "ok"
        assert wait_until(lambda: floor.state().status == "paused")
        paused = floor.state()
        assert paused.ends_at is None and paused.remaining is not None and paused.remaining > 890
        assert floor.command("add_time", seconds=60).status == "ok"
        assert wait_until(lambda: (floor.state().remaining or 0) > 950)
        assert floor.command("resume").status == "ok"
        assert wait_until(lambda: floor.state().status == "running")
    finally:
        floor.client.close()


def test_bad_and_repeated_commands(broker: LocalBroker, clock: ClockService) -> None:
    floor = Floor(broker)
    try:
        refused = floor.command("resume")
        assert refused.status == "error" and "not paused" in (refused.reason or "")
        assert floor.command("set_level", level=99).status == "error"
        assert floor.command("explode").status == "error"
        assert clock.clock.position.status == "not_started"  # nothing changed
        first = floor.command("start", command_id="go-1")
        again = floor.command("start", command_id="go-1")
        assert first.status == again.status == "ok"
        assert "already applied" in (again.reason or "")
    finally:
        floor.client.close()


def test_a_restarted_clock_resumes_the_same_instant(broker: LocalBroker, tmp_path: Path) -> None:
    store = ClockStore(tmp_path / "clock.db")
    first = ClockService(address(broker), login(broker, "clock"), TURBO, store).start()
    floor = Floor(broker)
    try:
        assert first.connected.wait(5)
        floor.command("start")
        floor.command("set_level", level=3)
        ends_at = first.clock.position.ends_at
        first._client.disconnect()  # killed: no orderly stop, only what the journal holds
        first._client.loop_stop()
        store.close()
        again_store = ClockStore(tmp_path / "clock.db")
        again = ClockService(address(broker), login(broker, "clock"), TURBO,
                             again_store).start()
        try:
            assert again.connected.wait(5)
            assert again.clock.position.ends_at == ends_at
            assert again.clock.level_slot().level == 3
        finally:
            again.close()
            again_store.close()
    finally:
        floor.client.close()


def test_h2_a_table_takes_the_clocks_level_from_its_next_hand(broker: LocalBroker,
                                                              clock: ClockService,
                                                              tmp_path: Path) -> None:
    floor = Floor(broker)
    try:
        with linked_table(broker, tmp_path / "table") as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            floor.command("start")
            floor.command("set_level", level=5)  # 200/400, big blind ante 400
            assert wait_until(lambda: table.memory.last.pending_level == 5
                              or table.memory.last.level == 5)
            table.feed([{"type": "shuffle"}])
            table.settle()
            state = table.memory.last
            assert state.level == 5 and (state.blinds.sb, state.blinds.bb) == (200, 400)
            assert state.blinds.bb_ante == 400
    finally:
        floor.client.close()


def test_pokertable_clock_runs_from_its_configuration_and_stops_cleanly(
        broker: LocalBroker, tmp_path: Path) -> None:
    config = _clock_config(broker, tmp_path, ROOT / "deploy" / "structures" / "turbo.toml")
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "clock", "--config",
                                str(config)], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    floor = Floor(broker)
    try:
        # The clock says its state when it connects (live, not the retained copy an earlier
        # clock of this broker left): then it listens.
        assert wait_until(lambda: any(m.topic.endswith("/clock/state") and not m.retain
                                      for m in floor.client.messages), 20)
        assert floor.command("start").status == "ok"
        assert wait_until(lambda: floor.state().status == "running")
    finally:
        floor.client.close()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr[-2000:]
    assert (tmp_path / "clock.db").stat().st_mode & 0o077 == 0


def test_the_clock_sigkilled_mid_level_comes_back_to_the_same_instant_pause_and_round(
        broker: LocalBroker, tmp_path: Path) -> None:
    """The clock process killed outright (SIGKILL: no orderly stop) and started again resumes
    from its journal: the same level with the same end instant, hand-for-hand with the same
    round; killed while paused, the same time left."""
    config = _clock_config(broker, tmp_path, ROOT / "deploy" / "structures" / "turbo.toml")
    floor = Floor(broker)

    def run_clock() -> subprocess.Popen[str]:
        seen = len(floor.client.messages)
        process = subprocess.Popen([sys.executable, "-m", "controller.cli", "clock",
                                    "--config", str(config)], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   text=True)
        assert wait_until(lambda: any(m.topic.endswith("/clock/state") and not m.retain
                                      for m in floor.client.messages[seen:]), 20)
        return process

    def kill(process: subprocess.Popen[str]) -> None:
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    try:
        clock = run_clock()
        assert floor.command("start").status == "ok"
        assert floor.command("set_level", level=3).status == "ok"
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert wait_until(lambda: floor.state().hand_for_hand)
        before = floor.state()
        kill(clock)
        clock = run_clock()
        after = floor.state()
        assert (after.status, after.level, after.ends_at) == ("running", 3, before.ends_at)
        assert (after.hand_for_hand, after.round) == (True, before.round)
        assert floor.command("pause").status == "ok"
        assert wait_until(lambda: floor.state().status == "paused")
        paused = floor.state()
        time.sleep(1.0)  # a paused clock loses no time while it is down
        kill(clock)
        clock = run_clock()
        again = floor.state()
        assert (again.status, again.level, again.remaining) == ("paused", 3, paused.remaining)
        clock.send_signal(signal.SIGTERM)
        assert clock.wait(20) == 0
    finally:
        floor.client.close()


def _clock_config(broker: LocalBroker, tmp_path: Path, structure: Path) -> Path:
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"clock": broker.credentials["clock"].model_dump()}))
    config = tmp_path / "clock.toml"
    config.write_text(f'[clock]\nstructure = "{structure}"\ndb = "clock.db"\n\n'
                      f'[mqtt]\nport = {broker.port}\nvenue = "{broker.plan.venue}"\n'
                      'credentials = "credentials.json"\n')
    return config


def test_a_clock_configuration_mistake_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "clock.toml"
    config.write_text('[clock]\nstructure = "nowhere.toml"\n\n[mqtt]\nvenue = "hall"\n'
                      'credentials = "credentials.json"\n')
    done = subprocess.run([sys.executable, "-m", "controller.cli", "clock", "--config",
                           str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "nowhere.toml" in done.stderr


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
minutes = 0.04
colour_up = [25]
"""


def test_a_break_holds_the_tables_and_play_resumes_at_the_next_level(
        broker: LocalBroker, tmp_path: Path) -> None:
    """Issue 17: at the break every table finishes its hand and then refuses the shuffle, with
    the colour-up in its state; at the end of the break it plays on at the next level."""
    structure_file = tmp_path / "short.toml"
    structure_file.write_text(SHORT)
    store = ClockStore(tmp_path / "clock.db")
    clock = ClockService(address(broker), login(broker, "clock"),
                         load_structure(structure_file), store)
    floor = Floor(broker)
    try:
        with linked_table(broker, tmp_path / "table") as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            clock.start()
            assert clock.connected.wait(5) and wait_until(lambda: "1" in clock.online)
            floor.command("start")
            assert wait_until(lambda: (table.memory.last.hold or "").startswith("break"), 10)
            assert "colour up the 25 chips" in (table.memory.last.hold or "")
            table.feed([{"type": "shuffle"}])
            table.settle()
            state = table.memory.last  # the press was refused: no hand, the break shown
            assert state.hand == 0 and state.waiting_for.startswith("the break: wait for the clock")
            assert wait_until(lambda: table.memory.last.hold is None, 10)  # the break is over
            table.feed([{"type": "shuffle"}])
            table.settle()
            assert table.memory.last.hand == 1
            assert table.memory.last.level == 2 and table.memory.last.blinds.bb == 200
    finally:
        floor.client.close()
        clock.close()
        store.close()


def _hand() -> list[dict[str, object]]:
    """One quick hand at a three-player table: dealt, the button raises, both blinds fold."""
    return [{"type": "shuffle"}, *deal(HOLE), declare(1, "raise", 300), declare(2, "fold"),
            declare(3, "fold")]


def test_t1_pvb_35a_hand_for_hand_rounds_across_tables(broker: LocalBroker, clock: ClockService,
                                                       tmp_path: Path) -> None:
    """Hand-for-hand on: each table waits after its current hand; when the last has finished,
    the clock releases every table at once for one hand, and counts the round. A table that
    cannot finish (offline, stuck) does not block the room: the floor releases the round
    without it."""
    floor = Floor(broker)
    try:
        with linked_table(broker, tmp_path / "one", table="1") as one, \
                linked_table(broker, tmp_path / "two", table="2") as two:
            for table in (one, two):
                table.feed(three_players())
                table.settle()
            assert wait_until(lambda: clock.online >= {"1", "2"})
            one.feed(_hand()[:1 + len(deal(HOLE))])  # table 1 is in the middle of a hand
            one.settle()
            assert floor.command("hand_for_hand", on=True).status == "ok"
            assert wait_until(lambda: floor.state().waiting == ["1"])  # table 2 was between
            assert floor.state().round == 0                              # hands: done at once
            two.feed([{"type": "shuffle"}])
            two.settle()
            assert two.memory.last.hand == 0  # held: it waits for the room
            one.feed(_hand()[1 + len(deal(HOLE)):])  # table 1 finishes: round 1 for both
            assert wait_until(lambda: floor.state().round == 1)
            assert wait_until(lambda: one.memory.last.hold is None and two.memory.last.hold
                              is None)
            assert (one.memory.last.round, two.memory.last.round) == (1, 1)  # RULES T2
            for table in (one, two):
                table.feed(_hand())  # one hand each, then each waits again
                table.settle()
            assert wait_until(lambda: floor.state().round == 2)
            assert (one.memory.last.hand, two.memory.last.hand) == (2, 1)
            # Round 2: table 2 starts its hand and goes silent; the floor lets the round go on.
            assert wait_until(lambda: one.memory.last.hold is None and two.memory.last.hold
                              is None)  # both released before either shuffles
            two.feed(_hand()[:3])
            one.feed(_hand())
            assert wait_until(lambda: floor.state().waiting == ["2"])
            refused = floor.command("release_table", table="9")
            assert refused.status == "error" and "does not wait for table '9'" in (
                refused.reason or "")
            assert floor.command("release_table", table="2").status == "ok"
            assert wait_until(lambda: floor.state().round == 3)
            assert floor.command("hand_for_hand", on=False).status == "ok"
            assert wait_until(lambda: one.memory.last.hold is None)
    finally:
        floor.client.close()


def test_a_table_whose_wall_clock_is_90_s_wrong_shows_the_right_time_left(
        broker: LocalBroker, clock: ClockService, tmp_path: Path) -> None:
    """NTP-style over MQTT (issue 17): the table asks, the clock answers with its receive and
    send times, the table keeps the offset of the exchange with the smallest round trip; its
    state says the offset, the round trip and the level's time left on the clock's time."""
    floor = Floor(broker)
    skew = 90.0
    try:
        floor.command("start")
        with linked_table(broker, tmp_path / "table",
                          clock=lambda: time.time() - skew) as table:
            assert wait_until(lambda: table.link.clock_offset is not None
                              and abs(table.link.clock_offset - skew) < 0.05, 10)
            assert table.link.clock_rtt is not None and 0 <= table.link.clock_rtt < 0.05
            table.feed([seat(1, "ana")])  # any change: the table publishes its state
            table.settle()
            listener = VenueClient(broker, "display", ("table/1/state",))
            try:
                assert listener.wait(lambda ms: bool(ms))
                message = decode(StateMessage, listener.messages[-1].payload)
            finally:
                listener.close()
            ends_at = clock.clock.position.ends_at
            assert ends_at is not None and message.level_ends_at == ends_at
            assert message.clock_offset == pytest.approx(skew, abs=0.05)
            true_left = ends_at - time.time()
            assert message.level_remaining == pytest.approx(true_left, abs=1.0)
    finally:
        floor.client.close()


def test_pause_and_added_time_while_a_table_plays(broker: LocalBroker, clock: ClockService,
                                                  tmp_path: Path) -> None:
    """The floor pauses the clock and adds a minute in the middle of a hand: the hand plays
    on undisturbed, the table's state shows the frozen time left, then a minute more, then
    the clock counting down again after the resume; the level stays the hand's."""
    floor = Floor(broker)
    listener = VenueClient(broker, "display", ("table/1/state",))

    def left_after(*events: dict[str, object]) -> float:
        seen = len(listener.messages)
        table.feed(list(events))
        table.settle()
        assert listener.wait(lambda ms: len(ms) > seen)
        message = decode(StateMessage, listener.messages[-1].payload)
        assert message.level_remaining is not None
        return message.level_remaining

    try:
        floor.command("start")
        with linked_table(broker, tmp_path / "table") as table:
            assert wait_until(lambda: table.link.clock_offset is not None, 10)
            hand = _hand()
            table.feed(three_players() + hand[:1 + len(deal(HOLE))])
            table.settle()
            assert floor.command("pause").status == "ok"
            assert wait_until(lambda: floor.state().status == "paused")
            paused = floor.state().remaining
            assert paused is not None
            frozen = left_after(hand[-3])  # the button raises: the hand goes on
            assert frozen == pytest.approx(paused, abs=0.01)
            assert floor.command("add_time", seconds=60).status == "ok"
            assert wait_until(lambda: floor.state().remaining == pytest.approx(paused + 60))
            time.sleep(0.3)  # paused: no time passes
            assert left_after(hand[-2]) == pytest.approx(paused + 60, abs=0.01)
            assert floor.command("resume").status == "ok"
            assert wait_until(lambda: floor.state().status == "running")
            time.sleep(0.3)
            running = left_after(hand[-1])  # the last fold: the hand is over
            assert paused + 60 - 2.0 < running < paused + 60 - 0.25
            state = table.memory.last
            assert state.stage in ("over", "waiting") and state.level == 1
    finally:
        listener.close()
        floor.client.close()
