"""The installer's hands: each step makes one path what it should be (content, mode, owner) and
says whether it changed anything, so that a second run changes nothing and says so.

``root`` is ``/`` on a real machine, or a directory tree (``--root DIR``) that tests inspect
without touching the machine. Users and groups are looked up in ``root``'s own ``etc/passwd``
and ``etc/group``, which `systemd-sysusers --root` writes there from our sysusers.d file.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from controller.errors import ConfigError
from controller.storage.private_files import write_private

MANIFEST = "/etc/pokertable/.installed.json"


def _ids(path: Path) -> dict[str, int]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    return {parts[0]: int(parts[2]) for parts in (line.split(":") for line in lines)
            if len(parts) > 2 and parts[2].isdigit()}


@dataclass
class Tree:
    """A machine's file system seen from the installer; ``real``: also run systemctl, apt."""

    root: Path
    real: bool
    changes: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    # What the installer last wrote into the files a venue may edit (path -> sha256): a file
    # that still holds it is ours to update; one that does not was edited here, and is kept.
    written: dict[str, str] | None = None

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def uid(self, user: str) -> int:
        found = _ids(self.path("/etc/passwd")).get(user)
        if found is None:
            raise ConfigError(f"the user {user!r} is not in {self.path('/etc/passwd')}: "
                              "systemd-sysusers did not create it")
        return found

    def gid(self, group: str) -> int:
        found = _ids(self.path("/etc/group")).get(group)
        if found is None:
            raise ConfigError(f"the group {group!r} is not in {self.path('/etc/group')}")
        return found

    def _owner(self, user: str, group: str) -> tuple[int, int]:
        return (0 if user == "root" else self.uid(user), 0 if group == "root" else self.gid(group))

    def changed(self, what: str) -> None:
        self.changes.append(what)

    def directory(self, absolute: str, mode: int, user: str = "root",
                  group: str = "root") -> None:
        target = self.path(absolute)
        uid, gid = self._owner(user, group)
        if not target.is_dir():
            self._parents(target)
            target.mkdir()
            os.chmod(target, mode)
            os.chown(target, uid, gid)
            self.changed(f"created {absolute}/ ({mode:04o} {user}:{group})")
            return
        self._fix(target, absolute, mode, uid, gid, f"{user}:{group}")

    def file(self, absolute: str, content: bytes, mode: int, user: str = "root",
             group: str = "root", *, keep_edits: bool = False, kept: str | None = None) -> None:
        """``content`` at ``absolute``. ``keep_edits``: a configuration the venue may edit: an
        edited one is kept as it is (only its mode and owner put right), the install saying so
        (``kept``: how, where not just as it is); one still as the installer wrote it is
        updated when the options changed."""
        target = self.path(absolute)
        uid, gid = self._owner(user, group)
        if keep_edits:
            if self.edited(absolute, content):
                said = kept or ("edited here: kept as it is; the install would now write it "
                                "otherwise")
                self.kept.append(f"{absolute} ({said})")
                self._fix(target, absolute, mode, uid, gid, f"{user}:{group}")
                return
            self._written()[absolute] = hashlib.sha256(content).hexdigest()
        if target.is_file() and target.read_bytes() == content:
            self._fix(target, absolute, mode, uid, gid, f"{user}:{group}")
            return
        existed = target.exists()
        self._parents(target)
        write_private(target, content, mode, (uid, gid))  # final mode before the first byte
        self.changed(f"{'updated' if existed else 'wrote'} {absolute} "
                     f"({mode:04o} {user}:{group})")

    def edited(self, absolute: str, content: bytes) -> bool:
        """A configuration the venue edited: neither ``content`` nor what the installer last
        wrote there (such a file is kept: `file` with ``keep_edits``)."""
        target = self.path(absolute)
        if not target.is_file():
            return False
        now = hashlib.sha256(target.read_bytes()).hexdigest()
        return now != hashlib.sha256(content).hexdigest() and now != self._written().get(
            absolute)

    def amend(self, absolute: str, content: bytes, mode: int, user: str, group: str,
              what: str) -> None:
        """An edited configuration given one change of the install's (``what``), the rest the
        venue's: it stays edited (the record of what the installer wrote is not touched, so
        that the next install keeps it too)."""
        target = self.path(absolute)
        write_private(target, content, mode, self._owner(user, group))
        self.changed(what)

    def existing(self, absolute: str, mode: int, user: str = "root",
                 group: str = "root") -> None:
        """A file a service made (its store): its mode and owner put right, its content
        untouched."""
        uid, gid = self._owner(user, group)
        self._fix(self.path(absolute), absolute, mode, uid, gid, f"{user}:{group}")

    def _written(self) -> dict[str, str]:
        if self.written is None:
            try:
                self.written = json.loads(self.path(MANIFEST).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.written = {}
        return self.written

    def save_manifest(self) -> None:
        """What the installer wrote, for the next run to tell edits from its own files."""
        if self.written is not None:
            text = json.dumps(self.written, indent=1, sort_keys=True) + "\n"
            self.file(MANIFEST, text.encode(), 0o600)

    def symlink(self, absolute: str, points_to: str) -> None:
        target = self.path(absolute)
        if target.is_symlink() and os.readlink(target) == points_to:
            return
        if target.is_symlink() or target.exists():
            target.unlink()
        self._parents(target)
        target.symlink_to(points_to)
        self.changed(f"linked {absolute} -> {points_to}")

    def _parents(self, target: Path) -> None:
        """Missing directories on the way are made as a system's are: 0755 root's."""
        missing = [p for p in target.parents if not p.exists()]
        for parent in reversed(missing):
            parent.mkdir()
            os.chmod(parent, 0o755)

    def _fix(self, target: Path, absolute: str, mode: int, uid: int, gid: int,
             owner: str) -> None:
        info = target.stat()
        if info.st_mode & 0o7777 != mode or (info.st_uid, info.st_gid) != (uid, gid):
            os.chmod(target, mode)
            os.chown(target, uid, gid)
            self.changed(f"set {absolute} to {mode:04o} {owner}")

    def run(self, argv: list[str], what: str, *, always: bool = False) -> str:
        """A command of the machine's (systemd-sysusers, systemctl, apt-get): its output, or
        one line naming the command and what it said."""
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=600,
                                  check=False)
        except FileNotFoundError:
            raise ConfigError(f"{argv[0]} is not installed: it is needed to {what}") from None
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            raise ConfigError(f"{' '.join(argv)} failed ({what}): "
                              f"{said[-1] if said else done.returncode}")
        if always:
            self.changed(what)
        return done.stdout + done.stderr


__all__ = ["Tree"]
