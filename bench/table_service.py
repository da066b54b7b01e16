"""Table service latency and memory.

1. Latency from a driver handing over an event (the TagReader's ``emit``, or the dealer console)
   to the resulting state at the output, through the real loop: journal (SQLite WAL,
   synchronous=FULL, one fsync per event), session, sink. Cards come from a simulated PT1 reader
   on a pty read by the real TagReader. Side by side, measured in the same run: the journal
   append alone and `TableSession.handle` alone, for the same events.
2. RSS of `pokertable table --simulate` (service, drivers, simulators, simulated dealer) after it
   played its hands, next to a bare Python interpreter's.

Run: ``.venv/bin/python bench/table_service.py [hands] [--quick]``
(quick: 5 hands, not 20; the simulated table plays 2, not 5)
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from controller.events import DeclareEvent, ShuffleEvent, TableEvent, parse_event
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PublicEvent, TableState
from controller.sim.table_rig import demo_deck
from controller.table.journal import Journal
from controller.table.service import TableService
from drivers.reader_config import ReaderConfig
from drivers.registry import REGISTRATION_ORDER
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice
from drivers.tag_reader import TagReader

SEATS = (1, 2, 3, 4, 5, 6)


class TimingSink:
    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.last: TableState | None = None

    def state(self, state: TableState) -> None:
        with self.changed:
            self.last = state
            self.changed.notify_all()

    def event(self, event: PublicEvent) -> None:
        pass

    def recovered(self, events: object) -> None:
        pass

    def record(self, record: object) -> None:
        pass


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1e3, ordered[int(len(ordered) * 0.99) - 1] * 1e3


def measure_loop(
    hands: int, tmp: Path
) -> tuple[list[float], list[TableEvent], list[TableEvent]]:
    sink = TimingSink()
    service = TableService(SessionConfig(), Journal(tmp / "bench.db"), sink)
    stamps: dict[int, float] = {}
    latencies: list[float] = []
    handled: list[TableEvent] = []
    stamped: list[TableEvent] = []
    apply = service._apply  # every event passes here once it is journaled, grouped or not

    def timed(event: TableEvent, seq: int) -> object:
        step = apply(event, seq)
        if id(event) in stamps:
            latencies.append(time.perf_counter() - stamps.pop(id(event)))
            stamped.append(event)
        handled.append(event)
        return step

    service._apply = timed  # type: ignore[method-assign, assignment]

    def emit(event: TableEvent) -> None:
        stamps[id(event)] = time.perf_counter()
        service.submit(event)

    deck = demo_deck()
    uid_of = {card: uid for uid, card in deck.cards.items()}
    zones = {s: f"seat:{s}" for s in SEATS} | {11: "board", 12: "muck"}
    device = VirtualSerialDevice(tmp / "usb-bench-cards")
    simulator = SimulatedPt1Reader(device, repeat=0.2)
    reader = ReaderConfig(name="cards", url=str(device.path), protocol="pt1", zones=zones)
    rng = random.Random(3)
    service.start()
    for seat in SEATS:
        service.submit(parse_event({"type": "seat", "seat": seat, "player": f"p{seat}",
                                    "stack": 1_000_000}))
    with TagReader(reader, emit, deck=deck):
        for _ in range(hands):
            number = _wait(sink, lambda s: True).hand
            emit(ShuffleEvent())
            state = _wait(sink, lambda s, n=number: s.hand == n + 1)
            cards = list(REGISTRATION_ORDER)
            rng.shuffle(cards)
            placed = []
            for _round in range(2):
                for seat in (*state.seats.keys(),):
                    uid = uid_of[cards.pop()]
                    simulator.place(seat, uid)
                    placed.append((seat, uid))
                    time.sleep(0.003)
            _wait(sink, lambda s: all(v.cards == 2 for v in s.seats.values()))
            while True:  # everyone calls to the river, checking it down
                state = _wait(sink, lambda s: True)
                if state.stage == "over":
                    break
                if state.stage == "betting" and state.actor is not None:
                    action = "call" if state.to_call else "check"
                    emit(DeclareEvent(seat=state.actor, action=action))
                elif state.stage == "dealing":
                    for _card in range(1 if state.board else 3):
                        uid = uid_of[cards.pop()]
                        simulator.place(11, uid)
                        placed.append((11, uid))
                        time.sleep(0.003)
                elif state.stage == "showdown":
                    emit(parse_event({"type": "key", "key": "confirm"}))
                _wait(sink, lambda s, before=state: s != before)
            for antenna, uid in placed:
                simulator.remove(antenna, uid)
    service.stop()
    simulator.close()
    device.close()
    service.journal.close()
    return latencies, handled, stamped


def _wait(sink: TimingSink, test: object, timeout: float = 10.0) -> TableState:
    with sink.changed:
        ok = sink.changed.wait_for(lambda: sink.last is not None and test(sink.last),  # type: ignore[operator]
                                   timeout)
        if not ok or sink.last is None:
            raise TimeoutError("the table did not move")
        return sink.last


def measure_parts(events: list[TableEvent], tmp: Path) -> tuple[list[float], list[float]]:
    journal = Journal(tmp / "parts.db")
    session = TableSession()
    appends: list[float] = []
    handles: list[float] = []
    for event in events:
        start = time.perf_counter()
        journal.append(event, session.checkpoint(event))
        middle = time.perf_counter()
        session.handle(event)
        session.state()
        end = time.perf_counter()
        appends.append(middle - start)
        handles.append(end - middle)
    journal.close()
    return appends, handles


def rss_of_table(hands: int, tmp: Path) -> tuple[float, float]:
    config = tmp / "table.toml"
    config.write_text('[table]\njournal = "rss.db"\noutput = "out"\n')
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "table", "--config",
                                str(config), "--simulate", "--hands", str(hands)])
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, _rss_mb(process.pid))
        time.sleep(0.1)
    bare = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    time.sleep(0.3)
    reference = _rss_mb(bare.pid)
    bare.wait()
    return peak, reference


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("hands", nargs="?", type=int, default=None, help="default 20")
    parser.add_argument("--quick", action="store_true", help="5 hands")
    args = parser.parse_args()
    hands = args.hands or (5 if args.quick else 20)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        latencies, events, stamped = measure_loop(hands, tmp)
        appends, handles = measure_parts(events, tmp)
        p50, p99 = percentiles(latencies)
        a50, a99 = percentiles(appends)
        h50, h99 = percentiles(handles)
        print(f"{len(latencies)} driver events over {hands} hands (6 players, checked down)")
        print(f"  driver event -> state at the output : p50 {p50:6.2f} ms   p99 {p99:6.2f} ms"
              "   (target p99 < 5 ms)")
        moving = [lat for lat, e in zip(latencies, stamped, strict=True) if e.type != "gone"]
        m50, m99 = percentiles(moving)
        print(f"  the same without 'gone' (no output) : p50 {m50:6.2f} ms   p99 {m99:6.2f} ms")
        print(f"  reference: journal append alone     : p50 {a50:6.2f} ms   p99 {a99:6.2f} ms")
        print(f"  reference: session.handle + state   : p50 {h50:6.2f} ms   p99 {h99:6.2f} ms")
        simulated = 2 if args.quick else 5
        peak, bare = rss_of_table(simulated, tmp)
        print(f"RSS of pokertable table --simulate ({simulated} hands): {peak:.1f} MB "
              f"(bare python: {bare:.1f} MB; target < 80 MB)")


if __name__ == "__main__":
    main()
