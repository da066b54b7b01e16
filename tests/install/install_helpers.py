"""`pokertable install` into a tree for the install tests, the tree listed, a unit's exposure."""

from __future__ import annotations

import re
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST_ARGS = ["--venue", "hall", "--tables", "2", "--hostname", "broker.hall.lan",
             "--hostname", "192.168.10.1"]


def install(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "install", *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def names(tree: Path, file: str) -> dict[int, str]:
    """Ids to names as the tree's own passwd or group says (root is 0 on every machine; a
    fresh tree's files list only the users sysusers made)."""
    rows = (line.split(":") for line in (tree / "etc" / file).read_text().splitlines())
    return {0: "root", **{int(row[2]): row[0] for row in rows}}


def listing(tree: Path) -> dict[str, tuple[str, str, str, bytes]]:
    """Every path of the tree: its mode, owner and group by the tree's own names, content."""
    users, groups = names(tree, "passwd"), names(tree, "group")
    seen = {}
    for path in sorted(tree.rglob("*")):
        info = path.lstat()
        content = (path.read_bytes() if stat.S_ISREG(info.st_mode) else
                   str(path.readlink()).encode() if path.is_symlink() else b"")
        seen["/" + str(path.relative_to(tree))] = (
            f"{stat.S_IMODE(info.st_mode):04o}", users.get(info.st_uid, str(info.st_uid)),
            groups.get(info.st_gid, str(info.st_gid)), content)
    return seen


def security(tree: Path, unit: Path) -> float:
    done = subprocess.run(["systemd-analyze", "security", "--offline=true",
                           f"--root={tree}", unit.name], capture_output=True, text=True,
                          timeout=60)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    assert found, done.stdout + done.stderr
    return float(found.group(1))
