"""MQTT benchmarks (issue 6), against a real Mosquitto started here from `broker init` output.

1. Latency from a table event to its state message at a subscriber: a real `TableService`
   (journal with one fsync per event, session, `TableLink`) and a floor client subscribed to the
   table's state; side by side, in the same run and through the same broker, bare paho
   publish-to-receive of a payload of the same size (QoS 1, retained, like the state).
2. One broker and N simulated tables, each a real `TableService` + `TableLink` fed a played
   session at 10 events/s, spread over worker processes, each with a floor client on its
   tables' state topics: p99 event -> state at the floor, and whether any state was lost. N
   grows until p99 passes 100 ms or a message is lost. (a) whole tables: every table's engine
   shares this one machine's CPUs (a room has a Pi per table), so that N is a lower bound; their
   journals are in memory, since in a room each table fsyncs to its own disk. (b) the tables'
   MQTT side only (`TableLink` publishing the states a played session went through): the load
   the broker and the floor see from N Pis.

Run: ``.venv/bin/python bench/mqtt.py [events] [seconds per N]``
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.events import TableEvent, parse_event
from controller.journal import Journal
from controller.local_broker import LocalBroker
from controller.messages import StateMessage, decode
from controller.mqtt_client import BrokerAddress, Login, connect, new_client
from controller.mqtt_link import TableLink
from controller.outbox import Outbox
from controller.outputs import TableState
from controller.script import played_session
from controller.service import TableService
from controller.session import SessionConfig, Step, TableSession
from controller.sinks import MemorySink
from controller.table_runner import TeeSink
from controller.topics import Topics

TARGET_P99_MS = 100.0


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1e3, ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1e3


class Floor:
    """A subscriber that notes when each (table, state seq) arrived."""

    def __init__(self, address: BrokerAddress, login: Login, topics: list[str],
                 name: str) -> None:
        self.arrived: dict[tuple[str, int], float] = {}
        self.sent: dict[tuple[str, int], float] = {}  # wall-clock publish -> receive, s
        self.raw: dict[int, float] = {}
        self.changed = threading.Condition()
        ready = threading.Event()
        self.client = new_client(name, login, address)
        self.client.on_connect = lambda c, *_: c.subscribe([(t, 1) for t in topics])
        self.client.on_subscribe = lambda *_: ready.set()
        self.client.on_message = self._on_message
        connect(self.client, address)
        if not ready.wait(10):
            raise RuntimeError("the floor client did not subscribe")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        if message.payload.startswith(b"bare:"):
            key = int(message.payload[5:15])
            with self.changed:
                self.raw[key] = now
                self.changed.notify_all()
            return
        wall = time.time()
        state = decode(StateMessage, message.payload)
        with self.changed:
            self.arrived[(state.table, state.seq)] = now
            self.sent[(state.table, state.seq)] = wall - state.sent
            self.changed.notify_all()

    def wait(self, test: Any, timeout: float = 5.0) -> bool:
        with self.changed:
            return bool(self.changed.wait_for(test, timeout))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _table(broker_address: BrokerAddress, login: Login, table: str, directory: Path
           ) -> tuple[TableService, TableLink, Outbox]:
    directory.mkdir(parents=True, exist_ok=True)
    outbox = Outbox(directory / "outbox.db")
    link = TableLink(broker_address, login, table, outbox)
    service = TableService(SessionConfig(table_id=table), Journal(directory / "journal.db"),
                           TeeSink([link], MemorySink()))
    service.start()
    link.start(service.submit)
    if not link.listening.wait(10):
        raise RuntimeError(f"table {table} did not connect")
    return service, link, outbox


def script(seed: int, hands: int = 14) -> list[TableEvent]:
    return [parse_event(raw) for raw in played_session(hands, seed=seed, players=6)]


# ---------------------------------------------------------------- 1. one table vs bare paho

def latency(broker: LocalBroker, events: int, tmp: Path) -> None:
    address = broker.address()
    topics = Topics(broker.plan.venue)
    floor = Floor(address, broker.login("floor"), [topics.table("1", "state")], "bench-floor")
    table_samples: list[float] = []
    legs: list[float] = []  # the table's own MQTT leg: state published -> received
    sizes: list[int] = []
    seed = 2
    while len(table_samples) < events:  # one played session per table run, until enough
        service, link, outbox = _table(address, broker.login("table-1"), "1",
                                       tmp / f"table-1-{seed}")
        with floor.changed:
            floor.arrived.clear()
            floor.sent.clear()
        for event in script(seed):
            before = link._seq
            start = time.perf_counter()
            service.submit(event)
            service.drain()
            seq = link._seq
            if seq == before:
                continue  # the event changed nothing public: no state message
            if link._latest_state is not None:
                sizes.append(len(link._latest_state))
            if floor.wait(lambda s=seq: ("1", s) in floor.arrived):
                table_samples.append(floor.arrived[("1", seq)] - start)
                legs.append(floor.sent[("1", seq)])
        link.close()
        service.close()
        outbox.close()
        seed += 1

    # Bare paho, same broker, same topic permissions, a payload of the state's median size.
    size = int(statistics.median(sizes))
    publisher = new_client("bench-bare", broker.login("table-1"), address)
    connected = threading.Event()
    publisher.on_connect = lambda *_: connected.set()
    connect(publisher, address)
    connected.wait(10)
    bare_samples: list[float] = []
    for k in range(len(table_samples)):
        payload = f"bare:{k:010d}".encode().ljust(size, b" ")
        start = time.perf_counter()
        publisher.publish(topics.table("1", "state"), payload, qos=1, retain=True)
        if floor.wait(lambda k=k: k in floor.raw):
            bare_samples.append(floor.raw[k] - start)
    publisher.disconnect()
    publisher.loop_stop()
    floor.close()

    t50, t99 = percentiles(table_samples)
    l50, l99 = percentiles(legs)
    b50, b99 = percentiles(bare_samples)
    print(f"1. event -> state at a subscriber ({len(table_samples)} states, median payload "
          f"{size} bytes)")
    print(f"   {'path':<44}{'p50 ms':>10}{'p99 ms':>10}")
    print(f"   {'table: submit -> journal -> session -> MQTT':<44}{t50:>10.2f}{t99:>10.2f}")
    print(f"   {'  of which the MQTT leg (state sent -> got)':<44}{l50:>10.2f}{l99:>10.2f}")
    print(f"   {'bare paho publish -> receive (reference)':<44}{b50:>10.2f}{b99:>10.2f}")
    print(f"   p99 ratio table / bare: {t99 / b99:.1f}x (target at most 2x)")


# ---------------------------------------------------------------- 2. N tables at 10 events/s

def _states(seed: int) -> list[TableState]:
    """The public states a played session goes through, computed once (links-only mode)."""
    session = TableSession(SessionConfig())
    states: list[TableState] = []
    for event in script(seed, hands=40):
        if session.handle(event).changed:
            states.append(session.state())
    return states


def _worker(port: int, venue: str, logins: dict[str, dict[str, str]], tables: list[int],
            seconds: float, tmp: str, results: Any, links_only: bool, start: Any) -> None:
    logging.basicConfig(level=logging.ERROR)  # a spawned process: the scripts' refusals are play
    address = BrokerAddress(port=port, venue=venue)
    topics = Topics(venue)
    floor = Floor(address, Login.model_validate(logins["floor"]),
                  [topics.table(str(t), "state") for t in tables], f"bench-floor-{tables[0]}")
    submitted: dict[tuple[str, int], float] = {}
    lock = threading.Lock()
    running: list[tuple[TableService, TableLink, Outbox]] = []
    for number in tables:
        table = str(number)
        running.append(_table(address, Login.model_validate(logins[f"table-{table}"]), table,
                              Path(tmp) / f"table-{table}"))
    stop = threading.Event()
    # Everything a table plays is computed before the clock starts, and every worker process
    # starts together: set-up work must not show up as latency.
    streams = {link.table_id: script(100 + k, hands=40) for k, (_, link, _) in enumerate(running)}
    state_lists = {link.table_id: _states(100 + k) if links_only else []
                   for k, (_, link, _) in enumerate(running)}
    gc.freeze()  # the precomputed states are long-lived: keep the collector off them
    start.wait()

    def feed(service: TableService, link: TableLink, seed: int) -> None:
        rng = random.Random(seed)
        stream = iter(streams[link.table_id])
        states = iter(state_lists[link.table_id])
        time.sleep(rng.random() * 0.1)  # tables are not in step
        next_at = time.perf_counter()
        while links_only and not stop.is_set():  # the table's MQTT side alone
            state = next(states, None)
            if state is None:
                return
            start = time.perf_counter()
            link.state(state)
            with lock:
                submitted[(link.table_id, link._seq)] = start
            next_at += 0.1
            time.sleep(max(0.0, next_at - time.perf_counter()))
        while not stop.is_set():
            try:
                event = next(stream)
            except StopIteration:
                return
            start = time.perf_counter()

            def done(step: Step, start: float = start) -> None:
                with lock:
                    submitted.setdefault((link.table_id, link._seq), start)

            service.submit(event, done)
            next_at += 0.1
            time.sleep(max(0.0, next_at - time.perf_counter()))

    threads = [threading.Thread(target=feed, args=(service, link, 100 + k), daemon=True)
               for k, (service, link, _) in enumerate(running)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(5)
    for service, _, _ in running:
        service.drain()
    published = {link.table_id: link._seq for _, link, _ in running}
    floor.wait(lambda: all((t, s) in floor.arrived for t, n in published.items()
                           for s in range(1, n + 1)), timeout=5)
    with floor.changed:
        arrived = dict(floor.arrived)
    lost = sum(1 for t, n in published.items() for s in range(1, n + 1) if (t, s) not in arrived)
    samples = [arrived[key] - start for key, start in submitted.items() if key in arrived]
    for service, link, outbox in running:
        link.close()
        service.close()
        outbox.close()
    floor.close()
    results.put((samples, sum(published.values()), lost))


def _cpu_seconds(broker: LocalBroker) -> float:
    """User + system CPU time Mosquitto used so far (Linux /proc)."""
    assert broker.process is not None
    fields = Path(f"/proc/{broker.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def scale(broker: LocalBroker, counts: list[int], seconds: float, tmp: Path,
          links_only: bool) -> None:
    logins = {name: {"username": c.username, "password": c.password}
              for name, c in broker.credentials.items()}
    what = ("each the table's MQTT side (TableLink) publishing a played session's states"
            if links_only else "each a whole table: journal, session, TableLink")
    print(f"2{'b' if links_only else 'a'}. N tables at 10 events/s, {what}; {seconds:g} s per "
          "N, one floor client per worker process (target: p99 < 100 ms, nothing lost)")
    print(f"   {'N':>5}{'processes':>11}{'states':>9}{'lost':>6}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'broker CPU':>12}")
    best = 0
    context = multiprocessing.get_context("spawn")
    for n in counts:
        processes = max(1, min(16, n // 5))
        groups = [list(range(1 + k, n + 1, processes)) for k in range(processes)]
        results = context.Queue()
        start = context.Barrier(processes)
        workers = [context.Process(target=_worker, args=(
            broker.port, broker.plan.venue, logins, group, seconds,
            str(tmp / f"n{n}{'l' if links_only else ''}"), results, links_only, start))
            for group in groups]
        cpu_before, wall_before = _cpu_seconds(broker), time.monotonic()
        for worker in workers:
            worker.start()
        samples: list[float] = []
        states = lost = 0
        for _ in workers:
            part, published, missing = results.get(timeout=seconds + 120)
            samples += part
            states += published
            lost += missing
        for worker in workers:
            worker.join(10)
        broker_cpu = (_cpu_seconds(broker) - cpu_before) / (time.monotonic() - wall_before)
        p50, p99 = percentiles(samples)
        print(f"   {n:>5}{processes:>11}{states:>9}{lost:>6}{p50:>9.1f}{p99:>9.1f}"
              f"{broker_cpu:>11.1%}")
        if p99 >= TARGET_P99_MS or lost:
            break
        best = n
    print(f"   largest N with p99 under {TARGET_P99_MS:g} ms and nothing lost: {best}")


def main() -> None:
    logging.basicConfig(level=logging.ERROR)  # the scripts' refusals are part of the play
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    counts = [10, 25, 50, 100, 200, 300, 400, 500]
    # Each simulated table's journal and outbox live in memory (/dev/shm where there is one):
    # in a room every table has its own Pi and disk, and the shared part measured here is the
    # broker, not this machine's one disk taking every table's fsyncs.
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory(dir=shm) as fast, \
            LocalBroker("bench", tables=max(counts)) as broker:
        latency(broker, events, Path(tmp))
        scale(broker, counts, seconds, Path(fast), links_only=False)
        scale(broker, counts, seconds, Path(fast), links_only=True)


if __name__ == "__main__":
    main()
