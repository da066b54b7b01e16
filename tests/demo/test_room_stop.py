"""`pokertable room` stops cleanly however it is stopped: Ctrl-C at a terminal (SIGINT to the
whole foreground process group), SIGINT or SIGTERM to the room alone, one table stopped by
someone else; and `make demo` in a real terminal ends with exit 0 on Ctrl-C. Never a traceback,
never a process left over (it hung for 60 s and left a table running: the tables and Mosquitto
shared the room's process group, so Ctrl-C killed the broker first, and a simulated reader's
pty write blocked while holding the lock its unplug needed)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from drivers.simulators import WRITE_PATIENCE, VirtualSerialDevice
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _start_room(tables: int = 2) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "room", "--tables", str(tables),
         "--floor-port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the tables are dealing
        line = process.stdout.readline()
        lines.append(line)
        if "record of hand 1 " in line or " hand 2:" in line:
            return process, lines
    raise AssertionError("the room dealt no hand:\n" + "".join(lines))


def _tables_of(room: int) -> dict[int, str]:
    """The room's simulated tables: its child processes running a table (a room another test
    or a person runs on this machine is not ours)."""
    tables = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and "controller.cli table" in _cmdline(entry):
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == room:
                tables[int(entry.name)] = _cmdline(entry)
    return tables


def _alive(tables: dict[int, str]) -> list[str]:
    return [line for pid, line in tables.items() if _cmdline(Path(f"/proc/{pid}")) == line]


def _finish(process: subprocess.Popen[str], lines: list[str]) -> str:
    rest, _ = process.communicate(timeout=60)
    return "".join(lines) + rest


def _brokers(parent: int) -> dict[int, str]:
    """The Mosquittos a process started (other tests run brokers of their own at the same
    time), by pid with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        line = _cmdline(entry) if entry.name.isdigit() else ""
        if line.startswith(("mosquitto ", "/usr/sbin/mosquitto ")) and _parent(entry) == parent:
            found[int(entry.name)] = line
    return found


def _parent(entry: Path) -> int | None:
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _cmdline(entry: Path) -> str:
    try:
        return (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


RECORD = re.compile(r"\[table (\d+)\] record of hand (\d+) ")


def _recorded(lines: list[str]) -> dict[str, int]:
    """Each table's last hand recorded in these console lines."""
    last: dict[str, int] = {}
    for line in lines:
        if found := RECORD.match(line):
            last[found[1]] = max(last.get(found[1], 0), int(found[2]))
    return last


@pytest.mark.e2e
@pytest.mark.long(65)
def test_the_room_goes_on_a_break_deals_on_after_it_and_stops_on_ctrl_c() -> None:
    """What only the real room shows (its clock on the demo structure, its simulated tables
    and their dealers in their own processes, its console): the clock goes on the demo
    structure's short break and back, each table's dealer waits the break out (a hold at the
    table, as a hand-for-hand round is) and deals on after it, and no alert is raised by a
    perfect dealer. Then Ctrl-C at the terminal (SIGINT to the whole foreground group) stops
    it cleanly: exit 0 within 30 s, its records counted, nothing left running.
    The director's hand-for-hand rounds that follow, within the first two and a half minutes,
    are tests/demo/test_demo_clock.py's, on the same structure in virtual time (run here, they
    took two more minutes of real time)."""
    process, lines = _start_room()
    assert process.stdout is not None
    ours = _brokers(process.pid)
    assert ours, "the room's Mosquitto runs"
    tables = _tables_of(process.pid)
    assert len(tables) == 2, tables
    deadline = time.monotonic() + 120
    seen: list[str] = []
    before_break: dict[str, int] | None = None  # each table's last hand recorded by then
    dealt_on = False
    while time.monotonic() < deadline and not dealt_on:
        line = process.stdout.readline()
        lines.append(line)
        if line.startswith("[clock]"):
            seen.append(line.strip())
            if line.startswith("[clock] on_break") and before_break is None:
                before_break = _recorded(lines)
        if before_break is not None and any("running: level 3" in s for s in seen):
            # A hand in play when the break began may end during it; the one after that
            # began after the break.
            now = _recorded(lines)
            dealt_on = all(now.get(t, 0) >= before_break.get(t, 0) + 2 for t in ("1", "2"))
    started = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
    text = _finish(process, lines)
    took = time.monotonic() - started
    assert process.returncode == 0, text[-3000:]
    assert took < 30, took
    assert "Traceback" not in text
    assert re.search(r"recorder: [1-9]\d* full hand records kept, 0 duplicates", text), text[-800:]
    # Without --keep its work went with its temporary directory, and the room says how to keep it.
    assert "removed now: `pokertable room --keep DIR` keeps them" in text, text[-800:]
    # The room waits for its tables and its broker before it exits: none is left now.
    assert not _alive(tables)
    assert not _alive(ours), "the room's Mosquitto is left running"
    on_break = next(k for k, s in enumerate(seen) if s.startswith("[clock] on_break"))
    assert any(k > on_break and "running: level 3" in s for k, s in enumerate(seen)), seen
    assert dealt_on, (before_break, _recorded(lines))
    alerts = [ln for ln in lines if re.match(r"\[table \d+\] hand \d+: alert: ", ln)]
    assert not alerts, alerts


@pytest.mark.e2e
def test_a_table_stopped_from_outside_is_said_then_sigterm_stops_the_room() -> None:
    """One table stopped from outside (a person's kill, a crash): the room says so and plays
    on; then SIGTERM to the room alone (systemd's stop, not a terminal's Ctrl-C to the group)
    stops everything else it started, cleanly."""
    process, lines = _start_room()
    tables = _tables_of(process.pid)
    pids = [pid for pid, line in tables.items() if "--seed 2" in line]
    assert pids
    os.kill(pids[0], signal.SIGTERM)
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        lines.append(line)
        if "[room] table 2 stopped" in line:
            break
    else:
        raise AssertionError("the room did not say table 2 stopped")
    process.send_signal(signal.SIGTERM)
    text = _finish(process, lines)
    assert process.returncode == 0, text[-3000:]
    assert "Traceback" not in text and "full hand records kept" in text
    assert not _alive(tables)  # (the room waited for its other table before it exited)


@pytest.mark.e2e
def test_make_demo_in_a_terminal_ends_with_exit_0_on_ctrl_c(tmp_path: Path) -> None:
    """A real pty, as a person's terminal: the room takes Ctrl-C for itself, so make is not
    interrupted and passes on the room's clean exit."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: make demo on the pty (the venv is there already)
        os.chdir(ROOT)
        os.execvp("make", ["make", "--no-print-directory", "demo", "DEMO_TABLES=2",
                           f"DEMO_KEEP={tmp_path / 'demo-room'}"])  # (two tables: half the CPU)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and b"record of hand 1 " not in seen:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    assert b"record of hand 1 " in seen, seen[-2000:]
    os.write(fd, b"\x03")  # Ctrl-C, typed
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, signal.SIGKILL)
        raise AssertionError(seen[-2000:])
    if not done:
        _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text[-2000:]
    assert "Interrupt" not in text and "Traceback" not in text
    assert "full hand records kept" in text
    # The demo's hands stay where it says, for `pokertable hands`.
    store = tmp_path / "demo-room" / "records.db"
    assert f"the room's hands: {store}" in text and store.is_file(), text[-2000:]


def test_a_simulated_device_nobody_reads_never_blocks_its_writer(tmp_path: Path) -> None:
    """A slow reader is waited for (no bytes lost under load); one that stopped reading is given
    up on within WRITE_PATIENCE, so unplug() (which needs the same lock) always returns."""
    device = VirtualSerialDevice(tmp_path / "usb-sim")
    started = time.monotonic()
    sent = 0
    while device.write(b"R 1 01 04000000000001\n" * 4):  # until the pty's buffer is full
        sent += 1
        assert sent < 100_000
    assert time.monotonic() - started < WRITE_PATIENCE + 5
    writer = threading.Thread(target=device.write, args=(b"more\n",))
    writer.start()  # blocked in write, holding the lock
    assert wait_until(device._lock.locked, 5)
    device.unplug()  # used to wait forever for the lock a blocked write held
    writer.join(WRITE_PATIENCE + 2)
    assert not writer.is_alive() and not device.plugged
    assert time.monotonic() - started < 2 * WRITE_PATIENCE + 10
    device.close()
