"""MQTT benchmarks, against a real Mosquitto started here from `broker init` output.

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

Run: ``.venv/bin/python bench/mqtt.py [events] [seconds per N] [--part 1|2a|2b] [--quick]``
(quick: 200 events, 3 s per N, N = 10 and 50 only)
"""

from __future__ import annotations

import argparse
import gc
import logging
import multiprocessing
import os
import queue
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.demo.script import played_session
from controller.events import TableEvent, parse_event
from controller.mqtt.client import BrokerAddress, Login, connect, new_client
from controller.mqtt.link import TableLink
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import StateMessage, decode
from controller.mqtt.outbox import Outbox
from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, SqliteRecordStore
from controller.session import SessionConfig, Step, TableSession
from controller.session.outputs import TableState
from controller.table.journal import Journal
from controller.table.runner import TeeSink
from controller.table.service import TableService
from controller.table.sinks import MemorySink

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


def _recorder(port: int, venue: str, login: dict[str, str], db: str, stop: Any) -> None:
    logging.basicConfig(level=logging.ERROR)
    store = SqliteRecordStore(db)
    recorder = Recorder(BrokerAddress(port=port, venue=venue), Login.model_validate(login),
                        store).start()
    stop.wait()
    recorder.close()
    store.close()


# ---------------------------------------------------------------- 1. one table vs bare paho

def _subscriber(port: int, venue: str, login: dict[str, str], topics: list[str],
                arrivals: Any, ready: Any, stop: Any) -> None:
    """The floor, in its own process as in a room: notes when each message arrived
    (``perf_counter`` is the system's monotonic clock, the same in every process)."""

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now, wall = time.perf_counter(), time.time()
        if message.payload.startswith(b"bare:"):
            arrivals.put(("bare", int(message.payload[5:15]), now, 0.0))
        else:
            state = decode(StateMessage, message.payload)
            arrivals.put(("state", state.seq, now, wall - state.sent))

    address = BrokerAddress(port=port, venue=venue)
    client = new_client("bench-subscriber", Login.model_validate(login), address)
    client.on_connect = lambda c, *_: c.subscribe([(topic, 1) for topic in topics])
    client.on_subscribe = lambda *_: ready.set()
    client.on_message = on_message
    connect(client, address)
    stop.wait()
    client.disconnect()
    client.loop_stop()


def _arrival(arrivals: Any, kind: str, key: int) -> tuple[float, float] | None:
    """Wait for one message at the subscriber; older ones (a retained state) are passed over."""
    deadline = time.monotonic() + 5
    while (left := deadline - time.monotonic()) > 0:
        try:
            got_kind, got_key, when, leg = arrivals.get(timeout=left)
        except queue.Empty:
            break
        if (got_kind, got_key) == (kind, key):
            return when, leg
    return None


def latency(broker: LocalBroker, events: int, tmp: Path) -> None:
    """Each table event is followed, on the idle table, by one bare paho message and one
    journal append of the same event, so the three see the machine in the same moment."""
    address = broker.address()
    topics = Topics(broker.plan.venue)
    topic = topics.table("1", "state")
    # The bare reference publishes as table 2 (a client id is its login: table 1's is taken).
    bare_topic = topics.table("2", "state")
    context = multiprocessing.get_context("spawn")
    arrivals, ready, stop = context.Queue(), context.Event(), context.Event()
    floor = broker.credentials["floor"]
    subscriber = context.Process(target=_subscriber, args=(
        broker.port, broker.plan.venue, {"username": floor.username, "password": floor.password},
        [topic, bare_topic], arrivals, ready, stop))
    subscriber.start()
    if not ready.wait(20):
        raise RuntimeError("the subscriber did not subscribe")
    publisher = new_client("table-2", broker.login("table-2"), address)
    connected = threading.Event()
    publisher.on_connect = lambda *_: connected.set()
    connect(publisher, address)
    connected.wait(10)
    reference = Journal(tmp / "reference.db")

    table_samples: list[float] = []
    legs: list[float] = []  # state handed to the link -> received
    bare_samples: list[float] = []
    fsync_samples: list[float] = []
    sizes: list[int] = []
    seed = 2
    kept = waiting = 0
    while len(table_samples) < events:  # one played session per table run, until enough
        service, link, outbox = _table(address, broker.login("table-1"), "1",
                                       tmp / f"table-1-{seed}")
        gc.freeze()  # as the table runner does after start-up
        for event in script(seed):
            while not arrivals.empty():
                arrivals.get()
            before = link._seq
            start = time.perf_counter()
            service.submit(event)
            service.drain()
            seq = link._seq
            if seq == before:
                continue  # the event changed nothing public: no state message
            got = _arrival(arrivals, "state", seq)
            if got is None:
                continue
            table_samples.append(got[0] - start)
            legs.append(got[1])
            assert link._latest_state is not None
            size = len(link._latest_state)
            sizes.append(size)

            k = len(bare_samples)
            start = time.perf_counter()
            publisher.publish(bare_topic, f"bare:{k:010d}".encode().ljust(size, b" "), qos=1,
                              retain=True)
            got = _arrival(arrivals, "bare", k)
            if got is not None:
                bare_samples.append(got[0] - start)

            start = time.perf_counter()
            reference.append(event)
            fsync_samples.append(time.perf_counter() - start)
        time.sleep(0.2)  # the recorder's last acknowledgements
        kept += link.kept
        waiting += outbox.count_pending()
        link.close()
        service.close()
        outbox.close()
        seed += 1
    reference.close()
    publisher.disconnect()
    publisher.loop_stop()
    stop.set()
    subscriber.join(10)

    t50, t99 = percentiles(table_samples)
    l50, l99 = percentiles(legs)
    b50, b99 = percentiles(bare_samples)
    f50, f99 = percentiles(fsync_samples)
    print(f"1. event -> state at a subscriber in its own process ({len(table_samples)} states, "
          f"median payload {int(statistics.median(sizes))} bytes; samples interleaved)")
    print(f"   {'path':<58}{'p50 ms':>9}{'p99 ms':>9}")
    print(f"   {'whole table: submit, journal, session, TableLink, broker':<58}{t50:>9.2f}"
          f"{t99:>9.2f}")
    print(f"   {'  the MQTT side: state handed to TableLink -> received':<58}{l50:>9.2f}"
          f"{l99:>9.2f}")
    print(f"   {'bare paho publish -> receive, same size, QoS 1, retained':<58}{b50:>9.2f}"
          f"{b99:>9.2f}")
    print(f"   {'journal append with its fsync alone (the write-ahead)':<58}{f50:>9.2f}"
          f"{f99:>9.2f}")
    print(f"   p99 ratio to bare (target at most 2x): MQTT side {l99 / b99:.1f}x, "
          f"whole table {t99 / b99:.1f}x")
    print(f"   the recorder acknowledged {kept} outbox messages end to end meanwhile; "
          f"{waiting} still waiting when each run closed")


# ---------------------------------------------------------------- 2. N tables at 10 events/s

def _states(seed: int) -> list[TableState]:
    """The public states a played session goes through, computed once (links-only mode)."""
    session = TableSession(SessionConfig())
    states: list[TableState] = []
    for event in script(seed, hands=40):
        if session.handle(event).changed:
            states.append(session.state())
    return states


def _worker(port: int, venue: str, logins: dict[str, dict[str, str]], display: str,
            tables: list[int], seconds: float, tmp: str, results: Any, links_only: bool,
            start: Any) -> None:
    logging.basicConfig(level=logging.ERROR)  # a spawned process: the scripts' refusals are play
    address = BrokerAddress(port=port, venue=venue)
    topics = Topics(venue)
    # A client id is its login (broker init: use_username_as_clientid), so every worker's
    # floor has a display login of its own.
    floor = Floor(address, Login.model_validate(logins[display]),
                  [topics.table(str(t), "state") for t in tables], display)
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
            broker.port, broker.plan.venue, logins, "display" if k == 0 else f"display-{k + 1}",
            group, seconds, str(tmp / f"n{n}{'l' if links_only else ''}"), results, links_only,
            start)) for k, group in enumerate(groups)]
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("events", nargs="?", type=int, default=None,
                        help="state messages to time in part 1 (1000)")
    parser.add_argument("seconds", nargs="?", type=float, default=None,
                        help="seconds per N in part 2 (10)")
    parser.add_argument("--quick", action="store_true", help="200 events, 3 s, N = 10 and 50")
    parser.add_argument("--part", choices=["1", "2a", "2b"], action="append",
                        help="run only these parts (default: all)")
    parser.add_argument("--no-recorder", action="store_true",
                        help="no recorder: nothing acknowledges the tables' records")
    args = parser.parse_args()
    args.events = args.events or (200 if args.quick else 1000)
    args.seconds = args.seconds or (3.0 if args.quick else 10.0)
    parts = args.part or ["1", "2a", "2b"]
    logging.basicConfig(level=logging.ERROR)  # the scripts' refusals are part of the play
    counts = [10, 50] if args.quick else [10, 25, 50, 75, 100, 150, 200, 300, 400, 500]
    # Each simulated table's journal and outbox live in memory (/dev/shm where there is one):
    # in a room every table has its own Pi and disk, and the shared part measured here is the
    # broker, not this machine's one disk taking every table's fsyncs.
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory(dir=shm) as fast, \
            LocalBroker("bench", tables=max(counts), displays=16) as broker:
        # The recorder runs as in a room, in its own process: it keeps every full record and
        # durable event and acknowledges each to its table (end to end), so the tables' outboxes
        # see the acknowledgements' traffic and writes while they play.
        context = multiprocessing.get_context("spawn")
        recorder_stop = context.Event()
        recorder = context.Process(target=_recorder, args=(
            broker.port, broker.plan.venue, broker.credentials["recorder"].model_dump(),
            str(Path(tmp) / "records.db"), recorder_stop))
        if not args.no_recorder:
            recorder.start()
        try:
            if "1" in parts:
                latency(broker, args.events, Path(tmp))
            if "2a" in parts:
                scale(broker, counts, args.seconds, Path(fast), links_only=False)
            if "2b" in parts:
                scale(broker, counts, args.seconds, Path(fast), links_only=True)
        finally:
            # Stopped whatever happened: a part that raised left the recorder running, and the
            # interpreter's exit waited for it for ever (so did `make bench`).
            recorder_stop.set()
            if not args.no_recorder:
                recorder.join(10)
                if recorder.is_alive():
                    recorder.terminate()


if __name__ == "__main__":
    main()
