"""`pokertable install host|table --root DIR` into fresh trees: every file with its owner and
mode, a second run that changes nothing, the units checked by systemd's own tools."""

from __future__ import annotations

import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from controller.install.table import BOOT_BLOCK
from controller.room.clock.config import load_clock_config
from controller.room.floor.config import load_floor_config
from controller.room.recorder.config import load_recorder_config
from controller.room.tournament.config import load_tournament_config
from controller.table.config import load_table_config
from tests.install.install_helpers import HOST_ARGS, ROOT, install, listing, security


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("host") / "root"
    done = install("host", *HOST_ARGS, "--root", str(tree))
    assert done.returncode == 0, done.stderr
    assert "changed: broker init" in done.stdout
    return tree


EXPECTED_HOST = {
    # path: (mode, owner, group)
    "/etc/pokertable": ("0755", "root", "root"),
    "/etc/pokertable/broker": ("0750", "root", "mosquitto"),
    "/etc/pokertable/broker/ca.key": ("0600", "root", "root"),
    "/etc/pokertable/broker/passwd": ("0600", "mosquitto", "mosquitto"),
    "/etc/pokertable/broker/server.key": ("0600", "mosquitto", "mosquitto"),
    "/etc/pokertable/broker/credentials.json": ("0600", "root", "root"),
    "/etc/pokertable/broker/data": ("0700", "mosquitto", "mosquitto"),
    "/etc/pokertable/clock": ("0750", "root", "pokertable-clock"),
    "/etc/pokertable/clock/clock.toml": ("0640", "root", "pokertable-clock"),
    "/etc/pokertable/clock/credentials.json": ("0640", "root", "pokertable-clock"),
    "/etc/pokertable/clock/structures/pvb-deep.toml": ("0640", "root", "pokertable-clock"),
    "/etc/pokertable/tournament": ("0750", "root", "pokertable-tournament"),
    "/etc/pokertable/tournament/tournament.toml": ("0640", "root", "pokertable-tournament"),
    "/etc/pokertable/tournament/credentials.json": ("0640", "root", "pokertable-tournament"),
    "/etc/pokertable/tournament/structures/pvb-deep.toml": ("0640", "root",
                                                            "pokertable-tournament"),
    "/etc/systemd/system/pokertable-tournament.service": ("0644", "root", "root"),
    "/etc/pokertable/recorder/credentials.json": ("0640", "root", "pokertable-recorder"),
    "/etc/pokertable/floor/credentials.json": ("0640", "root", "pokertable-floor"),
    "/etc/pokertable/floor/floor.key": ("0640", "root", "pokertable-floor"),
    "/etc/pokertable/floor/floor-users.json": ("0640", "root", "pokertable-floor"),
    "/var/backups/pokertable": ("0700", "root", "root"),
    "/etc/systemd/system/pokertable-clock.service": ("0644", "root", "root"),
    "/etc/systemd/system/mosquitto.service.d/pokertable.conf": ("0644", "root", "root"),
    "/usr/lib/sysusers.d/pokertable.conf": ("0644", "root", "root"),
}


def test_the_host_tree_has_every_file_with_its_owner_and_mode(host: Path) -> None:
    seen = listing(host)
    for path, (mode, owner, group) in EXPECTED_HOST.items():
        assert seen[path][:3] == (mode, owner, group), path
    # Each service holds its own login and nobody else's.
    for service in ("clock", "tournament", "recorder", "floor"):
        login = seen[f"/etc/pokertable/{service}/credentials.json"][3].decode()
        assert re.findall(r'"(\w[\w-]*)": \{', login) == [service]
    # Nothing a service may not read is readable by the others.
    for path, (mode, *_) in seen.items():
        if path.startswith("/etc/pokertable/") and path.endswith(
                (".key", "passwd", "credentials.json")):
            assert int(mode, 8) & 0o007 == 0, path
    conf = seen["/etc/pokertable/broker/mosquitto.conf"][3].decode()
    assert "password_file /etc/pokertable/broker/passwd" in conf  # as the broker will see it
    drop_in = seen["/etc/systemd/system/mosquitto.service.d/pokertable.conf"][3].decode()
    assert "ExecStart=\nExecStart=/usr/sbin/mosquitto -c /etc/pokertable/broker/mosquitto.conf" \
        in drop_in
    for unit in ("pokertable-clock.service", "pokertable-recorder.service",
                 "pokertable-floor.service", "pokertable-tournament.service"):
        assert f"/etc/systemd/system/multi-user.target.wants/{unit}" in seen
    assert "/etc/systemd/system/timers.target.wants/pokertable-backup.timer" in seen


def test_the_installed_configurations_load_and_name_the_installed_files(host: Path) -> None:
    etc = host / "etc" / "pokertable"
    clock = load_clock_config(etc / "clock" / "clock.toml")
    assert clock.clock.structure.exists() and str(clock.clock.db) == \
        "/var/lib/pokertable/clock/clock.db"
    assert clock.mqtt.venue == "hall" and clock.mqtt.credentials.exists()
    recorder = load_recorder_config(etc / "recorder" / "recorder.toml")
    assert recorder.recorder.store == "/var/lib/pokertable/recorder/records.db"
    floor = load_floor_config(etc / "floor" / "floor.toml")
    assert floor.floor.tls_cert is not None and floor.floor.tls_cert.exists()
    assert floor.floor.port == 8443
    tournament = load_tournament_config(etc / "tournament" / "tournament.toml")
    settings = tournament.settings()  # its structure is there and names a start stack
    assert [t.table for t in settings.tables] == ["1", "2"]
    assert str(tournament.tournament.db) == "/var/lib/pokertable/tournament/tournament.db"
    assert tournament.mqtt.credentials.exists()


def test_a_second_run_changes_nothing_and_says_so(host: Path) -> None:
    before = listing(host)
    again = install("host", *HOST_ARGS, "--root", str(host))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("nothing changed:") and "changed:" not in \
        again.stdout.replace("nothing changed:", "")
    assert listing(host) == before


def test_an_edited_configuration_is_kept_and_a_wrong_mode_put_right(host: Path) -> None:
    config = host / "etc/pokertable/clock/clock.toml"
    config.write_text(config.read_text().replace("answer_seconds = 5", "answer_seconds = 8"))
    key = host / "etc/pokertable/floor/floor.key"
    key.chmod(0o644)
    done = install("host", *HOST_ARGS, "--root", str(host))
    assert done.returncode == 0, done.stderr
    assert "answer_seconds = 8" in config.read_text()
    assert "kept: /etc/pokertable/clock/clock.toml" in done.stdout
    assert stat.S_IMODE(key.stat().st_mode) == 0o640
    assert "changed: set /etc/pokertable/floor/floor.key to 0640" in done.stdout


def test_a_host_installed_before_the_tournament_gets_its_login_and_service(
        tmp_path: Path) -> None:
    """A host whose broker files an older version wrote (no tournament login): the install
    adds that login alone, every other password and key kept, and the service with it."""
    import json

    tree = tmp_path / "root"
    assert install("host", *HOST_ARGS, "--root", str(tree)).returncode == 0
    broker = tree / "etc/pokertable/broker"
    logins = json.loads((broker / "credentials.json").read_text())
    del logins["tournament"]
    (broker / "credentials.json").write_text(json.dumps(logins))
    (broker / "passwd").write_text("".join(
        line + "\n" for line in (broker / "passwd").read_text().splitlines()
        if not line.startswith("tournament:")))
    kept = {n: (broker / n).read_bytes() for n in ("ca.key", "server.key", "floor.key")}
    again = install("host", *HOST_ARGS, "--root", str(tree))
    assert again.returncode == 0, again.stderr
    assert "broker: added tournament" in again.stdout
    assert {n: (broker / n).read_bytes() for n in kept} == kept
    grown = json.loads((broker / "credentials.json").read_text())
    assert {k: grown[k] for k in logins} == logins
    installed = json.loads((tree / "etc/pokertable/tournament/credentials.json").read_text())
    assert installed == {"tournament": grown["tournament"]}


def test_a_host_from_an_older_version_gets_this_versions_acl(host: Path) -> None:
    """An ACL an older version wrote (the clock could not read the tournament's state): the
    install writes this version's, owned as before, and says so (the broker restarts on it)."""
    acl = host / "etc/pokertable/broker/acl"
    owner = (acl.stat().st_uid, acl.stat().st_gid, stat.S_IMODE(acl.stat().st_mode))
    current = acl.read_text()
    block = current.split("\n\n")
    clock = next(k for k, b in enumerate(block) if b.startswith("user clock"))
    block[clock] = "\n".join(line for line in block[clock].splitlines()
                             if not line.endswith("/tournament/state"))
    older = "\n\n".join(block)
    assert older != current
    acl.write_text(older)
    again = install("host", *HOST_ARGS, "--root", str(host))
    assert again.returncode == 0, again.stderr
    assert "changed: broker: the ACL as this version has it" in again.stdout
    assert acl.read_text() == current
    assert (acl.stat().st_uid, acl.stat().st_gid, stat.S_IMODE(acl.stat().st_mode)) == owner


def test_more_tables_later_keep_every_secret(tmp_path: Path) -> None:
    tree = tmp_path / "root"
    assert install("host", *HOST_ARGS, "--root", str(tree)).returncode == 0
    broker = tree / "etc/pokertable/broker"
    kept = {n: (broker / n).read_bytes() for n in ("ca.key", "server.key", "floor.key")}
    grown = install("host", *HOST_ARGS[:2], "--tables", "4", *HOST_ARGS[4:], "--root", str(tree))
    assert grown.returncode == 0 and "added table-3, table-4" in grown.stdout
    assert {n: (broker / n).read_bytes() for n in kept} == kept
    wrong = install("host", "--venue", "other", "--tables", "4", "--root", str(tree))
    assert wrong.returncode == 2 and "belongs to the venue 'hall'" in wrong.stderr


def test_a_table_from_its_bundle(host: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "table-2.json"
    made = subprocess.run([sys.executable, "-m", "controller.cli", "broker", "bundle", "2",
                           "--broker-dir", str(host / "etc/pokertable/broker"), "--out",
                           str(bundle)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert made.returncode == 0, made.stderr
    tree = tmp_path / "pi"
    (tree / "proc/device-tree").mkdir(parents=True)
    (tree / "proc/device-tree/model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    (tree / "boot/firmware").mkdir(parents=True)
    (tree / "boot/firmware/config.txt").write_text("dtparam=audio=on\n")
    done = install("table", "--bundle", str(bundle), "--root", str(tree))
    assert done.returncode == 0, done.stderr
    seen = listing(tree)
    assert seen["/etc/pokertable"][:3] == ("0750", "root", "pokertable")
    assert seen["/etc/pokertable/credentials.json"][:3] == ("0640", "root", "pokertable")
    assert seen["/var/lib/pokertable"][:3] == ("0700", "pokertable", "pokertable")
    assert seen["/etc/pokertable/ca.crt"][3] == (host / "etc/pokertable/broker/ca.crt").read_bytes()
    assert re.findall(r'"([\w-]+)": \{', seen["/etc/pokertable/credentials.json"][3].decode()) \
        == ["table-2"]
    group = (tree / "etc/group").read_text()
    assert re.search(r"^gpio:x:\d+:pokertable$", group, re.M)
    assert re.search(r"^dialout:x:\d+:pokertable$", group, re.M)
    assert re.search(r"^spi:x:\d+:pokertable$", group, re.M)
    rules = seen["/etc/udev/rules.d/70-pokertable.rules"][3].decode()
    assert 'KERNEL=="gpiochip*", GROUP="gpio"' in rules
    assert 'SUBSYSTEM=="spidev", GROUP="spi", MODE="0660"' in rules
    unit = seen["/etc/systemd/system/pokertable-table.service"][3].decode()
    assert "SupplementaryGroups=dialout gpio spi\n" in unit
    assert "DeviceAllow=char-spi rw\n" in unit
    assert seen["/boot/firmware/config.txt"][3].decode() == "dtparam=audio=on\n\n" + BOOT_BLOCK
    assert 'ATTRS{manufacturer}=="pokertable"' in rules  # the USB device's own, in any order
    config = load_table_config(tree / "etc/pokertable/table.toml")
    assert config.table.id == "2" and config.mqtt is not None
    assert (config.mqtt.host, config.mqtt.port, config.mqtt.tls) == \
        ("broker.hall.lan", 8883, True)
    assert config.buttons is not None and config.buttons.pin_factory == "lgpio"  # a Pi 5
    again = install("table", "--bundle", str(bundle), "--root", str(tree))
    assert again.stdout.startswith("nothing changed") and listing(tree) == seen
    other = install("table", "--bundle", str(bundle), "--id", "5", "--root", str(tree))
    assert other.returncode == 2 and "table 2's" in other.stderr
    # Another table's bundle on this Pi: refused, nothing changed (its login would not match).
    made = subprocess.run([sys.executable, "-m", "controller.cli", "broker", "bundle", "1",
                           "--broker-dir", str(host / "etc/pokertable/broker"),
                           "--out", str(tmp_path / "table-1.json")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert made.returncode == 0, made.stderr
    swapped = install("table", "--bundle", str(tmp_path / "table-1.json"), "--root", str(tree))
    assert swapped.returncode == 2 and "this Pi is table 2" in swapped.stderr
    assert listing(tree) == seen


def test_every_raspberry_pi_gets_lgpio(tmp_path: Path) -> None:
    tree = tmp_path / "pi4"
    (tree / "proc/device-tree").mkdir(parents=True)
    (tree / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    assert install("table", "--id", "3", "--root", str(tree)).returncode == 0
    config = load_table_config(tree / "etc/pokertable/table.toml")
    assert config.buttons is not None and config.buttons.pin_factory == "lgpio"
    plain = tmp_path / "pc"
    assert install("table", "--id", "3", "--root", str(plain)).returncode == 0
    config = load_table_config(plain / "etc/pokertable/table.toml")
    assert config.buttons is not None and config.buttons.pin_factory == "default"


def test_the_spi_buses_go_into_config_txt_once(tmp_path: Path) -> None:
    """A Pi's config.txt gets the readers' SPI lines in a marked block at its end, after
    ``[all]`` (a filter section at the end would otherwise keep them from this board); the rest
    of the file stays byte for byte, a second install finds the block and changes nothing, and
    an older image's /boot/config.txt is used where there is no /boot/firmware/config.txt."""
    tree = tmp_path / "pi"
    (tree / "proc/device-tree").mkdir(parents=True)
    (tree / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    (tree / "boot/firmware").mkdir(parents=True)
    config = tree / "boot/firmware/config.txt"
    original = "# the image's own\ndtparam=audio=on\n#dtparam=spi=on\n[cm4]\notg_mode=1"
    config.write_text(original)  # no newline at its end
    done = install("table", "--id", "3", "--root", str(tree))
    assert done.returncode == 0, done.stderr
    assert "changed: added the SPI buses (dtparam=spi=on, dtoverlay=spi0-0cs, " \
        "dtoverlay=spi1-1cs,cs0_pin=18) in /boot/firmware/config.txt: reboot the Pi" \
        in done.stdout
    written = config.read_text()
    assert written == original + "\n\n" + BOOT_BLOCK
    assert written.split("\n")[-6:-1] == ["[all]", "dtparam=spi=on", "dtoverlay=spi0-0cs",
                                          "dtoverlay=spi1-1cs,cs0_pin=18", "# <<< pokertable"]
    before = listing(tree)
    again = install("table", "--id", "3", "--root", str(tree))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("nothing changed") and "config.txt" not in again.stdout
    assert listing(tree) == before and config.read_text().count("dtoverlay=spi0-0cs") == 1
    # A block someone changed is put back as the install has it, the rest left alone.
    config.write_text(written.replace("spi1-1cs,cs0_pin=18", "spi1-1cs,cs0_pin=17")
                      + "dtparam=i2c_arm=on\n")
    fixed = install("table", "--id", "3", "--root", str(tree))
    assert "changed: updated the SPI buses" in fixed.stdout
    assert "kept: /boot/firmware/config.txt also has 'dtparam=i2c_arm=on': I2C takes GPIO2 " \
        "and GPIO3" in fixed.stdout
    assert config.read_text() == written + "dtparam=i2c_arm=on\n"
    older = tmp_path / "older"
    (older / "proc/device-tree").mkdir(parents=True)
    (older / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.1\0")
    (older / "boot").mkdir()
    (older / "boot/config.txt").write_text("dtparam=audio=on\n")
    assert install("table", "--id", "4", "--root", str(older)).returncode == 0
    assert (older / "boot/config.txt").read_text() == "dtparam=audio=on\n\n" + BOOT_BLOCK
    assert not (older / "boot/firmware").exists()


def units(tree: Path) -> list[Path]:
    return sorted((tree / "etc/systemd/system").glob("pokertable-*.service"))


def test_the_units_pass_systemd_analyze(host: Path, tmp_path: Path) -> None:
    pi = tmp_path / "pi"
    assert install("table", "--id", "7", "--root", str(pi)).returncode == 0
    for tree, limit in ((host, 3.0), (pi, 4.5)):
        for unit in units(tree):
            verified = subprocess.run(["systemd-analyze", "verify", str(unit)],
                                      capture_output=True, text=True, timeout=60)
            assert verified.returncode == 0 and not verified.stderr.strip(), \
                f"{unit.name}: {verified.stderr}"
            assert security(tree, unit) <= limit, unit.name
    assert {u.name for u in units(host)} >= {"pokertable-clock.service",
                                             "pokertable-floor.service",
                                             "pokertable-recorder.service",
                                             "pokertable-tournament.service"}
    assert [u.name for u in units(pi)] == ["pokertable-backup.service",
                                          "pokertable-table.service"]
    text = (host / "etc/systemd/system/pokertable-clock.service").read_text()
    assert "Type=notify" in text and "WatchdogSec=30" in text
    assert "IPAddressAllow=localhost" in text and "SocketBindDeny=any" in text
    floor = (host / "etc/systemd/system/pokertable-floor.service").read_text()
    assert "SocketBindAllow=tcp:8443\nSocketBindDeny=any" in floor  # its own port, no other
    # Every store a service may make, one not made yet (or records kept in PostgreSQL) no
    # failure of the hour's backup
    backup = (host / "etc/systemd/system/pokertable-backup.service").read_text()
    assert "--missing-ok /var/lib/pokertable/clock/clock.db" in backup


def test_install_mistakes_are_one_line_and_write_nothing(tmp_path: Path) -> None:
    for n, (argv, says) in enumerate((
            (["table"], "--bundle FILE"),
            (["table", "--bundle", str(tmp_path / "none.json")], "none.json"),
            (["host", "--venue", "Hall!", "--tables", "1", "--hostname", "b.lan"],
             "lower-case letters"),
            (["host", "--venue", "hall", "--tables", "1"], "--hostname broker.hall.lan"),
            (["host", "--venue", "hall", "--tables", "1", "--hostname", "localhost"],
             "this machine only"),
            (["host", "--venue", "hall", "--tables", "1", "--hostname", "broker hall"],
             "'broker hall'"),
            (["host", "--venue", "hall", "--tables", "1", "--hostname", "broker..hall"],
             "'broker..hall'"),
            (["host", "--venue", "hall", "--tables", "1", "--hostname", "b.lan",
              "--tls-bind", "10.0.0.300"], "10.0.0.300"),
            (["host", "--venue", "hall", "--tables", "1", "--hostname", "b.lan",
              "--floor-port", "8883"], "must differ"))):
        tree = tmp_path / f"t{n}"
        done = install(*argv, "--root", str(tree))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr and done.stderr.startswith("pokertable install "), argv
        assert "Traceback" not in done.stderr
        assert not tree.exists() or not any(tree.iterdir()), argv


def test_other_names_or_address_later_recertify_with_the_same_ca(tmp_path: Path) -> None:
    tree = tmp_path / "root"
    assert install("host", *HOST_ARGS, "--root", str(tree)).returncode == 0
    broker = tree / "etc/pokertable/broker"
    ca = (broker / "ca.key").read_bytes(), (broker / "ca.crt").read_bytes()
    passwd = (broker / "passwd").read_bytes()
    moved = install("host", "--venue", "hall", "--tables", "2", "--hostname", "poker.hall.lan",
                    "--hostname", "192.168.20.1", "--tls-bind", "192.168.20.1",
                    "--floor-port", "9443", "--root", str(tree))
    assert moved.returncode == 0, moved.stderr
    assert "changed: broker: certificates for poker.hall.lan, 192.168.20.1" in moved.stdout
    assert ((broker / "ca.key").read_bytes(), (broker / "ca.crt").read_bytes()) == ca
    assert (broker / "passwd").read_bytes() == passwd  # no login changed
    assert "listener 8883 192.168.20.1" in (broker / "mosquitto.conf").read_text()
    floor = tree / "etc/pokertable/floor"
    assert (floor / "floor.crt").read_bytes() == (broker / "floor.crt").read_bytes()
    # floor.toml was as the installer wrote it: updated to the new port and address
    config = load_floor_config(floor / "floor.toml")
    assert (config.floor.listen, config.floor.port) == ("192.168.20.1", 9443)
    assert "kept:" not in moved.stdout
    again = install("host", "--venue", "hall", "--tables", "2", "--tls-bind", "192.168.20.1",
                    "--floor-port", "9443", "--root", str(tree))  # the names as they are
    assert again.stdout.startswith("nothing changed"), again.stdout


def test_server_certificates_are_renewed_before_they_expire(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Phones refuse a server certificate valid for more than 825 days: ours live 800, and an
    install run again within 90 days of the end renews them from the same CA."""
    from controller.install.host import HostPlan, install_host
    from controller.install.tree import Tree
    from controller.mqtt import venue_ca

    plan = HostPlan(venue="hall", tables=1, hostnames=["broker.hall.lan"])
    tree = Tree(tmp_path / "root", real=False)
    tree.root.mkdir()
    tree.root.chmod(0o755)
    monkeypatch.setattr(venue_ca, "SERVER_DAYS", 30)  # made 770 days ago, as it were
    install_host(plan, tree)
    broker = tree.root / "etc/pokertable/broker"
    assert venue_ca.days_left(broker / "server.crt") < 31
    assert venue_ca.days_left(broker / "ca.crt") > 3000
    monkeypatch.undo()
    ca = (broker / "ca.crt").read_bytes()
    again = Tree(tree.root, real=False)
    install_host(plan, again)
    assert any("broker: certificates for broker.hall.lan" in c for c in again.changes)
    for cert in ("server.crt", "floor.crt"):
        assert 790 < venue_ca.days_left(broker / cert) <= 800
    assert (broker / "ca.crt").read_bytes() == ca
    floor = tree.root / "etc/pokertable/floor/floor.crt"
    assert floor.read_bytes() == (broker / "floor.crt").read_bytes()


def test_a_machine_is_the_host_or_a_table_not_both(host: Path, tmp_path: Path) -> None:
    """The two roles share the backup unit and /var/lib/pokertable with other owners: the
    second role on one machine is refused in one line and changes nothing."""
    before = listing(host)
    on_host = install("table", "--id", "7", "--root", str(host))
    assert on_host.returncode == 2 and "already the central host" in on_host.stderr
    assert on_host.stderr.count("\n") == 1 and listing(host) == before
    pi = tmp_path / "pi"
    assert install("table", "--id", "7", "--root", str(pi)).returncode == 0
    on_pi = install("host", *HOST_ARGS, "--root", str(pi))
    assert on_pi.returncode == 2 and "already a table" in on_pi.stderr
