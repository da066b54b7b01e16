"""Export throughput: `pokertable hands export` of 100,000 stored hands to each format, the whole
process (start-up, the store read row by row, the public view, the format), with its peak memory.

The hands: a soak's records (8 tables: antes, big-blind antes, all-ins, side pots, Omaha, the
misdeals the floor calls), repeated under new hand numbers and days until there are 100,000, in
a recorder's store (records.db). The references, measured in the same run on the same hands:
- the store read and every record parsed and written back as JSON, in one process without the
  cli or a view: what any export must at least do;
- PokerKit's own PHH writer (`HandHistory.dumps`) on the same hands, already parsed (only the
  writing is timed).
Each side runs three rounds, alternating, so that load on a shared machine hits all alike; the
best round counts. Target: 10,000 hands/s.

Run: .venv/bin/python bench/export.py [--hands 100000] [--soak-hands 250] [--quick]
(quick: 5,000 hands from 40 soak hands a table, PokerKit's writer on 2,000)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

FORMATS = ("json", "phh", "stars")

# The child prints its peak resident memory (KB: VmHWM, its own; ru_maxrss would carry the
# parent's from the fork) on its last line of stderr.
PEAK = """
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
"""
CHILD = PEAK + """
import sys
from controller.cli import main
code = main(sys.argv[1:])
print(peak(), file=sys.stderr)
sys.exit(code)
"""

REFERENCE = PEAK + """
import sqlite3, sys
from controller.engine.records import HandRecord
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
with open(sys.argv[2], "w") as out:
    for (text,) in db.execute("SELECT record FROM records ORDER BY table_id, hand, received"):
        out.write(HandRecord.model_validate_json(text).model_dump_json() + "\\n")
print(peak(), file=sys.stderr)
"""


def make_store(path: Path, hands: int, soak_hands: int) -> int:
    """A recorder's store of ``hands`` records; returns how many are complete."""
    from controller.engine.records import HandRecord
    from controller.room.recorder import SqliteRecordStore
    from controller.room.recorder.search import players_of
    from controller.session.outputs import hand_id
    from controller.sim.soak import soak

    records: list[HandRecord] = []
    soak(8, soak_hands, seed=5, records=records.append)
    store = SqliteRecordStore(path)
    db = store._db  # one transaction for them all, in the store's own layout (sqlite.py)
    db.execute("BEGIN")
    complete = 0
    for k in range(hands):
        base = records[k % len(records)]
        day = k // len(records)
        record = base.model_copy(update={"hand": base.hand + 10_000 * day,
                                         "started": (base.started or 0.0) + 86_400 * day})
        complete += record.status == "complete"
        cursor = db.execute(
            "INSERT INTO records (venue, id, table_id, hand, started, received, sent, record) "
            "VALUES ('', ?, ?, ?, ?, ?, NULL, ?)",
            (hand_id(record.table, record.hand, record.started), record.table, record.hand,
             record.started, float(k), record.model_dump_json()))
        db.executemany("INSERT INTO hand_players (player, started, seq) VALUES (?, ?, ?)",
                       [(name, record.started, cursor.lastrowid)
                        for name in players_of(record.players)])
    db.execute("COMMIT")
    store.close()
    return complete


def run_child(code: str, args: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr[-500:]}")
    return elapsed, int(done.stderr.strip().splitlines()[-1])


def pokerkit_writer(store: Path, hands: int) -> float:
    """Seconds PokerKit's writer takes for the same hands' PHH (parsed beforehand)."""
    from pokerkit import HandHistory

    from controller.cli.sources import stored_hands
    from controller.history.export import view
    from controller.history.phh_export import record_phh
    from controller.history.query import HandQuery

    histories = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for record, _ in view(stored_hands(store, HandQuery())):
            if record.status == "complete":
                histories.append(HandHistory.loads(record_phh(record)))
            if len(histories) == hands:
                break
    started = time.perf_counter()
    for history in histories:
        history.dumps()
    return (time.perf_counter() - started) * hands / len(histories)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=None, help="default 100,000")
    parser.add_argument("--soak-hands", type=int, default=None,
                        help="soak hands per table (8 tables) repeated to --hands (250)")
    parser.add_argument("--pokerkit-hands", type=int, default=None,
                        help="hands PokerKit's writer writes (scaled to --hands; 20,000)")
    parser.add_argument("--quick", action="store_true", help="5,000 hands")
    args = parser.parse_args()
    args.hands = args.hands or (5_000 if args.quick else 100_000)
    args.soak_hands = args.soak_hands or (40 if args.quick else 250)
    args.pokerkit_hands = args.pokerkit_hands or (2_000 if args.quick else 20_000)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "records.db"
        started = time.perf_counter()
        complete = make_store(store, args.hands, args.soak_hands)
        print(f"{args.hands:,} stored hands ({complete:,} complete) made in "
              f"{time.perf_counter() - started:.0f} s; {store.stat().st_size / 1e6:.0f} MB; "
              "best of three alternating rounds each; target 10,000 hands/s")
        best: dict[str, tuple[float, int]] = {}
        for _ in range(3):
            for fmt in FORMATS:
                out = Path(tmp) / f"out.{fmt}"
                result = run_child(CHILD, ["hands", "export", str(store), "--format", fmt,
                                           "--out", str(out)])
                if fmt not in best or result[0] < best[fmt][0]:
                    best[fmt] = result
            result = run_child(REFERENCE, [str(store), str(Path(tmp) / "reference.jsonl")])
            if "reference" not in best or result[0] < best["reference"][0]:
                best["reference"] = result
        writer = pokerkit_writer(store, min(args.pokerkit_hands, complete))
        for name, (seconds, peak) in best.items():
            label = {"reference": "reference: read, parse, write JSON"}.get(
                name, f"hands export --format {name}")
            print(f"{label:40} {args.hands / seconds:10,.0f} hands/s  {seconds:6.1f} s  "
                  f"peak {peak / 1024:5.0f} MB")
        print(f"{'reference: PokerKit HandHistory.dumps':40} {args.hands / writer:10,.0f} "
              f"hands/s  (writing only, hands already parsed)")


if __name__ == "__main__":
    main()
