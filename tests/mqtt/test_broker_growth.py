"""A venue's broker grows without re-keying the room: `broker add-table` and `add-display` keep
every existing password, key and certificate; `broker bundle` gives one table what it needs;
`broker init` refuses to overwrite a venue. Checked against a real Mosquitto that reloads."""

from __future__ import annotations

import json
import signal
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.errors import ConfigError
from controller.mqtt.broker_init import (
    BrokerPlan,
    add_clients,
    broker_init,
    load_state,
)
from controller.mqtt.local_broker import LocalBroker, free_port
from controller.mqtt.table_bundle import make_bundle, read_bundle
from controller.mqtt.venue_ca import certificate_names

ROOT = Path(__file__).resolve().parents[2]
KEPT = ("ca.crt", "ca.key", "server.crt", "server.key", "floor.crt", "floor.key")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def connects(port: int, ca: Path, username: str, password: str, topic: str) -> str:
    """Log in over TLS by the name ``localhost`` and publish once at QoS 1: the CONNACK's reason
    and the PUBACK's ("taken", or Mosquitto's "Not authorized" where the ACL refuses)."""
    said: dict[str, str] = {}
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=username, protocol=mqtt.MQTTv5)
    client.username_pw_set(username, password)
    client.tls_set(ca_certs=str(ca), cert_reqs=ssl.CERT_REQUIRED)

    def on_connect(c: mqtt.Client, u: object, f: object, reason: object, p: object) -> None:
        said["connack"] = str(reason)
        if str(reason) == "Success":
            c.publish(topic, b"{}", qos=1)
        else:
            done.set()

    def on_publish(c: mqtt.Client, u: object, mid: int, reason: object, p: object) -> None:
        taken = str(reason) in ("Success", "No matching subscribers")
        said["puback"] = "taken" if taken else str(reason)
        done.set()

    client.on_connect = on_connect
    client.on_publish = on_publish
    client.connect("localhost", port)
    client.loop_start()
    try:
        assert done.wait(10), said
    finally:
        client.disconnect()
        client.loop_stop()
    return f"{said.get('connack')} / {said.get('puback')}"


def test_add_table_keeps_every_secret_and_the_new_table_joins_after_a_reload() -> None:
    with LocalBroker("hall", tables=2) as broker:  # in a directory Mosquitto's user can enter
        conf, tmp_path = broker.directory, broker.root
        before = {name: (conf / name).read_bytes() for name in KEPT}
        passwd_before = (conf / "passwd").read_text().splitlines()
        logins_before = json.loads((conf / "credentials.json").read_text())

        added = cli("broker", "add-table", "3", "final", "--broker-dir", str(conf))
        assert added.returncode == 0, added.stderr
        assert "table-3, table-final" in added.stdout and "reload" in added.stdout

        assert {name: (conf / name).read_bytes() for name in KEPT} == before
        passwd = (conf / "passwd").read_text().splitlines()
        assert set(passwd_before) < set(passwd)  # each old hash exactly as it was
        logins = json.loads((conf / "credentials.json").read_text())
        assert {k: logins[k] for k in logins_before} == logins_before
        assert set(logins) - set(logins_before) == {"table-3", "table-final"}
        assert load_state(conf).tables == ["1", "2", "3", "final"]
        acl = (conf / "acl").read_text()
        assert "user table-final\ntopic write pokertable/v1/hall/table/final/status" in acl

        # The table's Pi gets its bundle; the broker learns the new login on SIGHUP.
        bundle_file = tmp_path / "table-final.json"
        made = cli("broker", "bundle", "table-final", "--broker-dir", str(conf),
                   "--out", str(bundle_file))
        assert made.returncode == 0, made.stderr
        assert bundle_file.stat().st_mode & 0o777 == 0o600
        bundle = read_bundle(bundle_file)
        assert bundle.table == "final" and bundle.port == broker.plan.tls_port
        assert bundle.login.password == logins["table-final"]["password"]
        assert bundle.ca == (conf / "ca.crt").read_text()
        ca = tmp_path / "ca.crt"
        ca.write_text(bundle.ca)

        assert broker.process is not None
        broker.process.send_signal(signal.SIGHUP)
        status = "pokertable/v1/hall/table/final/status"
        result = ""
        for _ in range(20):  # the reload takes a moment
            result = connects(broker.plan.tls_port, ca, "table-final",
                              bundle.login.password, status)
            if result.startswith("Success"):
                break
        assert result == "Success / taken"
        # An old table's login still works, with the password it always had.
        old = logins_before["table-1"]
        assert connects(broker.plan.tls_port, ca, "table-1", old["password"],
                        "pokertable/v1/hall/table/1/status") == "Success / taken"
        # And a table cannot write as another: the ACL came with the new login.
        assert connects(broker.plan.tls_port, ca, "table-final", bundle.login.password,
                        "pokertable/v1/hall/table/1/status") == "Success / Not authorized"


def test_a_venue_made_before_the_tournament_had_a_login_gets_one_without_re_keying() -> None:
    with LocalBroker("hall", tables=1) as broker:
        conf, tmp_path = broker.directory, broker.root
        # As an older version wrote it: no tournament login, no ACL entry for it
        logins = json.loads((conf / "credentials.json").read_text())
        del logins["tournament"]
        (conf / "credentials.json").write_text(json.dumps(logins))
        (conf / "passwd").write_text("".join(
            line + "\n" for line in (conf / "passwd").read_text().splitlines()
            if not line.startswith("tournament:")))
        before = {name: (conf / name).read_bytes() for name in KEPT}
        passwd_before = set((conf / "passwd").read_text().splitlines())

        added = cli("broker", "add-services", "--broker-dir", str(conf))
        assert added.returncode == 0, added.stderr
        assert "added tournament" in added.stdout
        assert {name: (conf / name).read_bytes() for name in KEPT} == before
        assert passwd_before < set((conf / "passwd").read_text().splitlines())
        grown = json.loads((conf / "credentials.json").read_text())
        assert {k: grown[k] for k in logins} == logins and "tournament" in grown
        assert "user tournament\n" in (conf / "acl").read_text()
        again = cli("broker", "add-services", "--broker-dir", str(conf))
        assert again.stdout.startswith("nothing to add")

        assert broker.process is not None
        broker.process.send_signal(signal.SIGHUP)
        ca = tmp_path / "ca.crt"
        ca.write_text((conf / "ca.crt").read_text())
        state = "pokertable/v1/hall/tournament/state"
        result = ""
        for _ in range(20):
            result = connects(broker.plan.tls_port, ca, "tournament",
                              grown["tournament"]["password"], state)
            if result.startswith("Success"):
                break
        assert result == "Success / taken"


def test_add_display_and_adding_what_exists_changes_nothing(reachable: Path) -> None:
    tmp_path = reachable
    plan = BrokerPlan(venue="hall", tables=1, port=free_port(), tls_port=free_port())
    out = tmp_path / "conf"
    broker_init(plan, out)
    new = add_clients(out, displays=2)
    assert sorted(new) == ["display-2", "display-3"]
    assert "user display-3" in (out / "acl").read_text()
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    again = cli("broker", "add-table", "1", "--broker-dir", str(out))
    assert again.returncode == 0 and again.stdout.startswith("nothing to add")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files


def test_init_again_refuses_and_touches_nothing(reachable: Path) -> None:
    tmp_path = reachable
    out = tmp_path / "conf"
    first = cli("broker", "init", "--venue", "hall", "--tables", "2", "--broker-port",
                str(free_port()), "--hostname", "broker.hall.lan", "--hostname", "10.1.2.3",
                "--out", str(out))
    assert first.returncode == 0, first.stderr
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    second = cli("broker", "init", "--venue", "hall", "--tables", "4", "--broker-port", "1883",
                 "--out", str(out))
    assert second.returncode == 2
    assert second.stderr.count("\n") == 1 and "add-table" in second.stderr
    assert second.stderr.startswith("pokertable broker init: ")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files
    # The names asked for are the names in both certificates; the bundle gives the first.
    for cert in ("server.crt", "floor.crt"):
        assert certificate_names(out / cert)[:2] == ["broker.hall.lan", "10.1.2.3"]
    assert make_bundle(out, "2").host == "broker.hall.lan"


def test_bundle_and_add_mistakes_are_one_line(reachable: Path) -> None:
    tmp_path = reachable
    out = tmp_path / "conf"
    broker_init(BrokerPlan(venue="hall", tables=1, port=free_port()), out)
    with pytest.raises(ConfigError, match=r"has no table '7'.*add-table 7"):
        make_bundle(out, "table-7")
    for argv, says in ((["broker", "bundle", "1", "--broker-dir", str(tmp_path), "--out", "x"],
                        "broker.json is missing"),
                       (["broker", "add-table", "a/b", "--broker-dir", str(out)], "a/b"),
                       (["broker", "init", "--venue", "hall", "--tables", "1", "--broker-port",
                         "1", "--hostname", "bad name", "--out", str(tmp_path / "n")],
                        "bad name")):
        done = cli(*argv)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr and "Traceback" not in done.stderr
