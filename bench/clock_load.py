"""The clock's CPU and memory with a room of tables syncing.

`pokertable clock` runs as its own process, as on the central host, against a real Mosquitto on
loopback. The tables are light MQTT clients, each with its own login, that do what a table's
link does towards the clock: 16 quick time requests at start-up, then one every 2 s; in the
second part each also publishes its state once a second (the clock reads every table's state for
hand-for-hand). They run in a few worker processes with one network loop each, so that the
load generator is not what limits the room. The clock's CPU time and resident memory are read
from /proc over the same window, beside the same clock with no table at all (the reference).

    .venv/bin/python bench/clock_load.py [--quick]   (quick: 50 tables, 8 s windows)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from room_load import NetworkLoop, process_usage, service_config, worker_logins

from controller.mqtt.client import BrokerAddress, Login, new_client
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import StateMessage, StatusMessage, TimeRequest, encode
from controller.mqtt.topics import Topics
from controller.session import TableSession

ROOT = Path(__file__).resolve().parents[1]


def light_tables(address: dict[str, Any], logins: dict[str, dict[str, str]], seconds: float,
                 states: bool, results: Any) -> None:
    """A worker: these tables' time sync (and states) for ``seconds``, one select loop for all;
    puts (table, replies received, worst round trip in ms) for each on ``results``."""
    where = BrokerAddress.model_validate(address)
    topics = Topics(where.venue)
    template = TableSession().state()
    replies: dict[str, int] = {}
    worst: dict[str, float] = {}
    clients: dict[str, mqtt.Client] = {}
    for table, login in logins.items():
        client = new_client(f"table-{table}", Login.model_validate(login), where)

        def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage,
                       table: str = table) -> None:
            replies[table] = replies.get(table, 0) + 1
            t0 = json.loads(message.payload)["t0"]
            worst[table] = max(worst.get(table, 0.0), (time.time() - t0) * 1e3)

        def on_connect(client: mqtt.Client, *_: object, table: str = table) -> None:
            client.subscribe(topics.clock(f"time/{table}"), qos=0)
            client.publish(topics.table(table, "status"),
                           encode(StatusMessage(table=table, status="online")), qos=1,
                           retain=True)

        client.on_message = on_message
        client.on_connect = on_connect
        client.connect(where.host, where.port, keepalive=60)
        clients[table] = client
    network = NetworkLoop(clients.values())
    rng = random.Random(os.getpid())
    due = {table: time.monotonic() + rng.random() * 0.2 for table in clients}
    asked = dict.fromkeys(clients, 0)
    next_state = {table: time.monotonic() + rng.random() for table in clients}
    seq = 0
    end = time.monotonic() + seconds
    while (now := time.monotonic()) < end:
        network.read(timeout=0.01)
        for table, client in clients.items():
            if now >= due[table]:
                client.publish(topics.table(table, "time"),
                               encode(TimeRequest(t0=time.time())), qos=0)
                asked[table] += 1
                due[table] = now + (0.2 if asked[table] < 16 else 2.0)
            if states and now >= next_state[table]:
                seq += 1
                state = template.model_copy(update={"table": table, "hand": seq})
                client.publish(topics.table(table, "state"),
                               encode(StateMessage(table=table, seq=seq, sent=time.time(),
                                                   state=state)), qos=1, retain=True)
                next_state[table] = now + 1.0
        network.write()
    for table, client in clients.items():
        results.put((table, replies.get(table, 0), worst.get(table, 0.0)))
        client.disconnect()


def measure(pid: int, seconds: float) -> tuple[float, int]:
    """The clock's CPU share (% of one core) over ``seconds`` and its memory at the end."""
    cpu0, _ = process_usage(pid)
    t0 = time.monotonic()
    time.sleep(seconds)
    cpu1, rss = process_usage(pid)
    return 100 * (cpu1 - cpu0) / (time.monotonic() - t0), rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=None, help="default 200")
    parser.add_argument("--workers", type=int, default=4, help="processes of light tables")
    parser.add_argument("--seconds", type=float, default=None, help="the measured window (30)")
    parser.add_argument("--quick", action="store_true", help="50 tables, 8 s")
    args = parser.parse_args()
    args.tables = args.tables or (50 if args.quick else 200)
    args.seconds = args.seconds or (8.0 if args.quick else 30.0)
    with tempfile.TemporaryDirectory() as tmp, \
            LocalBroker("bench", tables=args.tables) as broker:
        structure = ROOT / "deploy" / "structures" / "pvb-deep.toml"
        config = service_config(broker, Path(tmp), "clock",
                                f'[clock]\nstructure = "{structure}"\ndb = "clock.db"')
        clock = subprocess.Popen([sys.executable, "-m", "controller.cli", "clock", "--config",
                                  str(config)], cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(2.0)
            print(f"the clock (its own process) over {args.seconds:g} s; tables in "
                  f"{args.workers} processes")
            print(f"   {'case':<42}{'CPU % core':>11}{'RSS MB':>8}{'synced':>8}"
                  f"{'replies/s':>10}{'worst rtt ms':>13}")
            cpu, rss = measure(clock.pid, min(args.seconds, 10.0))
            print(f"   {'no tables (reference)':<42}{cpu:>11.1f}{rss / 1024:>8.1f}")
            for label, states in ((f"{args.tables} tables syncing", False),
                                  (f"{args.tables} tables syncing, a state/s each", True)):
                results: Any = multiprocessing.Queue()
                tables = [str(n) for n in range(1, args.tables + 1)]
                workers = [multiprocessing.Process(target=light_tables, args=(
                    broker.address().model_dump(mode="json"), logins, args.seconds + 8.0,
                    states, results))
                    for logins in worker_logins(broker, args.tables, args.workers)]
                for worker in workers:
                    worker.start()
                time.sleep(5.0)  # connected, the quick first exchanges done
                cpu, rss = measure(clock.pid, args.seconds)
                counts = [results.get(timeout=60) for _ in tables]
                for worker in workers:
                    worker.join(30)
                synced = sum(1 for _, replies, _ in counts if replies >= 16)
                total = sum(replies for _, replies, _ in counts)
                worst = max(w for _, _, w in counts)
                print(f"   {label:<42}{cpu:>11.1f}{rss / 1024:>8.1f}"
                      f"{f'{synced}/{len(tables)}':>8}{total / (args.seconds + 8.0):>10.0f}"
                      f"{worst:>13.1f}")
        finally:
            clock.terminate()
            clock.wait(20)


if __name__ == "__main__":
    main()
