"""`pokertable room` (part of `make demo`): the broker, two simulated tables as processes with
real drivers on ptys, the recorder and a console floor, all on this machine."""

from __future__ import annotations

import io
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.demo.room_demo import run_room


@pytest.mark.e2e
@pytest.mark.long(31)
def test_the_room_plays_hands_over_mqtt_and_the_display_sees_no_secret(tmp_path: Path) -> None:
    out = io.StringIO()
    kept = tmp_path / "room"
    assert run_room(tables=2, hands=2, out=out, port=0, keep=kept) == 0
    text = out.getvalue()
    assert "[clock] running: level 1, blinds 50/100" in text  # the clock drives the room
    assert "[clock] online" in text and "ignored" not in text
    for table in (1, 2):
        assert f"[table {table}] online" in text
        assert re.search(rf"\[table {table}\] hand 1: seat \d+ (bets|calls|raises)", text)
        assert f"[table {table}] record of hand 1 (" in text
    summary = next(line for line in text.splitlines() if line.startswith("recorder: "))
    # Both hands of both tables: the last sealed by each table's clean stop (RULES H3).
    assert re.match(r"recorder: 4 full hand records kept, 0 duplicates dropped; this console, "
                    r"on a display's login, saw 4 public records and 0 secure ones", summary), \
        summary
    # --keep: the work stays, and the end says where the hands are and how to read them.
    store = kept / "records.db"
    assert text.strip().splitlines()[-1].startswith(
        f"the room's hands: {store} (the recorder's store, every hole card"), text[-600:]
    assert f"`pokertable hands list {store}`" in text
    assert store.stat().st_mode & 0o777 == 0o600 and kept.stat().st_mode & 0o777 == 0o700
    listing = subprocess.run([sys.executable, "-m", "controller.cli", "hands", "list",
                              str(store)], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0, listing.stderr
    assert sorted(re.findall(r"table (\d) hand (\d)", listing.stdout)) == [
        ("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert (kept / "table-1" / "journal.db").is_file()
    # ... and every player's own hands, by the command it names (as it names it)
    players = kept / "players"
    assert f"--every-player --out {players} --format stars`" in text
    export = subprocess.run([sys.executable, "-m", "controller.cli", "hands", "export",
                             str(store), "--every-player", "--out", str(players), "--format",
                             "stars"],
                            capture_output=True, text=True, timeout=60)
    assert export.returncode == 0, export.stderr
    files = list(players.iterdir())
    assert files and all("Dealt to " in f.read_text() for f in files)


def test_keep_takes_a_new_or_empty_directory_only(tmp_path: Path) -> None:
    """An earlier room's work in --keep would mix with this one's (journals the tables would go
    on from, a clock already running): one line, exit 2, before anything starts."""
    (tmp_path / "records.db").write_text("an earlier room's")
    done = subprocess.run([sys.executable, "-m", "controller.cli", "room", "--tables", "1",
                           "--floor-port", "0", "--keep", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and f"--keep {tmp_path}: holds files" in done.stderr
    assert (tmp_path / "records.db").read_text() == "an earlier room's"


def test_a_taken_port_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "controller.cli", "room", "--tables", "1",
                               "--floor-port", str(port)], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"127.0.0.1:{port}" in done.stderr and "--floor-port" in done.stderr


def test_the_room_has_six_players_for_each_of_its_most_tables() -> None:
    """`room --tournament --tables 8` registers six a table, as its help says (24 names left
    tables 5 to 8 empty), and no two names are one to the tournament (PVB 13)."""
    from controller.demo.room_demo import DEMO_PLAYERS, PER_TABLE
    from controller.room.tournament.names import same_name

    assert len(DEMO_PLAYERS) >= PER_TABLE * 8
    registered: dict[str, None] = {}
    for name in DEMO_PLAYERS:
        assert same_name(name, registered) is None, name
        registered[name] = None
