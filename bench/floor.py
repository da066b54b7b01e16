"""The floor display under a room's load: from a table's state publish to a browser's
push stream, beside a bare MQTT subscriber in the same run.

`pokertable floor` runs as its own process, as on the central host, against a real Mosquitto on
loopback. 100, then 200 light tables (a login each, in worker processes with one network loop
each) replay a recorded state stream (the states a table published playing
`docs/examples/two-hands.jsonl`) at about the rate a live table changes: one state a second,
jittered, each with the time it was sent. Four screens read the server's push stream (Server-Sent
Events over HTTP, as a browser's EventSource does); beside them a bare paho subscriber (the
`display` login) reads the same states straight from the broker. For both: the delay from the
table's publish to the reader, p50/p99. For the server: CPU and resident memory from /proc over
the window, and the bytes a screen receives per second.

Two windows of the same run, one after the other: in the first nothing else happens; in the
second, 20 pages open as staff open them in a browser, spread over the window, each from its own
address: the login page, a login (POST /api/login with its own floor account, an argon2id
hash as `pokertable floor-user add` writes it), the room page, its script and style, /api/me,
five /api/time, /api/snapshot, and the push stream, kept open to the end of the window. The
screens and the reference are measured in both windows. Targets for the screens' p99: under
250 ms in the first window, under 100 ms while the pages open (issue 37).

    .venv/bin/python bench/floor.py [--quick]   (quick: 4 and 100 tables, 8 s windows, 10 pages)
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from room_load import NetworkLoop, percentile, process_usage, service_config, worker_logins

from controller.events import parse_event
from controller.mqtt.client import BrokerAddress, Login, connect, new_client
from controller.mqtt.local_broker import LocalBroker, free_port
from controller.mqtt.messages import StateMessage, StatusMessage, encode
from controller.mqtt.topics import Topics
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.session import SessionConfig, TableSession
from controller.session.outputs import TableState

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "felt and chips"


def recorded_states() -> list[TableState]:
    """The states a table publishes while it plays the example hands, one per event."""
    session = TableSession(SessionConfig(table_id="0"))
    states = []
    for line in (ROOT / "docs" / "examples" / "two-hands.jsonl").read_text().splitlines():
        if line.strip():
            session.handle(parse_event(json.loads(line)))
            states.append(session.state())
    return states


def light_tables(address: dict[str, Any], logins: dict[str, dict[str, str]], seconds: float,
                 rate: float) -> None:
    """A worker: these tables replay the recorded states at ``rate`` a second each."""
    where = BrokerAddress.model_validate(address)
    topics = Topics(where.venue)
    states = recorded_states()
    clients: dict[str, mqtt.Client] = {}
    for table, login in logins.items():
        client = new_client(f"table-{table}", Login.model_validate(login), where)
        client.connect(where.host, where.port, keepalive=60)
        client.publish(topics.table(table, "status"),
                       encode(StatusMessage(table=table, status="online")), qos=1, retain=True)
        clients[table] = client
    network = NetworkLoop(clients.values())
    rng = random.Random(os.getpid())
    due = {table: time.monotonic() + rng.random() / rate for table in clients}
    step = dict.fromkeys(clients, 0)
    end = time.monotonic() + seconds
    while (now := time.monotonic()) < end:
        network.read(timeout=0.005)
        for table, client in clients.items():
            if now >= due[table]:
                step[table] += 1
                state = states[step[table] % len(states)].model_copy(update={"table": table})
                client.publish(topics.table(table, "state"),
                               encode(StateMessage(table=table, seq=step[table], sent=time.time(),
                                                   state=state)), qos=1, retain=True)
                due[table] = now + rng.uniform(0.5, 1.5) / rate
        network.write()
    for client in clients.values():
        client.disconnect()


def screen(port: int, seconds: float, results: Any) -> None:
    """A browser's push stream, read as EventSource reads it: per table update, the delay
    from the table's publish; and the bytes received."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"GET /api/stream?kinds=table,clock,alert,broker HTTP/1.1\r\n"
                 b"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    sock.settimeout(0.5)
    delays: list[tuple[float, float]] = []  # (when it arrived, its delay in ms)
    received = 0
    buffer = b""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            chunk = sock.recv(1 << 16)
        except TimeoutError:
            continue
        if not chunk:
            break
        now = time.time()
        received += len(chunk)
        buffer += chunk
        *messages, buffer = buffer.split(b"\r\n\r\n")
        for message in messages:
            if b"event: table" not in message:
                continue
            for line in message.split(b"\r\n"):
                if line.startswith(b"data: "):
                    sent = json.loads(line[6:])["table"].get("sent")
                    if sent:
                        delays.append((now, (now - sent) * 1e3))
    sock.close()
    results.put(("screen", delays, received / (time.monotonic() - start)))


class BareSubscriber:
    """The reference: the display login straight on the broker, the same states."""

    def __init__(self, broker: LocalBroker) -> None:
        self.delays: list[tuple[float, float]] = []
        self._lock = threading.Lock()
        self.client = new_client("display", broker.login("display"), broker.address())
        topic = Topics(broker.plan.venue).table("+", "state")
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        self.client.on_message = self._on_message
        connect(self.client, broker.address())

    def _on_message(self, c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        if message.retain:
            return
        sent = json.loads(message.payload)["sent"]
        with self._lock:
            self.delays.append((now, (now - sent) * 1e3))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Page:
    """A browser opening the room page as floor staff: one keep-alive connection from its own
    address (a browser's), a cookie, and the push stream on a second connection."""

    def __init__(self, port: int, source: str) -> None:
        self.port = port
        self.source = source
        self.cookie = ""
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                               source_address=(source, 0))

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> bytes:
        sent = dict(headers or {})
        if self.cookie:
            sent["cookie"] = self.cookie
        self.http.request(method, path, body=body, headers=sent)
        response = self.http.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
        cookie = response.getheader("set-cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return data

    def open(self, user: str, until: float) -> dict[str, float]:
        """Log in, load the room page, read its push stream until ``until`` (wall time): how
        long the login and the page took (ms)."""
        took: dict[str, float] = {}
        t = time.monotonic()
        self.request("GET", "/login")
        for path in ("/static/floor.css", "/static/app.js", "/static/login.js", "/api/me"):
            self.request("GET", path)
        t_login = time.monotonic()
        self.request("POST", "/api/login", json.dumps({"user": user, "password": PASSWORD})
                     .encode(), {"content-type": "application/json",
                                 "origin": f"http://127.0.0.1:{self.port}"})
        took["login"] = (time.monotonic() - t_login) * 1e3
        self.request("GET", "/")
        for path in ("/static/floor.css", "/static/app.js", "/static/room.js", "/api/me",
                     *["/api/time"] * 5, "/api/snapshot"):
            self.request("GET", path)
        stream = socket.create_connection(("127.0.0.1", self.port),
                                          source_address=(self.source, 0))
        stream.sendall(b"GET /api/stream?kinds=table,clock,alert,broker,tournament HTTP/1.1\r\n"
                       b"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                       b"Cookie: " + self.cookie.encode() + b"\r\n\r\n")
        stream.settimeout(30)
        buffer = b""
        while b"event: snapshot" not in buffer or not buffer.endswith(b"\r\n\r\n"):
            buffer += stream.recv(1 << 16)
        took["page"] = (time.monotonic() - t) * 1e3
        stream.settimeout(0.5)
        while time.time() < until:
            with contextlib.suppress(TimeoutError):
                if not stream.recv(1 << 16):
                    break
        stream.close()
        self.http.close()
        return took


def connecting_pages(port: int, pages: int, start: float, seconds: float, spread: float,
                     results: Any) -> None:
    """``pages`` pages opened over the first ``spread`` seconds of the window from ``start``
    (wall time), each at a random moment of its own share of them, each kept open to the
    window's end."""
    rng = random.Random(7)
    at = [start + (k + rng.random()) * spread / pages for k in range(pages)]
    took: list[dict[str, float]] = []

    def one(k: int) -> None:
        time.sleep(max(0.0, at[k] - time.time()))
        took.append(Page(port, f"127.0.1.{k + 1}").open(f"page-{k + 1}", start + seconds))

    threads = [threading.Thread(target=one, args=(k,)) for k in range(pages)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put(("pages", took, 0.0))


def floor_accounts(path: Path, pages: int) -> None:
    """A floor account for each page (`floor-user add`'s hashes)."""
    accounts = Accounts()
    for k in range(pages):
        accounts = set_password(accounts, f"page-{k + 1}", PASSWORD)
    save_accounts(path, accounts)


def within(samples: list[tuple[float, float]], start: float, end: float) -> list[float]:
    return [delay for at, delay in samples if start <= at < end]


def run(tables: int, workers: int, seconds: float, rate: float, screens: int,
        pages: int, spread: float) -> None:
    with tempfile.TemporaryDirectory() as tmp, LocalBroker("bench", tables=tables) as broker:
        port = free_port()
        config = service_config(broker, Path(tmp), "floor",
                                f'[floor]\nlisten = "127.0.0.1"\nport = {port}')
        floor_accounts(Path(tmp) / "floor-users.json", pages)
        server = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--config",
                                   str(config)], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(2.0)
            procs = [multiprocessing.Process(target=light_tables, args=(
                broker.address().model_dump(mode="json"), logins, 2 * seconds + 8.0, rate))
                for logins in worker_logins(broker, tables, workers)]
            for proc in procs:
                proc.start()
            time.sleep(3.0)  # connected, publishing
            results: Any = multiprocessing.Queue()
            readers = [multiprocessing.Process(target=screen, args=(port, 2 * seconds + 1.0,
                                                                    results))
                       for _ in range(screens)]
            for proc in readers:
                proc.start()
            bare = BareSubscriber(broker)
            time.sleep(1.0)  # the screens have their snapshots
            t0 = time.time()
            # the second window: the pages open
            opening = multiprocessing.Process(target=connecting_pages, args=(
                port, pages, t0 + seconds, seconds, min(spread, seconds), results))
            opening.start()
            usage = [process_usage(server.pid)]
            for k in (1, 2):
                time.sleep(max(0.0, t0 + k * seconds - time.time()))
                usage.append(process_usage(server.pid))
            bare.close()
            outcomes = [results.get(timeout=60) for _ in [*readers, opening]]
            for proc in [*readers, opening, *procs]:
                proc.join(30)
        finally:
            server.terminate()
            server.wait(20)
    shown = [o for o in outcomes if o[0] == "screen"]
    took = next(o[1] for o in outcomes if o[0] == "pages")
    per_screen = sum(rate for _, _, rate in shown) / len(shown)
    for k, opened in ((0, 0), (1, pages)):
        start, end = t0 + k * seconds, t0 + (k + 1) * seconds
        reference = within(bare.delays, start, end)
        pushed = [d for _, delays, _ in shown for d in within(delays, start, end)]
        cpu = 100 * (usage[k + 1][0] - usage[k][0]) / seconds
        print(f"   {tables:>6}{opened:>7} {'bare MQTT subscriber (reference)':<34}"
              f"{len(reference):>9}{percentile(reference, 0.5):>9.1f}"
              f"{percentile(reference, 0.99):>9.1f}{percentile(reference, 1.0):>9.1f}")
        print(f"   {tables:>6}{opened:>7} {'floor server -> screen (SSE)':<34}{len(pushed):>9}"
              f"{percentile(pushed, 0.5):>9.1f}{percentile(pushed, 0.99):>9.1f}"
              f"{percentile(pushed, 1.0):>9.1f}{'< 100' if k else '< 250':>8}   server "
              f"{cpu:.1f}% of a core, "
              f"{usage[k + 1][1] / 1024:.0f} MB" + ("" if k else
                                                    f"; {per_screen / 1024:.0f} KB/s per screen"))
    logins = [t["login"] for t in took]
    opens = [t["page"] for t in took]
    print(f"   {tables:>6}{pages:>7} {'pages opened':<34}{len(took):>9}   login p50 "
          f"{percentile(logins, 0.5):.0f} ms, max {max(logins, default=0):.0f} ms; page to its "
          f"snapshot p50 {percentile(opens, 0.5):.0f} ms, max {max(opens, default=0):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=None, help="4 100 200")
    parser.add_argument("--workers", type=int, default=4, help="processes of light tables")
    parser.add_argument("--seconds", type=float, default=None, help="the measured window (20)")
    parser.add_argument("--rate", type=float, default=1.0, help="states a second per table")
    parser.add_argument("--screens", type=int, default=4, help="browsers' push streams")
    parser.add_argument("--pages", type=int, default=None,
                        help="pages opened (a login each) during the second window (20)")
    parser.add_argument("--spread", type=float, default=None,
                        help="the seconds over which they open (default: the whole window; "
                        "2: a shift arriving at once)")
    parser.add_argument("--quick", action="store_true", help="4 and 100 tables, 8 s, 10 pages")
    args = parser.parse_args()
    args.tables = args.tables or ([4, 100] if args.quick else [4, 100, 200])
    args.seconds = args.seconds or (8.0 if args.quick else 20.0)
    args.pages = args.pages or (10 if args.quick else 20)
    spread = args.seconds if args.spread is None else args.spread
    print(f"from a table's state publish to the reader, {args.rate:g} state/s per table, "
          f"{args.screens} screens, two windows of {args.seconds:g} s: alone, then while "
          f"{args.pages} pages open (a login each) over {spread:g} s; load before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"   {'tables':>6}{'pages':>7} {'reader':<34}{'states':>9}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'max ms':>9}{'target':>8}")
    for tables in args.tables:
        run(tables, args.workers, args.seconds, args.rate, args.screens, args.pages, spread)


if __name__ == "__main__":
    main()
