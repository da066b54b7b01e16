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
"""

from __future__ import annotations

import argparse
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
from controller.session import SessionConfig, TableSession
from controller.session.outputs import TableState

ROOT = Path(__file__).resolve().parents[1]


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
    delays: list[float] = []
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
                        delays.append((now - sent) * 1e3)
    sock.close()
    results.put(("screen", delays, received / (time.monotonic() - start)))


def bare_subscriber(broker: LocalBroker, seconds: float) -> list[float]:
    """The reference: the display login straight on the broker, the same states."""
    delays: list[float] = []
    lock = threading.Lock()
    client = new_client("display", broker.login("display"), broker.address())
    topic = Topics(broker.plan.venue).table("+", "state")
    client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)

    def on_message(c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        if message.retain:
            return
        sent = json.loads(message.payload)["sent"]
        with lock:
            delays.append((now - sent) * 1e3)

    client.on_message = on_message
    connect(client, broker.address())
    time.sleep(seconds)
    client.disconnect()
    client.loop_stop()
    return delays


def run(tables: int, workers: int, seconds: float, rate: float, screens: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, LocalBroker("bench", tables=tables) as broker:
        port = free_port()
        config = service_config(broker, Path(tmp), "floor",
                                f'[floor]\nlisten = "127.0.0.1"\nport = {port}')
        server = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--config",
                                   str(config)], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(2.0)
            procs = [multiprocessing.Process(target=light_tables, args=(
                broker.address().model_dump(mode="json"), logins, seconds + 6.0, rate))
                for logins in worker_logins(broker, tables, workers)]
            for proc in procs:
                proc.start()
            time.sleep(3.0)  # connected, publishing
            results: Any = multiprocessing.Queue()
            readers = [multiprocessing.Process(target=screen, args=(port, seconds, results))
                       for _ in range(screens)]
            for proc in readers:
                proc.start()
            cpu0, _ = process_usage(server.pid)
            t0 = time.monotonic()
            bare = bare_subscriber(broker, seconds)
            cpu1, rss = process_usage(server.pid)
            elapsed = time.monotonic() - t0
            outcomes = [results.get(timeout=60) for _ in readers]
            for proc in readers + procs:
                proc.join(30)
        finally:
            server.terminate()
            server.wait(20)
    pushed = [d for _, delays, _ in outcomes for d in delays]
    per_screen = sum(rate for _, _, rate in outcomes) / len(outcomes)
    print(f"   {tables:>6} {'bare MQTT subscriber (reference)':<34}{len(bare):>9}"
          f"{percentile(bare, 0.5):>9.1f}{percentile(bare, 0.99):>9.1f}")
    print(f"   {tables:>6} {'floor server -> screen (SSE)':<34}{len(pushed):>9}"
          f"{percentile(pushed, 0.5):>9.1f}{percentile(pushed, 0.99):>9.1f}"
          f"   server {100 * (cpu1 - cpu0) / elapsed:.1f}% of a core, {rss / 1024:.0f} MB; "
          f"{per_screen / 1024:.0f} KB/s per screen")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--workers", type=int, default=4, help="processes of light tables")
    parser.add_argument("--seconds", type=float, default=20.0, help="the measured window")
    parser.add_argument("--rate", type=float, default=1.0, help="states a second per table")
    parser.add_argument("--screens", type=int, default=4, help="browsers' push streams")
    args = parser.parse_args()
    print(f"from a table's state publish to the reader, {args.rate:g} state/s per table, "
          f"{args.screens} screens, {args.seconds:g} s")
    print(f"   {'tables':>6} {'reader':<34}{'states':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for tables in args.tables:
        run(tables, args.workers, args.seconds, args.rate, args.screens)


if __name__ == "__main__":
    main()
