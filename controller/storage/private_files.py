"""Files that hold secrets (hole cards in journals, outboxes and records; passwords and keys)
are created with their final mode: there is never a moment in which another user can open them.

`private_file` makes an empty file 0600 before SQLite or a writer opens it (SQLite gives its
``-wal`` and ``-shm`` files the mode of the database); `private_dir` makes a directory 0700;
`write_private` writes a whole file that way. `SERVICE_UMASK` is the umask every pokertable
process sets for whatever else it writes (no access for other users).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (`pokertable replay` imports this module for the umask alone: no pathlib)
    from pathlib import Path

SERVICE_UMASK = 0o027  # group may read what is not private; others nothing


def private_dir(path: Path, mode: int = 0o700) -> Path:
    """Create ``path`` (and its parents) if missing; a directory we create is ``mode``."""
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=mode, exist_ok=True)
        os.chmod(path, mode)  # mkdir's mode passes through the umask
    return path


def private_file(path: Path, mode: int = 0o600) -> Path:
    """Make sure ``path`` exists without being readable by others: a new file is created with
    ``mode``; an existing one keeps its content and is narrowed to ``mode`` if it is wider."""
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError:
        if os.stat(path).st_mode & 0o777 & ~mode:
            os.chmod(path, mode)  # from an older version: narrowed at the next start
        return path
    os.close(fd)
    return path


def write_private(path: Path, data: bytes, mode: int = 0o600,
                  owner: tuple[int, int] | None = None) -> None:
    """Write ``data`` to a new inode created with ``mode`` (and ``owner``) before a byte is in
    it, then put it at ``path`` in one rename: a file already there is replaced, never reused,
    and a reader (one that waits for the file to appear, as `pokertable upgrade` waits for
    the table's word) never sees it empty or half written."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    # (os.urandom, as secrets.token_hex does: importing secrets loads OpenSSL, 10 ms of every
    # command's start-up)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        try:
            os.fchmod(fd, mode)  # exactly ``mode``: the umask may have narrowed it
            if owner is not None:
                os.fchown(fd, *owner)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)  # (a symlink at ``path`` is replaced, not followed)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
