"""The broadcast's pre-flop equities beside the floor's pushes: how late a push gets while a
broadcast page has hands' steps built (docs/broadcast.md, "Equity").

The floor hears the broker on paho's network thread and hands each message to its web loop
(``call_soon_threadsafe``), which frames it for the screens. Here a thread does the same every
5 ms with the time it sent it, and the loop measures how late each arrives and frames a table
state as JSON (a push's own work). Three windows: nothing else; the hands' steps built on a
thread of the same process (as before: the Monte Carlo's pure Python holds the interpreter's
lock); built in the feed's equity worker, a process of its own (`StepBuilder`). In each busy
window the example hands (docs/examples/two-hands.jsonl) are built one after the other for the
whole window, each with its pre-flop Monte Carlo (20,000 boards) and exact later streets.

    .venv/bin/python bench/broadcast_equity.py [--seconds 8] [--quick]   (quick: 3 s windows)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time
from pathlib import Path

from controller.engine.records import HandRecord
from controller.events import parse_event
from controller.room.floor.broadcast import StepBuilder
from controller.session import SessionConfig, TableSession

ROOT = Path(__file__).resolve().parents[1]
PERIOD = 0.005


def example_hands() -> tuple[list[HandRecord], dict[str, object]]:
    """The example's sealed hands, and a table state (what a push frames)."""
    session = TableSession(SessionConfig(table_id="1"))
    for line in (ROOT / "docs" / "examples" / "two-hands.jsonl").read_text().splitlines():
        if line.strip():
            session.handle(parse_event(json.loads(line)))
    records = [r for r in session.table.records if r.status == "complete" and r.actions]
    return records, json.loads(session.state().model_dump_json())


async def window(seconds: float, builder: StepBuilder | None, records: list[HandRecord],
                 state: dict[str, object]) -> tuple[list[float], int]:
    """(each push's delay in ms, hands built) over ``seconds``."""
    loop = asyncio.get_running_loop()
    delays: list[float] = []
    stop = threading.Event()

    def arrived(sent: float) -> None:
        delays.append((time.perf_counter() - sent) * 1000)
        json.dumps(state)  # the push's own framing

    def network() -> None:
        while not stop.is_set():
            loop.call_soon_threadsafe(arrived, time.perf_counter())
            time.sleep(PERIOD)

    built = 0
    if builder is not None:  # (the worker started before the window: not a push's delay)
        await builder.build(records[0], [0.0] * len(records[0].actions))
    sender = threading.Thread(target=network, daemon=True)
    sender.start()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if builder is None:
            await asyncio.sleep(0.05)
            continue
        record = records[built % len(records)]
        await builder.build(record, [0.0] * len(record.actions))
        built += 1
    stop.set()
    sender.join()
    return delays, built


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1]


async def main(seconds: float) -> None:
    records, state = example_hands()
    threaded = StepBuilder()
    threaded._broken = True  # (as before: on a thread of this process)
    worker = StepBuilder()
    print(f"{'steps built':<34}{'hands':>7}{'pushes':>8}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'max ms':>9}")
    for name, builder in (("nothing else", None), ("on a thread (before)", threaded),
                          ("in the equity worker (now)", worker)):
        delays, built = await window(seconds, builder, records, state)
        print(f"{name:<34}{built:>7}{len(delays):>8}{quantile(delays, 0.5):>9.2f}"
              f"{quantile(delays, 0.99):>9.2f}{max(delays):>9.2f}")
    worker.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=None, help="each window (8)")
    parser.add_argument("--quick", action="store_true", help="3 s windows")
    args = parser.parse_args()
    asyncio.run(main(args.seconds or (3.0 if args.quick else 8.0)))
