"""A league across venues on real Mosquittos: two venues' brokers bridged (TLS, each its own
login) to a league's broker, where one recorder keeps both venues' hands. The league's
recorder is the keeper: its acknowledgements come back over the bridges, a venue's own
recorder keeps a copy and its word lets nothing go, and a league broker or a venue's broker
(its bridge with it) away while the tables play loses nothing and duplicates nothing
(docs/league.md)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.history.query import HandQuery
from controller.mqtt.league_bridge import read_bridge_bundle
from controller.mqtt.local_broker import LocalBroker, LocalLeague
from controller.mqtt.venue_ca import certificate_names
from controller.room.recorder import Recorder, open_record_store
from controller.room.recorder.store import RecordStore
from tests.league import VENUES, League
from tests.mqtt.helpers import hands_of, linked_table
from tests.session.helpers import played_session
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def league_client(league: LocalLeague, login: str, topics: list[str]) -> tuple[mqtt.Client,
                                                                                list[Any]]:
    """A plain MQTT client on the league's broker; what it receives, as (topic, payload)."""
    got: list[Any] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{login}",
                         protocol=mqtt.MQTTv5)
    client.username_pw_set(login, league.credentials[login].password)
    client.on_message = lambda c, u, m: got.append((m.topic, bytes(m.payload)))
    client.on_connect = lambda c, u, f, r, p: c.subscribe([(t, 1) for t in topics])
    client.connect("127.0.0.1", league.port)
    client.loop_start()
    return client, got


def test_two_venues_reach_the_league_recorder_exactly_once_across_outages(
        league: League, tmp_path: Path, store_location: str | Path) -> None:
    store: RecordStore = open_record_store(store_location)
    keeper = Recorder(league.broker.address(reconnect_max=2), league.broker.login("recorder"),
                      store, follow=VENUES).start()
    # hall-a keeps its own recorder too: a copy, whose word lets nothing go.
    copy_store = open_record_store(tmp_path / "hall-a-copy.db")
    hall_a = league.venues["hall-a"]
    copy = Recorder(hall_a.address(), hall_a.login("recorder"), copy_store,
                    keeper=False).start()
    scripts = {"hall-a": hands_of(played_session(12, seed=2, players=5)),
               "hall-b": hands_of(played_session(12, seed=9, players=4))}
    floor, seen = league_client(league.broker, "floor", ["pokertable/v1/+/table/+/state"])
    try:
        assert keeper.connected.wait(5) and copy.connected.wait(5)
        with linked_table(hall_a, tmp_path / "a") as table_a, \
                linked_table(league.venues["hall-b"], tmp_path / "b") as table_b:
            tables = {"hall-a": table_a, "hall-b": table_b}
            for venue, table in tables.items():
                for part in scripts[venue][:5]:
                    table.feed(part)
                table.settle()
            first = sum(len(t.service.journal.records()) for t in tables.values())
            assert keeper.wait_for(first, timeout=30), "the bridges did not bring the records"
            for table in tables.values():  # the league's word came back over each bridge
                assert wait_until(lambda t=table: t.outbox.count_pending() == 0, 30)
            # The league's floor follows both venues' public trees.
            assert {t.split("/")[2] for t, _ in seen} == set(VENUES)

            league.broker.stop()  # the league's broker away: both bridges down
            for venue, table in tables.items():
                for part in scripts[venue][5:9]:
                    table.feed(part)
                table.settle()
            sealed_a = table_a.service.journal.records()
            # The venue's copy has them; the table holds them all the same.
            assert copy.wait_for(len(sealed_a), timeout=30)
            for table in tables.values():
                assert table.outbox.count_pending() >= 2, "a record left without the keeper"

            league.broker.start()
            for part in scripts["hall-a"][9:]:
                table_a.feed(part)
            table_a.settle()
            # And hall-b's own broker restarts (its bridge with it) while its table plays.
            hall_b = league.venues["hall-b"]
            hall_b.stop()
            for part in scripts["hall-b"][9:11]:
                table_b.feed(part)
            table_b.settle()
            hall_b.start()
            for part in scripts["hall-b"][11:]:
                table_b.feed(part)
            table_b.settle()
            sealed = {v: t.service.journal.records() for v, t in tables.items()}
            total = sum(len(r) for r in sealed.values())
            assert keeper.wait_for(total, timeout=90), "records lost across the outage"
            for table in tables.values():
                assert wait_until(lambda t=table: t.outbox.count_pending() == 0, 60)
        ids = [(h.venue, h.id) for h in store.hands(HandQuery())]
        assert len(ids) == len(set(ids)) == total  # each venue's hands exactly once
        for venue in VENUES:
            assert [r.model_dump() for r in sorted(store.search(HandQuery(), venue=venue),
                                                   key=lambda r: r.hand)] == \
                [r.model_dump() for r in sealed[venue]]
        assert copy_store.count() == len(sealed["hall-a"])  # the copy missed nothing either
        assert copy.duplicates >= 0 and keeper.duplicates >= 0
    finally:
        floor.loop_stop()
        floor.disconnect()
        copy.close()
        keeper.close()
        copy_store.close()
        store.close()


def test_each_bridge_may_write_only_its_own_venue_and_read_only_its_acknowledgements(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The league's ACL: a venue's bridge login cannot speak for another venue, nor read its
    records; the floor reads public trees and no full record; the copy at a venue may not
    acknowledge."""
    with LocalLeague("league", VENUES) as broker, \
            LocalBroker("hall-a", tables=1, bridge=broker.bundle("hall-a")) as venue:
        results: dict[str, ReasonCode] = {}
        bridge = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="x", protocol=mqtt.MQTTv5)
        login = broker.credentials["bridge-hall-b"]  # hall-b's bridge is not running
        bridge.username_pw_set(login.username, login.password)
        bridge.on_publish = lambda c, u, mid, reason, p: results.__setitem__(str(mid), reason)
        bridge.connect("127.0.0.1", broker.port)
        bridge.loop_start()
        try:
            own = bridge.publish("pokertable/v1/hall-b/table/1/secure/record", b"{}", qos=1)
            other = bridge.publish("pokertable/v1/hall-a/table/1/secure/record", b"{}", qos=1)
            ack = bridge.publish("pokertable/v1/hall-b/table/1/ack", b"{}", qos=1)
            assert wait_until(lambda: len(results) == 3)
            assert not results[str(own.mid)].is_failure
            assert results[str(other.mid)].is_failure  # another venue's tree
            assert results[str(ack.mid)].is_failure  # only the league's recorder acknowledges
        finally:
            bridge.loop_stop()
            bridge.disconnect()
        acl = (broker.directory / "acl").read_text()
        floor = acl.split("user floor")[1]
        assert "secure/record" not in floor and "cmd" not in floor
        venue_acl = (venue.directory / "acl").read_text().split("user recorder")[1]
        assert "ack" not in venue_acl.split("\nuser ")[0]
        # The bridge's password is in a file only the broker reads.
        conf = venue.directory / "bridges" / "league.conf"
        assert conf.stat().st_mode & 0o777 == 0o600
        venue_conf = (venue.directory / "mosquitto.conf").read_text()
        assert "its own file, 0600 to the broker" in venue_conf and "0640" not in venue_conf
        assert broker.credentials["bridge-hall-a"].password in conf.read_text()
        assert broker.credentials["bridge-hall-a"].password not in (
            venue.directory / "mosquitto.conf").read_text()
        # A venue's recorder left as the keeper after the venue joined: refused, and it says
        # why in one line, the right one (the venue is right: it is bridged, which the venue's
        # broker says on bridge/status), not first a guess that the venue is wrong.
        store = open_record_store(tmp_path / "records.db")
        with caplog.at_level("WARNING"):
            mistaken = Recorder(venue.address(), venue.login("recorder"), store).start()
            try:
                assert wait_until(lambda: "keeper = false" in caplog.text)
            finally:
                # Its stop says offline, refused in turn and answered before close returns:
                # what it says of a refusal after the first, it has said by then.
                mistaken.close()
                store.close()
        said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert [line for line in said if "refused" in line] == [
            "recorder: the broker refused this recorder's acknowledgement or status (Not "
            "authorized): this venue is bridged to a league, whose recorder is the keeper "
            "(docs/league.md). The tables keep their records; run this one as a copy: keeper = "
            "false in recorder.toml (--copy)"], said
        assert not any("is the venue right" in line for line in said), said


def tls_handshake(cert: Path, key: Path, ca: Path, name: str) -> bool:
    """A server with ``cert`` and ``key`` and a client that trusts ``ca`` alone and checks
    ``name``, over a socket pair: True if the handshake verifies."""
    import socket
    import ssl
    import threading

    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    client_side = ssl.create_default_context(cafile=str(ca))
    a, b = socket.socketpair()
    with a, b:
        served = threading.Thread(target=lambda: server_side.wrap_socket(a, server_side=True)
                                  .close(), daemon=True)
        served.start()
        with client_side.wrap_socket(b, server_hostname=name) as tls:
            verified = tls.getpeercert() is not None
        served.join(5)
    return verified


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_league_commands_write_what_a_venue_needs_to_join(reachable: Path) -> None:
    tmp_path = reachable  # as root, the broker's files must be where its user can reach them
    out = tmp_path / "league"
    made = _cli("broker", "league", "init", "--league", "nrw", "--venue", "hall-a",
                "--broker-port", "18830", "--hostname", "league.example.org", "--out", str(out))
    assert made.returncode == 0, made.stderr
    # The league's floor serves HTTPS as a venue's does: floor.crt for the names given, signed
    # by the league's CA (a TLS handshake checks it), its key private.
    assert certificate_names(out / "floor.crt")[0] == "league.example.org"
    assert (out / "floor.key").stat().st_mode & 0o077 == 0
    assert tls_handshake(out / "floor.crt", out / "floor.key", out / "ca.crt",
                         "league.example.org")
    header = "# Generated by `pokertable broker league init` for league nrw"
    assert (out / "mosquitto.conf").read_text().splitlines()[0] == header
    added = _cli("broker", "league", "add-venue", "hall-b", "--broker-dir", str(out))
    assert added.returncode == 0 and "bridge-hall-b" in added.stdout
    assert (out / "mosquitto.conf").read_text().splitlines()[0] == header
    bundle_file = tmp_path / "hall-b-bridge.json"
    bundled = _cli("broker", "league", "bundle", "hall-b", "--broker-dir", str(out), "--out",
                   str(bundle_file))
    assert bundled.returncode == 0, bundled.stderr
    assert bundle_file.stat().st_mode & 0o777 == 0o600
    bundle = read_bridge_bundle(bundle_file)
    assert (bundle.league, bundle.venue, bundle.host, bundle.port) == (
        "nrw", "hall-b", "league.example.org", 8883)
    logins = json.loads((out / "credentials.json").read_text())
    assert bundle.login.password == logins["bridge-hall-b"]["password"]

    venue = tmp_path / "venue"
    wrong = _cli("broker", "init", "--venue", "hall-a", "--tables", "2", "--broker-port", "18831",
                 "--league-broker", "league.example.org", "--bridge-bundle", str(bundle_file),
                 "--out", str(venue))
    assert wrong.returncode == 2 and "not 'hall-a'" in wrong.stderr
    assert not venue.exists()  # refused before a file was written
    joined = _cli("broker", "init", "--venue", "hall-b", "--tables", "2", "--broker-port", "18831",
                  "--league-broker", "10.1.2.3:18883", "--bridge-bundle", str(bundle_file),
                  "--out", str(venue))
    assert joined.returncode == 0, joined.stderr
    conf = (venue / "bridges" / "league.conf").read_text()
    assert "address 10.1.2.3:18883" in conf and "remote_username bridge-hall-b" in conf
    assert f"include_dir {venue.resolve() / 'bridges'}" in (venue / "mosquitto.conf").read_text()
    state = json.loads((venue / "broker.json").read_text())
    assert state["bridge"] == {"league": "nrw", "host": "10.1.2.3", "port": 18883}
    # Growing the venue keeps the bridge and the copy's ACL.
    grown = _cli("broker", "add-table", "3", "--broker-dir", str(venue))
    assert grown.returncode == 0, grown.stderr
    assert "include_dir" in (venue / "mosquitto.conf").read_text()
    recorder = (venue / "acl").read_text().split("user recorder")[1].split("\nuser ")[0]
    assert "topic write" not in recorder
    missing = _cli("broker", "init", "--venue", "hall-c", "--tables", "1", "--broker-port", "18832",
                   "--league-broker", "league.example.org", "--out", str(tmp_path / "c"))
    assert missing.returncode == 2 and "--bridge-bundle" in missing.stderr
