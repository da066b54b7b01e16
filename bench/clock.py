"""The clock's time sync: how far each table's estimate of the clock's time is from the truth.

Tables (their MQTT side, `TableLink`) run with artificial wall-clock errors of up to five
minutes against one `ClockService`, all through a real Mosquitto on loopback. After every
exchange the table's estimate (the offset of the smallest-round-trip sample among its last
eight) is compared with the true offset; beside it, in the same run, the naive one-way estimate
(the clock's send time minus the table's arrival time, what the tables did before). Then the
same with 0-20 ms of extra delay injected at random on the table's side, on each leg
independently, so that every exchange is asymmetric (the case NTP is weakest at).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
from pathlib import Path

from controller.mqtt.link import SYNC_SAMPLES, TableLink
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import TimeReply, TimeRequest, encode
from controller.mqtt.outbox import Outbox
from controller.room.clock_service import ClockService, ClockStore
from controller.room.structure import load_structure

ROOT = Path(__file__).resolve().parents[1]


class MeasuredLink(TableLink):
    """A table's link whose wall clock is off by ``skew`` and whose requests may wait up to
    ``delay`` seconds before they leave; it notes every estimate against the truth."""

    def __init__(self, *args: object, skew: float, delay: float, rng: random.Random,
                 **kw: object) -> None:
        super().__init__(*args, clock=lambda: time.time() - skew, **kw)  # type: ignore[arg-type]
        self.skew, self.delay, self.rng = skew, delay, rng
        self.errors: list[float] = []
        self.naive: list[float] = []
        self.lock = threading.Lock()

    def _sync(self) -> None:  # the same exchange, with the outbound leg delayed on purpose
        asked = 0
        while not self._sync_stop.wait(0.05 if asked < SYNC_SAMPLES else 0.2):
            if self.connected.is_set():
                t0 = self._clock()
                if self.delay:
                    time.sleep(self.rng.random() * self.delay)
                self._client.publish(self._topic("time"), encode(TimeRequest(t0=t0)), qos=0)
                asked += 1

    def _time_reply(self, reply: TimeReply) -> None:
        if self.delay:  # the inbound leg waits too, independently: every sample is asymmetric
            time.sleep(self.rng.random() * self.delay)
        arrived = self._clock()
        super()._time_reply(reply)
        if self.clock_offset is None:
            return
        with self.lock:
            self.errors.append(abs(self.clock_offset - self.skew))
            self.naive.append(abs((reply.sent - arrived) - self.skew))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sync_errors(broker: LocalBroker, tables: int, seconds: float, delay: float,
                tmp: Path) -> tuple[list[float], list[float]]:
    rng = random.Random(7)
    links: list[MeasuredLink] = []
    for n in range(1, tables + 1):
        outbox = Outbox(tmp / f"outbox-{n}-{delay}.db")
        link = MeasuredLink(broker.address(), broker.login(f"table-{n}"), str(n), outbox,
                            skew=rng.uniform(-300, 300), delay=delay, rng=rng)
        link.start()
        links.append(link)
    time.sleep(seconds)
    for link in links:
        link.close()
    errors = [e for link in links for e in link.errors[SYNC_SAMPLES:]]
    naive = [e for link in links for e in link.naive[SYNC_SAMPLES:]]
    return errors, naive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20, help="tables syncing in parts 1-2")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per part")
    args = parser.parse_args()
    structure = load_structure(ROOT / "deploy" / "structures" / "turbo.toml")
    with tempfile.TemporaryDirectory() as tmp, \
            LocalBroker("bench", tables=args.tables) as broker:
        store = ClockStore(Path(tmp) / "clock.db")
        clock = ClockService(broker.address(), broker.login("clock"), structure, store).start()
        clock.connected.wait(5)
        print(f"time sync: {args.tables} tables with wall clocks up to 5 min wrong, "
              f"{args.seconds:g} s each, the error of the estimate against the true offset")
        print(f"   {'case':<44}{'estimates':>10}{'p50 ms':>9}{'p99 ms':>9}")
        for label, delay in (("loopback", 0.0), ("0-20 ms per leg", 0.020)):
            errors, naive = sync_errors(broker, args.tables, args.seconds, delay, Path(tmp))
            for what, values in ((f"{label}: NTP, least round trip of 16", errors),
                                 (f"{label}: naive one-way (reference)", naive)):
                print(f"   {what:<44}{len(values):>10}{percentile(values, 0.5) * 1e3:>9.2f}"
                      f"{percentile(values, 0.99) * 1e3:>9.2f}")
        clock.close()
        store.close()


if __name__ == "__main__":
    main()
