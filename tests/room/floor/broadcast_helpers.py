"""The broadcast feed under test: a clock the test turns by hand, a floor server whose feed runs
on it, logins over HTTP, a push stream read on the wire (every byte kept), and a hand played at
a real table with each action timed by that clock."""

from __future__ import annotations

import contextlib
import http.client
import json
import struct
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.config import BroadcastSection
from controller.room.floor.server import FloorServer
from controller.room.recorder import Recorder, open_record_store
from controller.session import SessionConfig
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.room.floor.floor_helpers import PASSWORD
from tests.session.helpers import board, deal, declare, shuffle, three_players
from tests.venue import address, login
from tests.waiting import wait_for

DELAY = 1800.0  # the default: 30 minutes
# How long a wait may take that includes a hand's first steps: the feed builds them when the
# first is due, in its equity worker, which the first hand starts (a fresh interpreter that
# imports the floor's modules) before its Monte Carlo runs. Half a second on a quiet host;
# under a loaded 2-core CI run, more than 5 s (three tests failed at 5 s and 10 s).
FIRST_STEPS = 30.0


class Clock:
    """The feed's clock, turned by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@contextmanager
def broadcast_floor(broker: LocalBroker, directory: Path, records: Path, clock: Clock,
                    settings: BroadcastSection) -> Iterator[FloorServer]:
    """A floor reading the recorder's store, with ``anna`` (floor staff) and ``bea`` (a
    broadcast login); its feed on ``clock``, looking at it every 20 ms of real time."""
    directory.mkdir(parents=True, exist_ok=True)
    accounts = set_password(Accounts(), "anna", PASSWORD)
    save_accounts(directory / "floor-users.json",
                  set_password(accounts, "bea", PASSWORD, roles=["broadcast"]))
    server = FloorServer(address(broker), login(broker, "floor"), db=directory / "floor.db",
                         accounts=directory / "floor-users.json",
                         secret=directory / "floor-secret", records=records,
                         broadcast=settings)
    server.broadcast.now = clock
    server.broadcast.tick = 0.02
    server.start()
    try:
        server.hub.subscribed.wait(10)
        yield server
    finally:
        server.close()


def log_in(url: str, user: str) -> tuple[str, str]:
    """(the session cookie, the CSRF token) of a login over HTTP."""
    part = urlsplit(url)
    connection = http.client.HTTPConnection(part.hostname or "", part.port, timeout=10)
    connection.request("POST", "/api/login", json.dumps({"user": user, "password": PASSWORD}),
                       {"content-type": "application/json"})
    response = connection.getresponse()
    body = json.loads(response.read())
    assert response.status == 200, body
    cookie = response.getheader("set-cookie", "").split(";", 1)[0]
    connection.close()
    return cookie, body["csrf"]


def request(url: str, path: str, cookie: str = "", method: str = "GET",
            body: dict[str, Any] | None = None, csrf: str = "") -> tuple[int, bytes, str]:
    """(status, body, location) of one request, the redirects not followed."""
    part = urlsplit(url)
    connection = http.client.HTTPConnection(part.hostname or "", part.port, timeout=10)
    headers = {"cookie": cookie} if cookie else {}
    if body is not None:
        headers |= {"content-type": "application/json", "x-csrf-token": csrf}
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data, response.getheader("location", "")


@dataclass
class Stream:
    """A push stream read on the wire, by a thread: every byte, and each event in order."""

    status: int = 0
    ended: bool = False  # the server ended it
    raw: bytearray = field(default_factory=bytearray)
    frames: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [data for k, data in self.frames if k == kind]

    def upto_clock(self, now: float) -> list[tuple[str, dict[str, Any]]] | None:
        """Every frame before the first clock push at ``now`` or later (the sentinel: what was
        due at ``now`` came before it), or None while there is none yet."""
        with self.lock:
            for k, (kind, data) in enumerate(self.frames):
                if kind == "clock" and data["now"] >= now:
                    return list(self.frames[:k])
        return None

    def text(self) -> str:
        with self.lock:
            return self.raw.decode()


@contextmanager
def stream(url: str, path: str, cookie: str) -> Iterator[Stream]:
    part = urlsplit(url)
    connection = http.client.HTTPConnection(part.hostname or "", part.port, timeout=30)
    connection.request("GET", path, headers={"cookie": cookie, "accept": "text/event-stream"})
    response = connection.getresponse()
    found = Stream(status=response.status)

    def read() -> None:
        kind = ""
        with contextlib.suppress(OSError, ValueError, AttributeError, http.client.HTTPException):
            while line := response.readline():
                with found.lock:
                    found.raw += line
                text = line.decode().rstrip("\r\n")
                if text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("data: ") and kind:
                    with found.lock:
                        found.frames.append((kind, json.loads(text[6:])))
                    kind = ""
            found.ended = True

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield found
    finally:
        connection.sock and connection.sock.shutdown(2)  # type: ignore[func-returns-value]
        connection.close()
        reader.join(5)


def timed(table: LinkedTable, name: str, server: FloorServer, clock: Clock, at: float,
          hand: int, raws: list[dict[str, Any]]) -> None:
    """Feed ``raws`` at the feed's time ``at`` and wait until the floor has timed every public
    event of the hand they made (so each is timed at ``at``)."""
    clock.now = at
    table.feed(raws)
    table.settle()

    def said() -> int:
        events = table.memory.events
        starts = [k for k, e in enumerate(events) if e.kind == "hand_started" and e.hand == hand]
        return sum(1 for e in events[starts[-1]:] if e.hand == hand) if starts else 0

    expected = said()
    wait_for(lambda: server.broadcast.heard(name, hand) == expected, 10,
             f"the floor timing {expected} events of hand {hand}")


T0 = 2_000_000_000.0  # the feed's clock when hand 1 starts
HOLE = {2: "AsAh", 3: "KdKh", 1: "7c2d"}  # in dealing order: button 1, blinds 2 and 3
# The hand at table 1, each input at its time after T0 (the river: cem's kings make a set)
PLAY: list[tuple[float, list[dict[str, Any]]]] = [
    (10, [declare(1, "call")]), (20, [declare(2, "raise", 300)]), (30, [declare(3, "call")]),
    (40, [declare(1, "fold")]), (50, board("QsJd9h")), (60, [declare(2, "check")]),
    (70, [declare(3, "bet", 500)]), (80, [declare(2, "call")]), (90, board("8s")),
    (100, [declare(2, "check")]), (110, [declare(3, "check")]), (120, board("Kc")),
    (130, [declare(2, "check")]), (140, [declare(3, "check")])]
SEALED = 150  # the next shuffle seals it (RULES H3)
# Each step of the record (its actions) at the time it happened, at the latest: the blinds and
# the deal take the first action's time (no public event says them), the showdown and the
# payout the seal's
STEP_AT = [10] * 6 + [20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 150, 150]


@contextlib.contextmanager
def room(broker: LocalBroker, tmp_path: Path, settings: BroadcastSection, clock: Clock
         ) -> Iterator[tuple[dict[str, LinkedTable], FloorServer]]:
    """Tables 1 and 2 (ana, ben and cem seated at each), the recorder, the floor."""
    with contextlib.ExitStack() as stack:
        tables = {n: stack.enter_context(linked_table(
            broker, tmp_path / f"t{n}", table=n, config=SessionConfig(table_id=n)))
            for n in ("1", "2")}
        records = open_record_store(tmp_path / "records.db")
        stack.callback(records.close)
        recorder = Recorder(address(broker), login(broker, "recorder"), records,
                            client_id="recorder-broadcast").start()
        stack.callback(recorder.close)
        assert recorder.connected.wait(5)
        server = stack.enter_context(broadcast_floor(broker, tmp_path / "floor",
                                                     tmp_path / "records.db", clock, settings))
        for table in tables.values():
            table.feed(three_players())
            table.settle()
        yield tables, server


def play_hand(table: LinkedTable, server: FloorServer, clock: Clock) -> None:
    """`PLAY` at table 1, each input at its time, sealed at T0 + SEALED and in the feed."""
    timed(table, "1", server, clock, T0, 1, [shuffle(), *deal(HOLE)])
    for after, raws in PLAY:
        timed(table, "1", server, clock, T0 + after, 1, raws)
    clock.now = T0 + SEALED
    table.feed([shuffle()])
    table.settle()
    wait_for(lambda: 1 in server.broadcast.known("1"), 15, "the sealed hand in the feed")


def png_alpha(png: bytes) -> list[int]:
    """Every pixel's alpha in an 8-bit RGBA or RGB PNG (Chromium writes RGB, without an alpha
    channel, when every pixel is opaque: 255 each)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    k, idat, width, height, colour = 8, b"", 0, 0, 0
    while k < len(png):
        (length,) = struct.unpack(">I", png[k:k + 4])
        kind, data = png[k + 4:k + 8], png[k + 8:k + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6), "not 8-bit RGB or RGBA"
        elif kind == b"IDAT":
            idat += data
        k += 12 + length
    if colour == 2:
        return [255] * (width * height)
    raw, stride, rows = zlib.decompress(idat), width * 4, []
    previous = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for x in range(stride):
            left = row[x - 4] if x >= 4 else 0
            up, corner = previous[x], previous[x - 4] if x >= 4 else 0
            if kind == 1:
                row[x] = (row[x] + left) & 0xFF
            elif kind == 2:
                row[x] = (row[x] + up) & 0xFF
            elif kind == 3:
                row[x] = (row[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[x] = (row[x] + best) & 0xFF
        rows.append(row)
        previous = row
    return [row[x] for row in rows for x in range(3, stride, 4)]
