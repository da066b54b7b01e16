"""Upgrades that never interrupt a hand.

A table's Pi keeps its releases side by side (``/opt/pokertable/releases/<version>``, each a
virtual environment) with ``current`` and ``previous`` links; the unit runs ``current``. The
upgrade (`pokertable upgrade table --release DIR`, as root) asks the running table, through a
file in its state directory, to stop between hands; the table puts its own ``upgrade`` hold on (a
hold like the clock's: the hand in play goes on, the next shuffle waits, RULES H1) and says it is
ready once no hand is in play. Only then are the links switched and the service restarted: its last
hand is sealed and handed over by the clean stop, and the new version replays the journal the
old one wrote, lifts the hold and deals on. A new version that does not come up within a minute
is rolled back the same way; ``--rollback`` returns to ``previous`` on purpose.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from controller.errors import ConfigError
from controller.events import CommandEvent
from controller.storage.private_files import write_private
from controller.table.service import TableService

log = logging.getLogger(__name__)

REQUEST = "upgrade-request.json"
READY = "upgrade-ready.json"
BETWEEN_HANDS = ("waiting", "over")  # the stages in which no hand is in play
GIVE_UP_SECONDS = 120.0  # ready, but no restart came: the table deals on
M = TypeVar("M", bound=BaseModel)


class UpgradeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    release: str  # the release directory, resolved
    requested: float


class UpgradeReady(BaseModel):
    model_config = ConfigDict(extra="forbid")

    release: str
    pid: int
    hand: int
    stage: str
    at: float


def running_release() -> str:
    """The release this process runs from: ``<release>/bin/pokertable`` started it."""
    return str(Path(sys.argv[0]).resolve().parent.parent)


def _read(path: Path, model: type[M]) -> M | None:
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None


class UpgradeWatch:
    """The table's side: called from the runner's loop a few times a second."""

    def __init__(self, directory: Path, service: TableService, *,
                 release: str | None = None, now: Callable[[], float] = time.time) -> None:
        self.directory = directory
        self.service = service
        self.release = release or running_release()
        self._now = now
        self._asked: str | None = None  # "hold" or "release", until the state shows it
        self._ready_at: float | None = None

    def tick(self) -> None:
        request = _read(self.directory / REQUEST, UpgradeRequest)
        state = self.service.last_state
        if state is None:
            return
        held = "upgrade" in state.holds
        if request is not None and request.release == self.release:
            self._forget()  # this process is the new version: the upgrade is done
            log.info("table %s: running the upgraded release %s", state.table, self.release)
            request = None
        # What was asked of the table counts once the state shows it (the loop applies it).
        if (self._asked == "hold") == held and self._asked is not None:
            self._asked = None
        wanted = request is not None
        if wanted != held:
            ask = "hold" if wanted else "release"  # cancelled, given up or done: deal on
            if self._asked != ask:
                self._asked = ask
                args = {"kind": "upgrade"}
                if request is not None:
                    args["reason"] = f"upgrade to {Path(request.release).name}"
                    log.info("table %s: an upgrade to %s waits for the end of the hand",
                             state.table, Path(request.release).name)
                self._submit(ask, args)
            self._ready_at = None
            return
        if request is None or self._asked is not None:
            self._ready_at = None
            return
        if state.stage in BETWEEN_HANDS and self._ready_at is None:
            self._ready_at = self._now()
            ready = UpgradeReady(release=request.release, pid=os.getpid(), hand=state.hand,
                                 stage=state.stage, at=self._ready_at)
            write_private(self.directory / READY, ready.model_dump_json().encode(), 0o644)
            log.info("table %s: between hands after hand %d: ready for the upgrade",
                     state.table, state.hand)
        elif self._ready_at is not None and self._now() - self._ready_at > GIVE_UP_SECONDS:
            log.warning("table %s: ready for an upgrade for %.0f s, but no restart came: the "
                        "table deals on (run the upgrade again)", state.table, GIVE_UP_SECONDS)
            self._forget()

    def _forget(self) -> None:
        for name in (REQUEST, READY):
            with contextlib.suppress(OSError):
                (self.directory / name).unlink()
        self._ready_at = None

    def _submit(self, name: str, args: dict[str, str]) -> None:
        self.service.submit(CommandEvent(name=name, args=args, by="upgrade"))


# ---------------------------------------------------------------- the upgrade (as root)

def _link(path: Path, to: Path) -> None:
    """``path`` -> ``to``, switched in one rename: never missing, never half-written."""
    staged = path.with_name(f".{path.name}.new")
    with contextlib.suppress(FileNotFoundError):
        staged.unlink()
    staged.symlink_to(to)
    staged.replace(path)


def _wait(test: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(0.2)
    return test()


def _imports_lgpio(release: Path) -> bool:
    python = release / "bin" / "python"
    return python.exists() and subprocess.run(
        [str(python), "-c", "import lgpio"], capture_output=True, timeout=60, check=False,
    ).returncode == 0


def upgrade_table(opt: Path, state: Path, to: Path | None, restart: Callable[[], None], *,
                  timeout: float = 3600.0, start_seconds: float = 60.0,
                  say: Callable[[str], None] = print) -> Path:
    """Switch ``opt/current`` to ``to`` (``None``: back to ``opt/previous``) at a moment
    between hands, restarting the table with ``restart``; returns the release now running."""
    current = opt / "current"
    old = current.resolve()
    if to is None:
        if not (opt / "previous").is_symlink():
            raise ConfigError(f"{opt / 'previous'} does not exist: nothing to roll back to")
        to = opt / "previous"
    target = to.resolve()
    program = target / "bin" / "pokertable"
    if not os.access(program, os.X_OK):
        raise ConfigError(f"{program} is not there: a release is a virtual environment with "
                          "pokertable installed (deploy/install.sh makes them)")
    if target == old:
        say(f"the table already runs {target}")
        return target
    if _imports_lgpio(old) and not _imports_lgpio(target):
        # A Pi's table drives its pins with lgpio, which `pokertable install table` puts into
        # the release it installs: a release built without it would not start, and roll back.
        raise ConfigError(f"{target} has no lgpio, which this table's pins need: sudo "
                          f"{target}/bin/pip install lgpio, then upgrade again; nothing was "
                          "changed")
    request = UpgradeRequest(release=str(target), requested=time.time())
    (state / READY).unlink(missing_ok=True)
    write_private(state / REQUEST, request.model_dump_json().encode(), 0o644)
    say(f"asked the table to stop between hands for {target.name}; waiting (the hand in play "
        "goes on, the next shuffle waits)")
    if not _wait(lambda: (state / READY).exists(), timeout):
        (state / REQUEST).unlink(missing_ok=True)
        raise ConfigError(f"the table did not reach a moment between hands within {timeout:.0f}"
                          f" s (is pokertable-table running?); nothing was changed")
    ready = _read(state / READY, UpgradeReady)
    said = f" after hand {ready.hand}" if ready else ""
    _link(opt / "previous", old)
    _link(current, target)
    restart()
    if _wait(lambda: not (state / REQUEST).exists(), start_seconds):
        say(f"the table runs {target.name}{said}; the previous release stays at "
            f"{opt / 'previous'} (roll back with --rollback)")
        return target
    # The new version did not come up: back to what ran, the same way.
    _link(current, old)
    _link(opt / "previous", target)
    (state / REQUEST).unlink(missing_ok=True)
    restart()
    raise ConfigError(f"{target.name} did not start within {start_seconds:.0f} s: rolled back "
                      f"to {old.name} (see journalctl -u pokertable-table)")


__all__ = ["UpgradeWatch", "running_release", "upgrade_table"]
