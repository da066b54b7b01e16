"""Compare FPDB-3's SQLite database, after its own bulk import of our tracker text
(`python -m fpdb_3_legacy.GuiBulkImport -x ...`), with what we exported (expected.json).

Needs only the standard library; run.sh runs it with FPDB-3's venv:

    python db_check.py --db HOME/.fpdb/database/fpdb.db3 --expected OUT/expected.json

Checks every exported hand is stored (but those allowed with --allow-missing) and nothing else
is; per player the starting stack, winnings and profit; per hand the final pot, the run-it-twice
flag and its two boards, and that no straddler is stored as a blind. Exit status 0 when all
hold, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any

CENTS = 100  # FPDB stores amounts in cents of the currency; our chips count as units of it
SHOWN_PER_KIND = 4


class Problems:
    """Counted by kind, the first few of each printed."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()

    def add(self, kind: str, text: str) -> None:
        self.count[kind] += 1
        if self.count[kind] <= SHOWN_PER_KIND:
            print(f"  {kind}: {text}")


def check_hand(db: sqlite3.Connection, row: tuple[Any, ...], exp: dict[str, Any],
               problems: Problems) -> None:
    hid, run_twice, final_pot = row
    tag = f"{exp['file']}, table {exp['table']} hand {exp['hand']}"
    got = {r[0]: r[1:] for r in db.execute(
        "select p.name, hp.startCash, hp.winnings, hp.totalProfit, hp.position "
        "from HandsPlayers hp join Players p on p.id = hp.playerId where hp.handId = ?",
        (hid,))}
    if set(got) != set(exp["players"]):
        problems.add("players", f"{tag}: db {sorted(got)} vs ours {sorted(exp['players'])}")
        return
    for name, (start, won, profit, _position) in got.items():
        if start != exp["players"][name] * CENTS:
            problems.add("startCash", f"{tag} {name}: {start} vs {exp['players'][name] * CENTS}")
        if won != exp["won"].get(name, 0) * CENTS:
            problems.add("winnings", f"{tag} {name}: {won} vs {exp['won'].get(name, 0) * CENTS}")
        want = (exp["finishing"][name] - exp["players"][name]) * CENTS
        if profit != want:
            problems.add("totalProfit", f"{tag} {name}: {profit} vs {want}")
    if bool(exp["run_twice"]) != bool(run_twice):
        problems.add("runItTwice flag", f"{tag}: db {run_twice} vs ours {exp['run_twice']}")
    if exp["run_twice"]:
        boards = db.execute("select boardId, boardcard1, boardcard2, boardcard3, boardcard4, "
                            "boardcard5 from Boards where handId = ? order by boardId",
                            (hid,)).fetchall()
        if len(boards) != 2:
            problems.add("boards", f"{tag}: db Boards rows {boards} vs ours {exp['boards']}")
    if final_pot != sum(exp["pots"]) * CENTS:
        problems.add("finalPot", f"{tag}: db {final_pot} vs ours {sum(exp['pots']) * CENTS}")
    # A straddle is a blind by CG "Straddle", but the seat that posts it is not the small or
    # big blind: a tracker that stored it so would count the blinds' statistics wrong.
    for name in exp["straddles"]:
        if got[name][3] in ("B", "S"):
            problems.add("straddle position", f"{tag} {name}: position {got[name][3]!r}")
    for name in exp["posts"]:  # information only: where FPDB seats a posted big blind
        print(f"  info, posted big blind: {tag} {name}: stored at position {got[name][3]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True,
                        help="FPDB's SQLite database (HOME/.fpdb/database/fpdb.db3)")
    parser.add_argument("--expected", type=Path, required=True,
                        help="expected.json written by make_samples.py")
    parser.add_argument("--allow-missing", action="append", default=[], metavar="SAMPLE",
                        help="a sample (its name in expected.json, e.g. cash_split_limit_300_600) "
                        "whose hand may be missing: a known import error; repeatable")
    args = parser.parse_args()
    expected: dict[str, dict[str, Any]] = json.loads(args.expected.read_text(encoding="utf-8"))
    if not args.db.is_file():
        print(f"no database at {args.db}: did the bulk import run with this HOME?")
        return 1
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)  # read only: FPDB's, not ours
    stored = {str(r[0]): r[1:] for r in db.execute(
        "select siteHandNo, id, runItTwice, finalPot from Hands")}
    problems = Problems()
    print(f"hands in the database: {len(stored)}; exported (distinct): {len(expected)}")
    for number in sorted(set(expected) - set(stored)):
        exp = expected[number]
        if exp["file"] in args.allow_missing:
            print(f"  known missing: {number} ({exp['file']})")
        else:
            problems.add("not stored", f"{number} ({exp['file']}, table {exp['table']} hand "
                         f"{exp['hand']})")
    for number in sorted(set(stored) - set(expected)):
        problems.add("stored but not exported", number)
    for name in args.allow_missing:
        if any(e["file"] == name and n in stored for n, e in expected.items()):
            print(f"  NOTE: {name} was stored after all: FPDB may have fixed its error (then "
                  "drop the --allow-missing)")
    for number, row in stored.items():
        if number in expected:
            check_hand(db, row, expected[number], problems)
    run_twice = sum(bool(e["run_twice"]) for e in expected.values() if e)
    print("Boards rows:", db.execute("select count(*) from Boards").fetchone()[0],
          "for", run_twice, "run-twice hands exported;",
          "Hands.runItTwice=1:", db.execute("select count(*) from Hands where runItTwice")
          .fetchone()[0])
    print("problems:", dict(problems.count) or "none")
    return 1 if problems.count or not stored else 0


if __name__ == "__main__":
    sys.exit(main())
