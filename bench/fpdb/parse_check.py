"""Read pokertable's tracker text with FPDB-3's own PokerStars parser (no database) and compare
what it read, hand by hand, with what we exported (expected.json from make_samples.py).

Run with FPDB-3's venv, from inside its checkout (HOME where FPDB may keep its ~/.fpdb, Qt
offscreen; run.sh sets both):

    python parse_check.py --expected OUT/expected.json OUT/hands/*.txt

Exit status 0 when every hand of every file was parsed without an error (but those allowed with
--allow-error), FPDB read each as we wrote it, and its only warnings are true ones (see
`warning_is_true`); 1 otherwise. With --expect-differences (the negative control), 0 only when
every hand read shows a difference.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

# What a player puts into the pot, as FPDB names its actions (BLINDSANTES and the streets).
PAYS = {"small blind", "big blind", "straddle", "ante", "both", "secondsb", "bringin",
        "button blind", "bets", "calls"}
SHOWN_PER_KIND = 3  # differences printed per kind and file; all are counted


class Collect(logging.Handler):
    """FPDB logs its parse errors and warnings rather than raising them: keep them per file."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def num(d: Decimal | int | float | str) -> int | float:
    """FPDB's amounts are Decimals in currency units; ours whole chips."""
    d = Decimal(str(d))
    return int(d) if d == d.to_integral_value() else float(d)


def cards(hand: Any, streets: tuple[str, ...]) -> str:
    return "".join(c for st in streets for c in hand.board.get(st, []))


def compare(hand: Any, exp: dict[str, Any]) -> list[str]:
    """Differences between FPDB's reading of a hand and our record of it."""
    out: list[str] = []
    players = {p[1]: num(p[2]) for p in hand.players}
    if players != exp["players"]:
        out.append(f"players/stacks: fpdb {players} vs ours {exp['players']}")
    gt = hand.gametype
    if [num(gt["sb"]), num(gt["bb"])] != exp["blinds"][:2]:
        out.append(f"stakes: fpdb sb/bb {gt['sb']}/{gt['bb']} vs ours {exp['blinds'][:2]}")
    won = {k: num(v) for k, v in hand.collectees.items() if v}
    if won != exp["won"]:
        out.append(f"winnings: fpdb {won} vs ours {exp['won']}")
    if num(hand.totalpot) != sum(exp["pots"]):
        out.append(f"total pot: fpdb {hand.totalpot} vs ours {sum(exp['pots'])}")
    if num(hand.rake) != 0:
        out.append(f"rake: fpdb {hand.rake} (ours 0)")
    board = cards(hand, ("FLOP", "TURN", "RIVER", "FLOP1", "TURN1", "RIVER1"))
    first = exp["boards"][0] if exp["boards"] else exp["board"]
    if board != first:
        out.append(f"board: fpdb {board!r} vs ours {first!r}")
    if len(exp["boards"]) > 1:
        # Run it twice: FPDB keeps only a run's own cards under FLOP2/TURN2/RIVER2 (the cards
        # both runs share stay under the first), so each run's cards must end our board.
        second = cards(hand, ("FLOP2", "TURN2", "RIVER2"))
        first1 = cards(hand, ("FLOP1", "TURN1", "RIVER1"))
        shown = {k: v for k, v in hand.board.items() if v}
        if hand.runItTimes < 2:
            out.append(f"run twice: fpdb runItTimes={hand.runItTimes}; boards {shown}")
        if not second or not exp["boards"][1].endswith(second):
            out.append(f"second board: fpdb run-2 cards {second!r} vs ours "
                       f"{exp['boards'][1]!r} (fpdb board {shown})")
        if first1 and not exp["boards"][0].endswith(first1):
            out.append(f"first board: fpdb run-1 cards {first1!r} vs ours {exp['boards'][0]!r}")
    posted = hand.actions.get("BLINDSANTES", [])
    blinds = {a[0]: (a[1], num(a[2])) for a in posted if a[1] != "ante"}
    for name, amount in exp["straddles"].items():
        if blinds.get(name) != ("straddle", amount):
            out.append(f"straddle of {name}: fpdb {blinds.get(name)} vs ours {amount}")
    for name, amount in exp["posts"].items():
        if not any(a[0] == name for a in posted):
            out.append(f"posted blind of {name} ({amount}): fpdb reads none")
    # FPDB's own account of each player's chips: the starting stack, less what its actions have
    # him put in (a raise is (player, "raises", by, to, called): called + by), plus what came
    # back uncalled and what he collected, must be our finishing stack.
    for name, start in exp["players"].items():
        put = Decimal(0)
        for acts in hand.actions.values():
            for a in acts:
                if a[0] != name:
                    continue
                if a[1] in PAYS:
                    put += Decimal(str(a[2]))
                elif a[1] == "raises":
                    put += Decimal(str(a[2])) + Decimal(str(a[4]))
        put -= Decimal(str(hand.pot.returned.get(name, 0)))
        left = Decimal(start) - put + Decimal(str(hand.collectees.get(name, 0)))
        if num(left) != exp["finishing"][name]:
            out.append(f"chips of {name}: fpdb's actions leave {left} vs ours "
                       f"{exp['finishing'][name]}")
    return out


def warning_is_true(issue: str, expected: dict[str, dict[str, Any]]) -> bool:
    """FPDB warns "expected data is missing: no betting actions" on a hand without a bet, call,
    check, fold or raise. Of our hands that is a flip (CG Spielvarianten: everyone's agreed amount
    goes in as an ante and the cards are run out): the warning is true there, and no other
    warning is expected."""
    m = re.search(r"hand (\d+) .*no betting actions", issue)
    return bool(m) and expected.get(m[1], {}).get("betting_actions") == 0


def parse_allowances(values: list[str]) -> dict[str, str]:
    allowed: dict[str, str] = {}
    for v in values:
        name, sep, message = v.partition("=")
        if not sep or not message:
            raise SystemExit(f"--allow-error wants FILE=MESSAGE, got {v!r}")
        allowed[name] = message
    return allowed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="tracker text files to parse")
    parser.add_argument("--expected", type=Path, required=True,
                        help="expected.json written by make_samples.py")
    parser.add_argument("--fpdb", type=Path, default=Path.cwd(),
                        help="FPDB-3's checkout (default: the current directory)")
    parser.add_argument("--allow-error", action="append", default=[], metavar="FILE=MESSAGE",
                        help="a known parse error: FILE (its name) may fail to parse when FPDB "
                        "logs MESSAGE for it; repeatable")
    parser.add_argument("--expect-differences", action="store_true",
                        help="negative control: succeed only if every hand read differs")
    args = parser.parse_args()
    allowed = parse_allowances(args.allow_error)
    expected: dict[str, dict[str, Any]] = json.loads(args.expected.read_text(encoding="utf-8"))

    # FPDB's modules import each other as the package fpdb_3_legacy from its checkout's root.
    sys.path.insert(0, str(args.fpdb.resolve()))
    from fpdb_3_legacy.Configuration import Config
    from fpdb_3_legacy.PokerStarsToFpdb import PokerStars

    config = Config()
    collect = Collect()
    logging.getLogger().addHandler(collect)
    totals: Counter[str] = Counter()
    for path in args.files:
        collect.records.clear()
        reader = PokerStars(config=config, in_path=str(path), autostart=True)
        hands = reader.getProcessedHands()
        errors = reader.numErrors + reader.numPartial
        print(f"== {path.name}: {len(hands)} parsed, {reader.numErrors} errors, "
              f"{reader.numPartial} partial, {reader.numSkipped} skipped")
        totals["files"] += 1
        totals["hands parsed"] += len(hands)
        logged = [r.getMessage() for r in collect.records]
        if errors:
            known = allowed.get(path.name)
            if known and any(known in m for m in logged):
                print(f"   known error ({known!r}): not counted")
                totals["known errors"] += errors
            else:
                totals["errors"] += errors
        elif path.name in allowed:
            print(f"   NOTE: the known error of {path.name} did not happen: FPDB may have fixed "
                  "it (then drop the --allow-error)")
        for issue in reader.parsing_issues:
            if "[ERROR]" in issue:
                continue  # counted above, as numErrors
            if warning_is_true(issue, expected):
                totals["true warnings (a hand without betting)"] += 1
                print("   true warning:", issue)
            else:
                totals["other warnings"] += 1
                print("   WARNING:", issue)
        kinds: Counter[str] = Counter()
        for hand in hands:
            exp = expected.get(str(hand.handid))
            if exp is None:
                print(f"   UNKNOWN hand {hand.handid}: not in {args.expected}")
                totals["unknown hands"] += 1
                continue
            diffs = compare(hand, exp)
            totals["hands with differences"] += bool(diffs)
            for d in diffs:
                kind = d.split(":")[0].split(" of ")[0]
                kinds[kind] += 1
                if kinds[kind] <= SHOWN_PER_KIND:
                    print(f"   DIFF {hand.handid} ({exp['file']}, table {exp['table']} hand "
                          f"{exp['hand']}): {d}")
        if kinds:
            print("   differences by kind:", dict(kinds))
        # The log repeats the parsing issues printed above: the rest (an error's cause) only.
        rest = [m for m in logged if m not in reader.parsing_issues]
        for message, n in Counter(m.splitlines()[0][:300] for m in rest).most_common(10):
            print(f"   log x{n}: {message}")
    print("TOTAL", dict(totals))
    if args.expect_differences:
        caught = totals["hands parsed"] > 0 and \
            totals["hands with differences"] == totals["hands parsed"]
        print("negative control:", "every hand's difference caught" if caught
              else "FAILED: a changed hand read as expected")
        return 0 if caught else 1
    failed = sum(totals[k] for k in ("errors", "other warnings", "unknown hands",
                                     "hands with differences"))
    return 1 if failed or not totals["hands parsed"] else 0


if __name__ == "__main__":
    sys.exit(main())
