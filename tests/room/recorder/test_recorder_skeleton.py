"""The recorder as a room service (controller/room/room_service.py): a keeper says online and
offline, a copy says nothing; the skeleton's ticker is its store healer, and systemd's watchdog
follows it beside the message callbacks."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ServiceStatus, decode
from controller.room.recorder import Recorder, open_record_store
from controller.room.recorder.postgres import PostgresRecordStore
from controller.room.room_service import RoomService
from controller.service.manager import Watchdog
from harness.pg_cluster import PgCluster
from tests.venue import VenueClient, address, login
from tests.waiting import wait_for


def statuses(floor: VenueClient) -> list[str]:
    return [decode(ServiceStatus, m.payload).status for m in floor.on("recorder/status")]


def test_a_keeper_says_online_and_offline_and_a_copy_says_nothing(
        broker: LocalBroker, tmp_path: Path) -> None:
    floor = VenueClient(broker, "floor", topics=("recorder/status",))
    try:
        already = len(statuses(floor))  # a retained word of an earlier test, if any
        for keeper in (False, True):  # the copy first: anything it said comes before
            store = open_record_store(tmp_path / f"records-{keeper}.db")
            recorder = Recorder(address(broker), login(broker, "recorder"), store,
                                client_id=f"recorder-skeleton-{keeper}", keeper=keeper)
            assert isinstance(recorder, RoomService)
            try:
                recorder.start()
                assert recorder.connected.wait(5)
            finally:
                recorder.close()
                store.close()
        assert floor.wait(lambda _: len(statuses(floor)) >= already + 2)
        assert statuses(floor)[already:] == ["online", "offline"]  # the keeper's alone
    finally:
        floor.close()


def test_the_watchdog_follows_the_store_healer(broker: LocalBroker, pg_cluster: PgCluster,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL is down when the recorder connects: it says so and asks the store every
    HEAL_SECONDS. A ping that does not return (the store's lock held here) stops the ticker,
    and the watchdog names it; released and the server back, the store heals and the ticker
    moves again."""
    store = open_record_store(pg_cluster.new_schema("healer"))
    assert isinstance(store, PostgresRecordStore)
    recorder = Recorder(address(broker), login(broker, "recorder"), store,
                        client_id="recorder-healer")
    # A 6 s watchdog: a loop that has not moved for 3 s is stuck (the healer beats every 2 s).
    watchdog = Watchdog(recorder.loops(), environ={"WATCHDOG_USEC": "6000000"})
    assert [loop.name for loop in recorder.loops()] == ["recorder ticker",
                                                        "recorder's MQTT callbacks"]
    pg_cluster.stop()
    try:
        with caplog.at_level(logging.INFO):
            recorder.start()
            assert recorder.connected.wait(5)
            assert recorder.store_failures == 1 and "the store does not answer" in caplog.text
            with store._lock:  # the healer's next ping hangs
                wait_for(lambda: "recorder ticker" in dict(watchdog.stuck()), 20,
                         "the watchdog sees the healer stuck")
                assert "recorder's MQTT callbacks" not in dict(watchdog.stuck())
            pg_cluster.start()
            wait_for(lambda: "answers again" in caplog.text, 20, "the store healed")
            wait_for(lambda: watchdog.stuck(time.monotonic()) == [], 10, "the ticker moves")
    finally:
        if pg_cluster.process is None:  # (a failure above left it stopped)
            pg_cluster.start()
        recorder.close()
        store.close()
