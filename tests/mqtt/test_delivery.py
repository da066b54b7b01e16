"""Nothing lost: a broker restart in the middle of a session and a controller killed
with a record still in its outbox; the recorder ends up with every hand record exactly once.
(This module has its own broker: it restarts it.)"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from controller.mqtt.messages import CommandReply, StatusMessage, decode
from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, SqliteRecordStore, open_record_store
from controller.table.journal import Journal
from tests.mqtt.helpers import hands_of, linked_table
from tests.session.helpers import HOLE, deal, declare, played_session, shuffle, three_players
from tests.venue import Broker, VenueClient, address, login
from tests.waiting import wait_until


def test_broker_restart_mid_session_every_record_arrives_exactly_once(
        broker: Broker, tmp_path: Path, store_location: str | Path) -> None:
    """Against both stores (SQLite, PostgreSQL)."""
    parts = hands_of(played_session(14, seed=2, players=6))
    store = open_record_store(store_location)
    recorder = Recorder(address(broker), login(broker, "recorder"), store,
                        client_id="recorder-restart").start()
    try:
        assert recorder.connected.wait(5)
        with linked_table(broker, tmp_path / "table") as table:
            for part in parts[:5]:
                table.feed(part)
            table.settle()
            assert recorder.wait_for(len(table.service.journal.records()))

            broker.stop()
            assert wait_until(lambda: not table.link.connected.is_set())
            hand_before = table.memory.last.hand
            for part in parts[5:9]:  # the table plays on without its broker
                table.feed(part)
            table.settle()
            assert table.memory.last.hand > hand_before
            assert table.outbox.count_pending() >= 2 * 4  # public and full record per hand

            broker.start()
            # The table subscribed again on reconnecting (clean start: the broker forgot it):
            # a command reaches it and is answered.
            assert wait_until(table.link.listening.is_set, 30), "no resubscription"
            floor = VenueClient(broker, "floor", ("table/1/reply",))
            floor.publish(Topics(broker.plan.venue).table("1", "cmd/hello"), b'{"v": 1, "id": "h"}',
                          correlation=b"after-restart")
            assert floor.wait(lambda ms: any(m.correlation == b"after-restart" for m in ms))
            reply = decode(CommandReply, floor.on("reply")[-1].payload)
            assert reply.status == "error" and "unknown command 'hello'" in (reply.reason or "")
            floor.close()
            for part in parts[9:]:
                table.feed(part)
            table.settle()
            sealed = table.service.journal.records()
            assert len(sealed) >= 10
            assert recorder.wait_for(len(sealed), timeout=60), "records missing after restart"
            assert wait_until(lambda: table.outbox.count_pending() == 0, 30)
        arrivals = store.arrivals()
        assert len(arrivals) == len({a[0] for a in arrivals}) == len(sealed)
        assert [r.model_dump() for r in store.records("1")] == [r.model_dump() for r in sealed]
        assert [hand for _, _, hand, _ in arrivals] == sorted(r.hand for r in sealed)  # in order
    finally:
        recorder.close()
        store.close()


def _start_controller(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "table", "--config", str(config),
         "--stdin-events"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2])


def _pending(outbox: Path) -> int:
    if not outbox.exists():
        return 0
    with sqlite3.connect(outbox) as db:
        return int(db.execute("SELECT COUNT(*) FROM outbox WHERE sent = 0").fetchone()[0])


def test_controller_sigkill_with_a_record_in_the_outbox_delivers_it_once_after_restart(
        broker: Broker, tmp_path: Path) -> None:
    config = broker.table_config(tmp_path / "pi", 1, keepalive=2)
    outbox = tmp_path / "pi" / "outbox.db"
    status = VenueClient(broker, "display", ("table/1/status",))
    store = SqliteRecordStore(tmp_path / "records.db")
    recorder = Recorder(address(broker), login(broker, "recorder"), store,
                        client_id="recorder-sigkill").start()
    controller = _start_controller(config)
    try:
        assert recorder.connected.wait(5)
        assert status.wait(lambda ms: any(
            decode(StatusMessage, m.payload).status == "online" for m in ms))
        broker.stop()
        hand = [*three_players(), shuffle(ts=1.0), *deal(HOLE), declare(1, "fold"),
                declare(2, "fold"), shuffle(ts=2.0)]  # the second press seals hand 1
        assert controller.stdin is not None
        for raw in hand:
            controller.stdin.write(json.dumps(raw) + "\n")
        controller.stdin.flush()
        assert wait_until(lambda: _pending(outbox) == 2), "the record never reached the outbox"
        controller.send_signal(signal.SIGKILL)
        controller.wait(10)

        broker.start()
        assert wait_until(recorder.connected.is_set, 30)
        assert store.ids() == []  # nobody sent it: the controller is dead
        controller = _start_controller(config)
        assert recorder.wait_for(1, timeout=30), "the record in the outbox was not delivered"
        assert wait_until(lambda: _pending(outbox) == 0, 10)
        records = store.records("1")
        assert [r.hand for r in records] == [1]
        assert records[0].hole_cards == {1: "7c2d", 2: "AsAh", 3: "KdKh"}
        journal = Journal(tmp_path / "pi" / "journal.db", readonly=True)  # the table runs
        assert journal.records() == records
        journal.close()

        # A controller that dies while connected: the broker publishes its Last Will.
        status.messages.clear()
        controller.send_signal(signal.SIGKILL)
        controller.wait(10)
        assert status.wait(lambda ms: any(
            decode(StatusMessage, m.payload).status == "offline" for m in ms), timeout=10)
        assert len(store.ids()) == 1  # still exactly one
    finally:
        if controller.poll() is None:
            controller.kill()
            controller.wait(10)
        recorder.close()
        store.close()
        status.close()


def test_broker_killed_and_rebuilt_while_the_recorder_is_away_loses_no_record(
        broker: Broker, tmp_path: Path, store_location: str | Path) -> None:
    """The table used to drop a record at the broker's PUBACK; a broker SIGKILLed
    before its autosave then lost what it held for the absent recorder (3 of 3 records). Now a
    record leaves the outbox only when the recorder says it has it. (Both stores.)"""
    store = open_record_store(store_location)
    recorder = Recorder(address(broker), login(broker, "recorder"), store).start()
    assert recorder.connected.wait(5)
    recorder.close()  # away; its session waits on the broker, in memory
    try:
        with linked_table(broker, tmp_path / "table") as table:
            table.feed(played_session(5, seed=4))
            table.settle()
            sealed = [r.hand for r in table.service.journal.records()]
            assert len(sealed) >= 3
            # The broker took every message (PUBACK), yet the full records and the durable
            # events wait in the outbox for the recorder's word.
            assert wait_until(lambda: table.outbox.count_unsent() == 0)
            waiting = table.outbox.count_pending()
            assert waiting >= len(sealed)

            broker.kill(forget=True)  # no autosave, and its persistence is gone too
            broker.start()
            assert wait_until(table.link.listening.is_set, 30), "the table did not come back"
            assert table.outbox.count_pending() == waiting  # still held: nobody confirmed

            back = Recorder(address(broker), login(broker, "recorder"), store).start()
            try:
                assert back.wait_for(len(sealed), timeout=30), "records lost"
                assert wait_until(lambda: table.outbox.count_pending() == 0, 30)
            finally:
                back.close()
        ids = store.ids()
        assert len(ids) == len(set(ids)) == len(sealed)  # every record exactly once
        assert [r.hand for r in store.records("1")] == sealed
        assert store.events("1"), "the durable events were kept too"
    finally:
        store.close()
