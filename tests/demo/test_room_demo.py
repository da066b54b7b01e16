"""`pokertable room` (part of `make demo`): the broker, two simulated tables as processes with
real drivers on ptys, the recorder and a console floor, all on this machine."""

from __future__ import annotations

import io
import re
import socket
import subprocess
import sys

from controller.demo.room_demo import run_room


def test_the_room_plays_hands_over_mqtt_and_the_display_sees_no_secret() -> None:
    out = io.StringIO()
    assert run_room(tables=2, hands=2, out=out, port=0) == 0
    text = out.getvalue()
    assert "[clock] running: level 1, blinds 50/100" in text  # the clock drives the room
    assert "[clock] online" in text and "ignored" not in text
    for table in (1, 2):
        assert f"[table {table}] online" in text
        assert re.search(rf"\[table {table}\] hand 1: seat \d+ (bets|calls|raises)", text)
        assert f"[table {table}] record of hand 1 (" in text
    summary = text.strip().splitlines()[-1]
    # Both hands of both tables: the last sealed by each table's clean stop (RULES H3).
    assert re.match(r"recorder: 4 full hand records kept, 0 duplicates dropped; the floor "
                    r"display saw 4 public records and 0 secure ones", summary), summary


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
