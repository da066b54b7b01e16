"""The long soak: 8 simulated tables, 1,250 hands each (10,000 hands), first with a perfect dealer
(every alert is a false alert), then with a dealer who makes a mistake in one hand of ten (each
must give exactly one alert). Beside it, the same hands' reference: the session alone replaying
the journal of events the soak fed it (what the table itself costs, without the dealer).

Run: .venv/bin/python bench/soak.py [--hands-per-table N]
"""

from __future__ import annotations

import argparse
import time

from controller.session import SessionConfig, TableSession
from controller.sim import soak as soak_module
from controller.sim.soak import soak


def _reference(hands: int) -> tuple[int, float]:
    """Events per second of the bare session replaying one soak table's input."""
    fed: list[object] = []
    original = soak_module.DirectHands.feed

    def record(self: soak_module.DirectHands, event: object) -> None:
        fed.append((self.session.config, event))
        original(self, event)  # type: ignore[arg-type]

    soak_module.DirectHands.feed = record  # type: ignore[method-assign]
    try:
        soak(1, hands, seed=99)
    finally:
        soak_module.DirectHands.feed = original  # type: ignore[method-assign]
    config: SessionConfig = fed[0][0]  # type: ignore[index]
    session = TableSession(config)
    started = time.perf_counter()
    for _, event in fed:  # type: ignore[misc]
        session.handle(event)
    return len(fed), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands-per-table", type=int, default=1250)
    args = parser.parse_args()
    for faults in (0.0, 0.1):
        report = soak(args.tables, args.hands_per_table, seed=2026, faults=faults)
        who = "perfect dealer" if not faults else "faulty dealer (1 hand in 10)"
        print(f"{who}: {report.summary()}")
        print(f"  {report.hands / report.seconds:,.0f} hands/s; false alerts "
              f"{report.false_alarms}, faults without their alert {len(report.missed)}")
    events, seconds = _reference(args.hands_per_table)
    print(f"reference: the session alone replays one table's {events:,} input events in "
          f"{seconds:.2f} s ({events / seconds:,.0f} events/s)")


if __name__ == "__main__":
    main()
