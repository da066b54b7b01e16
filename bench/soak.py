"""The long soak: 8 simulated tables, 1,250 hands each (10,000 hands), first with a perfect dealer
(every alert is a false alert), then with a dealer who makes a mistake in one hand of ten (each
must give exactly one alert). Beside it, the same hands' reference: the session alone replaying
the journal of events the soak fed it (what the table itself costs, without the dealer).

Each run's hands per second are printed beside the target (10,000 hands in under a minute, as
`pokertable soak --tables 8 --hands 1250`: 167 hands/s) and beside the session alone.

Run: .venv/bin/python bench/soak.py [--hands-per-table N] [--quick]
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


# The README's promise: 10,000 hands in under a minute.
TARGET_HANDS, TARGET_SECONDS = 10_000, 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands-per-table", type=int, default=None,
                        help="default 1250 (10,000 hands), 100 with --quick")
    parser.add_argument("--quick", action="store_true", help="800 hands instead of 10,000")
    args = parser.parse_args()
    per_table = args.hands_per_table or (100 if args.quick else 1250)
    events, seconds = _reference(per_table)
    alone = per_table / seconds
    target = TARGET_HANDS / TARGET_SECONDS
    for faults in (0.0, 0.1):
        report = soak(args.tables, per_table, seed=2026, faults=faults)
        who = "perfect dealer" if not faults else "faulty dealer (1 hand in 10)"
        print(f"{who}: {report.summary()}")
        print(f"  {report.hands / report.seconds:,.0f} hands/s ({report.hands:,} hands in "
              f"{report.seconds:.1f} s; target {target:,.0f} hands/s, {TARGET_HANDS:,} in under "
              f"{TARGET_SECONDS:g} s; the session alone {alone:,.0f} hands/s); false alerts "
              f"{report.false_alarms}, faults without their alert {len(report.missed)}")
    print(f"reference: the session alone replays one table's {events:,} input events "
          f"({per_table:,} hands) in {seconds:.2f} s ({events / seconds:,.0f} events/s, "
          f"{alone:,.0f} hands/s)")


if __name__ == "__main__":
    main()
