"""The clock on a real broker: the floor's commands answered with their correlation
data, the retained state with the level's end instant, a restart that resumes the same instant,
and a table that takes the clock's level from its next hand (RULES H2)."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import SecretStr

from controller.mqtt.local_broker import LocalBroker, free_port
from controller.mqtt.messages import (
    CommandReply,
    StateMessage,
    TournamentState,
    decode,
    encode,
)
from controller.mqtt.topics import Topics
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from tests.mqtt.helpers import linked_table
from tests.room.clock.clock_helpers import ROOT, TURBO, Floor, quick_hand
from tests.room.service_process import clock_config, kill, run_service
from tests.session.helpers import HOLE, deal, declare, seat, three_players
from tests.venue import Received, VenueClient, address, login
from tests.waiting import wait_until


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


def test_hostile_payloads_are_answered_with_their_reason(broker: LocalBroker,
                                                          clock: ClockService) -> None:
    """A command nested 100,000 deep, a number of 5,000 digits, NaN, bytes that are not UTF-8:
    each answered with its reason, and the clock still works after them."""
    floor = Floor(broker)
    hostile = [(b"[" * 100_000, "nested 100000 levels deep"),
               (b'{"v": 1, "id": "x1", "args": {"n": ' + b"9" * 5000 + b"}}", "5000 digits"),
               (b'{"v": 1, "id": "x2", "args": {"n": NaN}}', "NaN is not a number"),
               (b"\xff\xfe{}", "not UTF-8")]
    try:
        for k, (payload, reason) in enumerate(hostile):
            correlation = f"h-{k}".encode()
            assert not floor.client.publish(floor.topics.clock("cmd/pause"), payload,
                                            correlation).is_failure
            assert floor.client.wait(lambda ms, c=correlation: any(
                m.correlation == c for m in ms))
            found = next(m for m in floor.client.on("reply") if m.correlation == correlation)
            reply = decode(CommandReply, found.payload)
            assert reply.status == "error" and reason in (reply.reason or ""), reply
        assert clock.clock.position.status == "not_started"
        assert floor.command("start").status == "ok"  # and the clock goes on working
    finally:
        floor.client.close()


def test_a_command_published_retained_while_the_clock_listens_is_ignored(
        broker: LocalBroker, clock: ClockService) -> None:
    floor = Floor(broker)
    topic = floor.topics.clock("cmd/start")
    try:
        assert not floor.client.publish(topic, b'{"v": 1, "id": "ret-c", "args": {}}', b"rc",
                                        retain=True).is_failure
        # The floor's next command (the same subscription, after it): the clock is not started
        after = floor.command("resume")
        assert after.status == "error" and "not paused (not started)" in (after.reason or "")
        assert clock.clock.position.status == "not_started"
        assert not [m for m in floor.client.on("reply") if m.correlation == b"rc"]
    finally:
        floor.client.publish(topic, b"", retain=True)
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
        reused = floor.command("pause", command_id="go-1")  # the same id, another command
        assert reused.status == "error" and "already used for 'start'" in (reused.reason or "")
        assert clock.clock.position.status == "running"  # not paused
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


def test_h2_a_level_change_mid_hand_applies_from_the_next_shuffle_and_the_records_say_so(
        broker: LocalBroker, clock: ClockService, tmp_path: Path) -> None:
    """RULES H2 (PVB 14(2)): the floor jumps the clock to level 5 while the table is in the
    middle of hand 1: hand 1 plays on at its blinds, hand 2 starts at level 5, and each sealed
    record names the level it was played at."""
    floor = Floor(broker)
    try:
        with linked_table(broker, tmp_path / "table") as table:
            table.feed(three_players())
            floor.command("start")  # level 1 is 25/50 on the clock, 50/100 in the table's
            assert wait_until(lambda: table.memory.last.pending_level == 1)  # own configuration
            hand = quick_hand()
            table.feed(hand[:1 + len(deal(HOLE))])  # hand 1 is dealt, nobody has acted
            table.settle()
            floor.command("set_level", level=5)  # 200/400, big blind ante 400
            assert wait_until(lambda: table.memory.last.pending_level == 5)
            state = table.memory.last
            assert state.level == 1 and state.blinds.bb == 50 and state.stage == "betting"
            table.feed([*hand[1 + len(deal(HOLE)):], {"type": "shuffle"}])  # hand 1 ends
            table.settle()
            state = table.memory.last
            assert state.hand == 2 and state.level == 5
            assert (state.blinds.sb, state.blinds.bb, state.blinds.bb_ante) == (200, 400, 400)
            table.feed([*deal({3: "KdKh", 1: "7c2d", 2: "AsAh"}), declare(2, "fold"),
                        declare(3, "fold"), {"type": "shuffle"}])  # the third press seals it
            table.settle()
            levels = [(r.hand, r.level, r.blinds.bb) for r in table.memory.records]
            assert levels == [(1, 1, 50), (2, 5, 400)]
    finally:
        floor.client.close()


def test_pokertable_clock_runs_from_its_configuration_and_stops_cleanly(
        broker: LocalBroker, tmp_path: Path) -> None:
    config = clock_config(broker, tmp_path, ROOT / "deploy" / "structures" / "turbo.toml")
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
    config = clock_config(broker, tmp_path, ROOT / "deploy" / "structures" / "turbo.toml")
    floor = Floor(broker)

    status = VenueClient(broker, "display", ("clock/status",))

    def said(online: str) -> bool:  # the clock's latest word on clock/status
        return bool(status.messages) and online.encode() in status.messages[-1].payload

    try:
        clock = run_service(floor, "clock", config)
        assert wait_until(lambda: said('"online"'))
        assert floor.command("start").status == "ok"
        assert floor.command("set_level", level=3).status == "ok"
        assert floor.command("hand_for_hand", on=True).status == "ok"
        assert wait_until(lambda: floor.state().hand_for_hand)
        before = floor.state()
        kill(clock)
        assert wait_until(lambda: said('"offline"'), 30)  # its Last Will: the floor knows
        clock = run_service(floor, "clock", config)
        assert wait_until(lambda: said('"online"'))
        after = floor.state()
        assert (after.status, after.level, after.ends_at) == ("running", 3, before.ends_at)
        assert (after.hand_for_hand, after.round) == (True, before.round)
        assert floor.command("pause").status == "ok"
        assert wait_until(lambda: floor.state().status == "paused")
        paused, down = floor.state(), time.monotonic()
        kill(clock)
        clock = run_service(floor, "clock", config)
        again = floor.state()
        # A paused clock loses no time while it is down (for the restart's time: the time
        # left is a float, not rounded)
        assert time.monotonic() - down > 0.2
        assert (again.status, again.level, again.remaining) == ("paused", 3, paused.remaining)
        clock.send_signal(signal.SIGTERM)
        assert clock.wait(20) == 0
        assert said('"offline"')  # a clean stop says it too
    finally:
        status.close()
        floor.client.close()


def test_a_clock_configuration_mistake_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "clock.toml"
    config.write_text('[clock]\nstructure = "nowhere.toml"\n\n[mqtt]\nvenue = "hall"\n'
                      'credentials = "credentials.json"\n')
    done = subprocess.run([sys.executable, "-m", "controller.cli", "clock", "--config",
                           str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "nowhere.toml" in done.stderr


def test_a_table_whose_wall_clock_is_90_s_wrong_shows_the_right_time_left(
        broker: LocalBroker, clock: ClockService, tmp_path: Path) -> None:
    """NTP-style over MQTT: the table asks, the clock answers with its receive and
    send times, the table keeps the offset of the exchange with the smallest round trip; its
    state says the offset, the round trip and the level's time left on the clock's time."""
    floor = Floor(broker)
    skew = 90.0
    try:
        floor.command("start")
        with linked_table(broker, tmp_path / "table",
                          clock=lambda: time.time() - skew) as table:
            assert wait_until(lambda: table.link.clock_offset is not None, 10)
            offset, rtt = table.link.clock_offset, table.link.clock_rtt
            assert offset is not None and rtt is not None and 0 <= rtt < 1.0
            # NTP's bound, whatever the machine's load: the offset is off by at most half the
            # round trip of the exchange it comes from (a fixed 50 ms failed on a busy host)
            assert abs(offset - skew) <= rtt / 2 + 0.001, (offset, rtt)
            table.feed([seat(1, "ana")])  # any change: the table publishes its state
            table.settle()
            listener = VenueClient(broker, "display", ("table/1/state",))

            def seated(received: list[Received]) -> bool:  # (not an older retained state)
                return any(1 in decode(StateMessage, m.payload).state.seats for m in received)
            try:
                assert listener.wait(seated)
                message = decode(StateMessage, listener.messages[-1].payload)
            finally:
                listener.close()
            ends_at = clock.clock.position.ends_at
            assert ends_at is not None and message.level_ends_at == ends_at
            assert message.clock_offset is not None and message.clock_rtt is not None
            assert abs(message.clock_offset - skew) <= message.clock_rtt / 2 + 0.001
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
            hand = quick_hand()
            table.feed(three_players() + hand[:1 + len(deal(HOLE))])
            table.settle()
            assert floor.command("pause").status == "ok"
            assert wait_until(lambda: floor.state().status == "paused")
            paused = floor.state().remaining
            assert paused is not None
            # The table hears the clock on its own subscription, maybe after the floor did
            assert wait_until(lambda: table.link._level_paused_left == paused)
            frozen = left_after(hand[-3])  # the button raises: the hand goes on
            assert frozen == pytest.approx(paused, abs=0.01)
            assert floor.command("add_time", seconds=60).status == "ok"
            assert wait_until(lambda: floor.state().remaining == pytest.approx(paused + 60))
            assert wait_until(lambda: table.link._level_paused_left == floor.state().remaining)
            time.sleep(0.3)  # paused: no time passes
            assert left_after(hand[-2]) == pytest.approx(paused + 60, abs=0.01)
            assert floor.command("resume").status == "ok"
            assert wait_until(lambda: floor.state().status == "running")
            assert wait_until(lambda: table.link._level_ends_at == floor.state().ends_at)
            time.sleep(0.3)
            running = left_after(hand[-1])  # the last fold: the hand is over
            assert paused + 60 - 2.0 < running < paused + 60 - 0.25
            state = table.memory.last
            assert state.stage in ("over", "waiting") and state.level == 1
    finally:
        listener.close()
        floor.client.close()


def test_the_clock_says_when_the_broker_is_unreachable_or_refuses_its_login(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Loud when wrong: it waited silently. A wrong port: a WARNING naming the address within
    seconds; a wrong password: an ERROR with the broker's reason."""
    caplog.set_level(logging.WARNING)
    nowhere = address(broker).model_copy(update={"port": free_port()})
    store = ClockStore(tmp_path / "a.db")
    lost = ClockService(nowhere, login(broker, "clock"), TURBO, store).start()
    try:
        wait_until(lambda: "cannot reach the broker" in caplog.text, 10)
        assert (f"clock: cannot reach the broker at 127.0.0.1:{nowhere.port}: nothing listens "
                "there") in caplog.text
    finally:
        lost.close()
        store.close()
    wrong = login(broker, "clock").model_copy(update={"password": SecretStr("not-it")})
    store = ClockStore(tmp_path / "b.db")
    refused = ClockService(address(broker), wrong, TURBO, store).start()
    try:
        wait_until(lambda: "refused the login" in caplog.text, 10)
        assert "clock: the broker refused the login 'clock'" in caplog.text
    finally:
        refused.close()
        store.close()


def test_the_tournaments_winner_pauses_the_clock_once(broker: LocalBroker,
                                                      tmp_path: Path) -> None:
    """The tournament over (its state names the winner): the clock pauses, journaled as the
    tournament's; the floor may resume it (a bust taken back), and the same state published
    again, or the clock restarted on it, does not pause it a second time."""
    topics = Topics(broker.plan.venue)
    store = ClockStore(tmp_path / "clock.db")
    floor = Floor(broker)
    tournament = VenueClient(broker, "tournament", topics=())
    over = TournamentState.model_validate({"v": 1, "name": "Cup", "entries": 9,
                                           "players_left": 1, "winner": "ana", "seed": 1})

    def announce(state: TournamentState) -> None:
        assert not tournament.publish(topics.service("tournament", "state"), encode(state),
                                      retain=True).is_failure

    def start() -> ClockService:
        service = ClockService(address(broker), login(broker, "clock"), TURBO, store).start()
        assert service.connected.wait(5)
        return service

    def still_running() -> None:
        """The floor's resume, sent after the tournament's state was through the broker and
        answered after the clock handled it (one thread, in the order they came), is refused:
        the clock runs."""
        refused = floor.command("resume")
        assert refused.status == "error" and "not paused (running)" in (refused.reason or ""), \
            refused

    clock = start()
    try:
        assert floor.command("start").status == "ok"
        announce(over.model_copy(update={"players_left": 2, "winner": None}))
        still_running()  # no winner yet: nothing
        announce(over)
        assert wait_until(lambda: floor.state().status == "paused")
        [paused] = [c for c in store.commands() if c["by"] == "tournament"]
        assert paused["name"] == "pause" and "ana has every chip" in paused["said"]
        assert floor.command("resume").status == "ok"
        announce(over)  # the same state again (it is published on every change)
        still_running()
        clock.close()
        clock = start()  # its retained state arrives first thing (before its SUBACK)
        still_running()
        assert len([c for c in store.commands() if c["by"] == "tournament"]) == 1
        # Next week's tournament on the same clock journal (another draw), the same winner
        announce(TournamentState.model_validate({**over.model_dump(), "seed": 2}))
        assert wait_until(lambda: clock.state().status == "paused")
    finally:
        tournament.publish(topics.service("tournament", "state"), b"", retain=True)
        clock.close()
        tournament.close()
        floor.client.close()
        store.close()
