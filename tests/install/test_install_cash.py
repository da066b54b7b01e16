"""`pokertable install host --cash`: the cash floor on the central host when asked for, and from
then on. Without it the host has the cash floor's login (broker init makes every service's) but
no cash service; with it the service's user, configuration (loading, naming the installed
files), login alone, unit (the tournament's hardening, passing systemd's own checks) and backup;
a later install without --cash keeps it and changes nothing."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from controller.room.cash.config import load_cash_config
from tests.install.install_helpers import HOST_ARGS, install, listing, security

UNIT = "/etc/systemd/system/pokertable-cash.service"
BACKUP = "/etc/systemd/system/pokertable-backup.service"


def hardening(text: str) -> list[str]:
    """A unit's [Service] lines that say what the service may do (not which service it is)."""
    service = text.split("[Service]", 1)[1].split("[Install]", 1)[0]
    own = ("User=", "Group=", "StateDirectory=", "WorkingDirectory=", "ExecStart=")
    return [line for line in service.splitlines() if line and not line.startswith(own)]


def test_the_cash_floor_is_installed_when_asked_for_and_kept(tmp_path: Path) -> None:
    tree = tmp_path / "root"
    first = install("host", *HOST_ARGS, "--root", str(tree))
    assert first.returncode == 0, first.stderr
    seen = listing(tree)
    assert UNIT not in seen and "/etc/pokertable/cash" not in seen
    assert b"cash.db" not in seen[BACKUP][3]
    # The login is there all the same: broker init makes every service's, with its ACL.
    assert "cash" in json.loads(seen["/etc/pokertable/broker/credentials.json"][3])
    assert "\nuser cash\n" in seen["/etc/pokertable/broker/acl"][3].decode()

    asked = install("host", *HOST_ARGS, "--cash", "--root", str(tree))
    assert asked.returncode == 0, asked.stderr
    assert f"changed: wrote {UNIT} (0644 root:root)" in asked.stdout
    assert "changed: enabled pokertable-cash.service" in asked.stdout
    seen = listing(tree)
    for path, owner in {"/etc/pokertable/cash": ("0750", "root", "pokertable-cash"),
                        "/etc/pokertable/cash/cash.toml": ("0640", "root", "pokertable-cash"),
                        "/etc/pokertable/cash/credentials.json": ("0640", "root",
                                                                  "pokertable-cash"),
                        UNIT: ("0644", "root", "root")}.items():
        assert seen[path][:3] == owner, path
    login = seen["/etc/pokertable/cash/credentials.json"][3].decode()
    assert re.findall(r'"(\w[\w-]*)": \{', login) == ["cash"]  # its own login, nobody else's
    assert "/etc/systemd/system/multi-user.target.wants/pokertable-cash.service" in seen
    assert b"/var/lib/pokertable/cash/cash.db" in seen[BACKUP][3]

    config = load_cash_config(tree / "etc/pokertable/cash/cash.toml")
    settings = config.settings()
    assert [t.table for t in settings.tables] == ["1", "2"] and settings.games
    assert str(config.cash.db) == "/var/lib/pokertable/cash/cash.db"
    assert config.mqtt.venue == "hall" and config.mqtt.credentials.exists()

    kept = install("host", *HOST_ARGS, "--root", str(tree))  # without --cash: kept
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith("nothing changed:"), kept.stdout
    assert listing(tree) == seen

    unit = (tree / UNIT.lstrip("/")).read_text()
    assert re.search(r"^ExecStart=\S+/bin/pokertable cash --config "
                     r"/etc/pokertable/cash/cash\.toml$", unit, re.MULTILINE), unit
    tournament = (tree / "etc/systemd/system/pokertable-tournament.service").read_text()
    assert hardening(unit) == hardening(tournament)  # the same sandbox, the broker alone
    verified = subprocess.run(["systemd-analyze", "verify", str(tree / UNIT.lstrip("/"))],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr
    assert security(tree, tree / UNIT.lstrip("/")) <= 3.0
