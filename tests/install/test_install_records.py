"""`pokertable install host --root DIR`: the floor's service may read the recorder's store (the
players' own cards, the broadcast) and nobody else may: the group pokertable-hands (the
recorder's files, the floor its one other member), the store's directory 0750, the floor's
configuration naming the store and the broadcast's settings; the units checked by systemd."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.room.floor.config import load_floor_config
from controller.room.recorder.config import load_recorder_config

ROOT = Path(__file__).resolve().parents[2]
HOST_ARGS = ["--venue", "hall", "--tables", "2", "--hostname", "broker.hall.lan"]
RECORDS = "/var/lib/pokertable/recorder/records.db"


def install(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "install", "host",
                           *HOST_ARGS, "--root", str(tree)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def ids(tree: Path, file: str) -> dict[int, str]:
    rows = (line.split(":") for line in (tree / "etc" / file).read_text().splitlines())
    return {0: "root", **{int(row[2]): row[0] for row in rows}}


def owner(tree: Path, path: Path) -> tuple[str, str, str]:
    info = path.stat()
    return (f"{stat.S_IMODE(info.st_mode):04o}", ids(tree, "passwd")[info.st_uid],
            ids(tree, "group")[info.st_gid])


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("host") / "root"
    done = install(tree)
    assert done.returncode == 0, done.stderr
    return tree


def test_the_recorders_store_is_the_group_pokertable_hands_and_the_floor_is_in_it(
        host: Path) -> None:
    members = {row.split(":")[0]: row.split(":")[3]
               for row in (host / "etc/group").read_text().splitlines()}
    assert members["pokertable-hands"] == "pokertable-floor"  # and nobody else
    assert members["pokertable-recorder"] == ""  # its login: still the recorder's alone
    state = host / "var/lib/pokertable/recorder"
    assert owner(host, state) == ("0750", "pokertable-recorder", "pokertable-hands")
    assert owner(host, host / "var/lib/pokertable") == ("0755", "root", "root")
    # The recorder's configuration and login stay out of the floor's reach.
    assert owner(host, host / "etc/pokertable/recorder") == ("0750", "root",
                                                             "pokertable-recorder")


def test_the_installed_configurations_share_the_store_read_only(host: Path) -> None:
    recorder = load_recorder_config(host / "etc/pokertable/recorder/recorder.toml")
    assert recorder.recorder.store == RECORDS and recorder.recorder.group_read
    floor_toml = host / "etc/pokertable/floor/floor.toml"
    floor = load_floor_config(floor_toml)
    assert floor.floor.records == RECORDS
    assert floor.broadcast.delay_minutes == 30 and floor.broadcast.closed_door == []
    # The broadcast's section is there to switch on: uncommented, it loads as written.
    text = floor_toml.read_text()
    assert "\n# [broadcast]\n" in text
    opened = re.sub(r"^# (\[broadcast\]|delay_minutes|closed_door|feature_table)", r"\1",
                    text, flags=re.M)
    settings = tomllib.loads(opened)["broadcast"]
    assert settings == {"delay_minutes": 30, "closed_door": ["9"], "feature_table": "1"}
    edited = floor_toml.with_name("floor-edited.toml")
    edited.write_text(opened)
    try:
        assert load_floor_config(edited).broadcast.delay("9") == 0.0
    finally:
        edited.unlink()


def test_the_units_give_the_store_to_the_group_and_the_floor_the_group(host: Path) -> None:
    units = host / "etc/systemd/system"
    recorder = (units / "pokertable-recorder.service").read_text()
    assert "\nUser=pokertable-recorder\nGroup=pokertable-hands\n" in recorder
    assert "\nStateDirectoryMode=0750\n" in recorder
    assert "\nSupplementaryGroups=pokertable-recorder\n" in recorder  # its own config
    assert "\nUMask=0077\n" in recorder  # what it writes else is its own
    floor = (units / "pokertable-floor.service").read_text()
    assert "\nSupplementaryGroups=pokertable-hands\n" in floor
    assert "After=mosquitto.service pokertable-recorder.service" in floor
    assert "\nProtectSystem=strict\n" in floor  # /var/lib: read-only for it
    assert "ReadWritePaths" not in floor
    for name in ("pokertable-recorder.service", "pokertable-floor.service"):
        verified = subprocess.run(["systemd-analyze", "verify", str(units / name)],
                                  capture_output=True, text=True, timeout=60)
        assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr
        rated = subprocess.run(["systemd-analyze", "security", "--offline=true",
                                f"--root={host}", name], capture_output=True, text=True,
                               timeout=60)
        found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", rated.stdout)
        assert found and float(found.group(1)) <= 3.0, rated.stdout[-500:]


def test_a_store_an_earlier_version_made_is_given_to_the_group(tmp_path: Path) -> None:
    """A host installed before: the store 0600 in the recorder's own group. The install gives
    it (and its -wal and -shm) to pokertable-hands, 0640, content untouched; again: nothing."""
    tree = tmp_path / "root"
    assert install(tree).returncode == 0
    state = tree / "var/lib/pokertable/recorder"
    users, groups = ids(tree, "passwd"), ids(tree, "group")
    recorder_uid = next(k for k, v in users.items() if v == "pokertable-recorder")
    recorder_gid = next(k for k, v in groups.items() if v == "pokertable-recorder")
    os.chown(state, recorder_uid, recorder_gid)
    state.chmod(0o700)
    for name in ("records.db", "records.db-wal", "records.db-shm"):
        (state / name).write_bytes(name.encode())
        (state / name).chmod(0o600)
        os.chown(state / name, recorder_uid, recorder_gid)
    done = install(tree)
    assert done.returncode == 0, done.stderr
    assert owner(tree, state) == ("0750", "pokertable-recorder", "pokertable-hands")
    for name in ("records.db", "records.db-wal", "records.db-shm"):
        assert owner(tree, state / name) == ("0640", "pokertable-recorder",
                                             "pokertable-hands"), name
        assert (state / name).read_bytes() == name.encode()
        assert f"changed: set /var/lib/pokertable/recorder/{name} to 0640" in done.stdout
    again = install(tree)
    assert again.stdout.startswith("nothing changed"), again.stdout


def test_the_floor_example_names_the_store_and_the_broadcast() -> None:
    example = ROOT / "deploy" / "floor.example.toml"
    config = load_floor_config(example)
    assert config.floor.records == RECORDS
    assert config.broadcast.delay_minutes == 30 and config.broadcast.closed_door == []
    assert "[broadcast]" in example.read_text()
