"""A broadcast login's own session and the floor's feature-table switch over a restart
(docs/broadcast.md): a broadcast-only login logs out (its CSRF token asked for, as a floor
login's) and its open feed ends; the feature table the floor chose is the one after a restart
of the floor server, unless floor.toml's feature_table was edited since; the delay is 30
minutes by default, never 0 but at a closed-door table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.config import BroadcastSection, load_floor_config
from controller.room.floor.store import KIND, FloorStore
from controller.storage.sqlite_store import versions
from tests.room.floor.broadcast_helpers import T0, Clock, broadcast_floor, log_in, request, stream
from tests.waiting import wait_for


def test_a_broadcast_login_logs_out_and_its_feed_ends(broker: LocalBroker,
                                                      tmp_path: Path) -> None:
    with broadcast_floor(broker, tmp_path / "floor", tmp_path / "records.db", Clock(T0),
                         BroadcastSection()) as server:
        url = server.url
        viewer, csrf = log_in(url, "bea")
        status, body, _ = request(url, "/api/me", viewer)
        me = json.loads(body)
        # Not floor staff (no decisions), but a login: its name, and the token to end it
        assert status == 200 and me == {"user": None, "csrf": csrf, "login": "bea"}
        with stream(url, "/api/broadcast/stream?table=1", viewer) as wire:
            wait_for(lambda: wire.of("clock"), 5, "the feed running")
            # Without its token (another site's form, a stale page): refused, still logged in
            status, body, _ = request(url, "/api/logout", viewer, "POST", {}, "")
            assert status == 403 and b"security token" in body
            assert request(url, "/api/broadcast/state?table=1", viewer)[0] == 200
            status, body, _ = request(url, "/api/logout", viewer, "POST", {}, csrf)
            assert status == 200 and json.loads(body) == {"user": None}
            wait_for(lambda: wire.ended, 5, "the feed ended with its session")
        assert request(url, "/api/broadcast/state?table=1", viewer)[0] == 403
        assert json.loads(request(url, "/api/me", viewer)[1])["login"] is None
        # A stranger has no session to end; a floor login still logs out as before
        assert request(url, "/api/logout", "", "POST", {}, "")[0] == 403
        staff, staff_csrf = log_in(url, "anna")
        assert json.loads(request(url, "/api/me", staff)[1]) == {
            "user": "anna", "csrf": staff_csrf, "login": "anna"}
        assert request(url, "/api/logout", staff, "POST", {}, staff_csrf)[0] == 200
        assert json.loads(request(url, "/api/me", staff)[1])["user"] is None


def _feature(url: str) -> object:
    return json.loads(request(url, "/api/broadcast-feature")[1])["table"]


def test_the_feature_table_outlives_a_restart(broker: LocalBroker, tmp_path: Path) -> None:
    floor = tmp_path / "floor"
    configured = BroadcastSection(feature_table="1")
    with broadcast_floor(broker, floor, tmp_path / "records.db", Clock(T0),
                         configured) as server:
        assert _feature(server.url) == "1"  # the configuration's, at the first start
        staff, csrf = log_in(server.url, "anna")
        status, body, _ = request(server.url, "/api/broadcast-feature", staff, "POST",
                                  {"table": "3"}, csrf)
        assert status == 200, body
        assert _feature(server.url) == "3"
    with broadcast_floor(broker, floor, tmp_path / "records.db", Clock(T0),
                         configured) as server:
        assert _feature(server.url) == "3"  # the floor's choice, kept
        staff, csrf = log_in(server.url, "anna")
        status, body, _ = request(server.url, "/api/broadcast-feature", staff, "POST",
                                  {"table": None}, csrf)
        assert status == 200, body
    with broadcast_floor(broker, floor, tmp_path / "records.db", Clock(T0),
                         configured) as server:
        assert _feature(server.url) is None  # "no feature table" is a choice too
    # floor.toml's feature_table edited since the switch: the newer word is the file's
    with broadcast_floor(broker, floor, tmp_path / "records.db", Clock(T0),
                         BroadcastSection(feature_table="2")) as server:
        assert _feature(server.url) == "2"
    store = FloorStore(floor / "floor.db")
    try:
        assert store.feature() == (None, "1")  # (what the floor said last, and when)
    finally:
        store.close()


def test_a_floor_store_of_version_4_gets_the_feature_table(tmp_path: Path) -> None:
    """A floor.db of the player pages' version (4) opens at version 5, everything kept."""
    path = tmp_path / "floor.db"
    store = FloorStore(path)
    store.set_player_link("anna", "ab" * 32, 1.0, "floor:x")
    store._db.execute("DROP TABLE broadcast_feature")
    store._db.execute("PRAGMA user_version = 4")
    store.close()
    store = FloorStore(path)
    try:
        assert versions(store._db) == (5, KIND.application_id) and KIND.version == 5
        assert store.player_link("ab" * 32) == ("anna", 1.0) and store.feature() is None
        store.set_feature("7", None, 2.0, "floor:x")
        assert store.feature() == ("7", None)
    finally:
        store.close()


def test_no_delay_is_refused_but_a_closed_door_table_has_none(tmp_path: Path) -> None:
    """The delay is 30 minutes unless floor.toml says otherwise; it may not be 0 for the room
    (a leaked feed would then help the players at the table): only a table marked
    closed-door shows its hands as soon as they are sealed."""
    config = tmp_path / "floor.toml"
    mqtt = '[mqtt]\nvenue = "hall"\ncredentials = "credentials.json"\n'
    config.write_text(mqtt)
    default = load_floor_config(config).broadcast
    assert default.delay_minutes == 30 and default.delay("1") == 1800.0
    config.write_text(f'{mqtt}\n[broadcast]\ndelay_minutes = 0\n')
    with pytest.raises(ConfigError) as refused:
        load_floor_config(config)
    assert "delay_minutes" in str(refused.value) and "greater than 0" in str(refused.value)
    config.write_text(f'{mqtt}\n[broadcast]\ndelay_minutes = 5\nclosed_door = ["9"]\n')
    section = load_floor_config(config).broadcast
    assert (section.delay("9"), section.delay("1")) == (0.0, 300.0)
