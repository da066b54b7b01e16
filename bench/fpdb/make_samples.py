"""Write pokertable's tracker text (PokerStars format) for the FPDB-3 check (bench/fpdb/README.md).

Run with the repository's venv, from anywhere:

    .venv/bin/python bench/fpdb/make_samples.py [OUT]        (OUT: ./fpdb-samples)

Writes, as `pokertable hands export --format stars --hero NAME` writes them (`write_export`,
each hand for one of its players):
- OUT/hands/<name>.txt: one hand each, the cases a tracker is most likely to misread (straddles,
  run it twice, pot-limit Omaha, a posted big blind, split limit at three stakes, tournaments);
- OUT/hands/bulk_cash.txt, bulk_tournament.txt: every complete hand of a simulated session;
- OUT/expected.json: what we exported, per hand number (the number in "PokerStars Hand #"),
  for parse_check.py and db_check.py to compare FPDB's reading with;
- OUT/control/stack_changed.txt: one sample with a starting stack altered after the export, so
  the comparison is shown to catch a difference (parse_check.py --expect-differences).
"""

from __future__ import annotations

import argparse
import io
import json
import re
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path

from controller.engine.profiles import load_profile
from controller.engine.records import HandRecord
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Leave,
    Level,
    PostBigBlind,
    Settle,
    Show,
    SitDown,
    StartHand,
    Straddle,
    Table,
)
from controller.errors import RuleViolation
from controller.history.export import write_export
from controller.history.stars import hand_number
from controller.history.views import hero_view
from controller.sim.soak import soak

# The session: 4 tables (tournament hold'em, cash hold'em, cash pot-limit Omaha, tournament
# Omaha), 300 hands each. Fixed, so that every run exports the same hands (the results in the
# README are for these).
TABLES, HANDS, SEED = 4, 300, 5
CASH = load_profile("cg-cash").model_copy(update={"button_start": "seat-1"})
BETTING = {"fold", "check", "call", "bet", "raise"}


def straddled(straddles: list[tuple[int, int]], raise_to: int | None = None,
              limit: tuple[int, int] | None = None) -> HandRecord:
    """6 players (button 1, blinds 2/3 at 50/100), the straddles given (CG "Straddle"), seat 6
    raises to ``raise_to`` preflop if given, everyone calls, checks down, all show. ``limit``: a
    split-limit table at these blinds instead, without straddles (CG Limits)."""
    if limit is None:
        t = Table(profile=CASH, level=Level(sb=50, bb=100), seats=10,
                  straddles=("live", "button", "mississippi"))
    else:
        profile = CASH.model_copy(update={"betting": "split-limit"})
        t = Table(profile=profile, level=Level(sb=limit[0], bb=limit[1]), seats=10)
    for s in range(1, 7):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=10_000))
    t.apply(StartHand())
    for seat, amount in straddles:
        t.apply(Straddle(seat=seat, amount=amount))
    holes = iter(["AsKs", "QhQd", "7c2d", "9s9h", "JcTc", "5d5c"])
    assert t.positions is not None
    for seat in t.positions.dealt:
        t.apply(DealHole(seat=seat, cards=next(holes)))
    boards = iter(["2h7d8s", "Kd", "3c"])
    raised = False
    while t.hand is not None and t.hand.stage.value != "showdown":
        actor = t.actor_seat()
        if actor is None:
            t.apply(DealBoard(cards=next(boards)))
        elif raise_to and actor == 6 and not raised:
            t.apply(BetOrRaise(seat=6, to=raise_to))
            raised = True
        else:
            try:
                t.apply(Check(seat=actor))
            except RuleViolation:  # facing a bet: checking is refused, so call
                t.apply(Call(seat=actor))
    for seat in t.positions.dealt:
        with suppress(RuleViolation):  # already shown or mucked: nothing to show
            t.apply(Show(seat=seat))
    record = t.apply(Settle())
    assert record is not None
    # Each sample its own start time: the hand number is a digest of table, hand and start,
    # and two samples with one number would be one hand (a duplicate) to a tracker.
    started = (1_800_000_000.0 + len(straddles) * 60 + (limit[1] * 7 if limit else 0)
               + sum(a * seat for seat, a in straddles))
    return record.model_copy(update={"started": started})


def posted_hand() -> HandRecord:
    """A big blind posted out of position (CG "Blinds"): hand 1 folds to the big blind; seat 2
    moves to seat 7 and posts the big blind in hand 2, which goes to a showdown between seats 5
    and 7 (as tests/history/test_posted_blind_exports.py plays it)."""
    t = Table(profile=CASH, level=Level(sb=50, bb=100), seats=10, table_id="4")
    for s in range(1, 6):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=10_000))
    t.apply(StartHand())
    for s in (4, 5, 1, 2):
        t.apply(Fold(seat=s))
    t.apply(Leave(seat=2))
    t.apply(SitDown(seat=7, player="p2", stack=9_950))
    t.apply(PostBigBlind(seat=7))
    t.apply(StartHand())
    for s, cards in {3: "2c2d", 4: "3c3d", 5: "AsAh", 7: "KsKh", 1: "4c4d"}.items():
        t.apply(DealHole(seat=s, cards=cards))
    t.apply(Call(seat=5))
    t.apply(Check(seat=7))
    for s in (1, 3, 4):
        t.apply(Fold(seat=s))
    t.apply(DealBoard(cards="7d8h9c"))
    t.apply(BetOrRaise(seat=5, to=200))
    t.apply(BetOrRaise(seat=7, to=600))
    t.apply(Call(seat=5))
    for card in ("Jd", "2s"):
        t.apply(DealBoard(cards=card))
        t.apply(Check(seat=5))
        t.apply(Check(seat=7))
    t.apply(Show(seat=7))
    t.apply(Show(seat=5))
    record = t.apply(Settle())
    assert record is not None and record.posts == {7: 100}
    return record


def hero_of(record: HandRecord) -> str:
    """A different player's history from hand to hand, as a room hands each player his own."""
    seats = list(record.players)
    return record.players[seats[record.hand % len(seats)]]


def exported(records: Iterable[HandRecord], path: Path) -> int:
    """Write records as `hands export --format stars --hero` does, each for its own hero, into
    one file (hands apart by a blank line, as PokerStars writes them); how many were written."""
    texts: list[str] = []
    for r in records:
        hero = hero_of(r)
        view = hero_view(r, hero)
        assert view is not None
        part = io.StringIO()
        if write_export([view], part, "stars", hero=hero).hands:
            texts.append(part.getvalue())
    path.write_text("\n\n".join(texts), encoding="utf-8")
    return len(texts)


def expect(r: HandRecord, file: str) -> dict[str, object]:
    """What the record says, in the terms the checks compare (chips, not cents)."""
    won = {r.players[s]: sum(p.shares.get(s, 0) for p in r.pots) for s in r.players}
    return {
        "file": file, "hand": r.hand, "table": r.table, "cash": r.cash, "game": r.game,
        "variant": r.variant,
        "players": {r.players[s]: r.starting_stacks[s] for s in r.starting_stacks},
        "blinds": [r.blinds.sb, r.blinds.bb, r.blinds.ante],
        "straddles": {r.players[s]: a for s, a in r.straddles.items()},
        "posts": {r.players[s]: a for s, a in r.posts.items()},
        "board": r.board, "boards": list(r.boards), "run_twice": r.run_twice,
        "pots": [p.amount for p in r.pots],
        "won": {name: chips for name, chips in won.items() if chips},
        "finishing": {r.players[s]: c for s, c in r.finishing_stacks.items()},
        # FPDB warns "no betting actions" on a hand without any: true of a flip, false of
        # anything else (parse_check.py tells them apart by this count).
        "betting_actions": sum(a.action in BETTING for a in r.actions),
    }


def first(pool: list[HandRecord], cond: Callable[[HandRecord], object]) -> HandRecord:
    return next(r for r in pool if cond(r))


def control(sample: Path, out: Path) -> None:
    """The sample with its first seat's starting stack raised by 1,000: a hand FPDB must read
    differently from expected.json, or the comparison does not compare."""
    text = sample.read_text(encoding="utf-8")
    changed = re.sub(r"^(Seat 1: .+ \()(\d+)( in chips\))",
                     lambda m: f"{m[1]}{int(m[2]) + 1000}{m[3]}", text, count=1, flags=re.M)
    assert changed != text, f"no 'Seat 1:' line in {sample}"
    out.write_text(changed, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path("fpdb-samples"),
                        help="directory to write into (default: ./fpdb-samples)")
    out: Path = parser.parse_args().out
    hands_dir, control_dir = out / "hands", out / "control"
    hands_dir.mkdir(parents=True, exist_ok=True)
    control_dir.mkdir(parents=True, exist_ok=True)

    records: list[HandRecord] = []
    soak(TABLES, HANDS, seed=SEED, cash=True, records=records.append)
    complete = [r for r in records if r.status == "complete"]
    # A double board (betting after both boards' cards) has no tracker text: the export
    # leaves it out (controller/history/stars.py), so there is nothing for FPDB to read.
    cash = [r for r in complete if r.cash and not r.double_board]
    tour = [r for r in complete if not r.cash]

    picks = {
        "cash_straddle": first(cash, lambda r: r.game == "NT" and r.straddles and not r.boards
                               and len(r.pots) >= 1 and r.board),
        "cash_run_twice": first(cash, lambda r: r.game == "NT" and r.run_twice),
        "cash_plo": first(cash, lambda r: r.game == "PO" and not r.boards and not r.straddles
                          and len(r.board) == 10),
        "cash_plo_run_twice": first(cash, lambda r: r.game == "PO" and r.run_twice),
        "cash_posted_blind": posted_hand(),
        "cash_double_straddle": straddled([(4, 200), (5, 400)], raise_to=1200),
        "cash_button_straddle": straddled([(1, 200)]),
        "cash_mississippi_straddle": straddled([(5, 200)]),
        "cash_split_limit_50_100": straddled([], raise_to=200, limit=(50, 100)),
        "cash_split_limit_300_600": straddled([], raise_to=1200, limit=(300, 600)),
        "cash_split_limit_25_50": straddled([], raise_to=100, limit=(25, 50)),
        "tournament": first(tour, lambda r: r.game == "NT" and len(r.pots) >= 2),
        "tournament_plain": first(tour, lambda r: r.game == "NT" and len(r.board) == 10
                                  and len(r.pots) == 1 and r.level > 1),
        "tournament_omaha": first(tour, lambda r: r.game == "PO" and len(r.board) == 10),
    }
    expected: dict[str, dict[str, object]] = {}
    for name, r in picks.items():
        exported([r], hands_dir / f"{name}.txt")
        expected[str(hand_number(r))] = expect(r, name)
    n_cash = exported(cash, hands_dir / "bulk_cash.txt")
    n_tour = exported(tour, hands_dir / "bulk_tournament.txt")
    for r in cash + tour:  # a picked soak hand is in a bulk file too: keep its sample's name
        expected.setdefault(str(hand_number(r)), expect(r, "bulk"))
    (out / "expected.json").write_text(json.dumps(expected, indent=1), encoding="utf-8")
    control(hands_dir / "cash_straddle.txt", control_dir / "stack_changed.txt")
    print(f"{out}: {len(picks)} samples, {n_cash} cash and {n_tour} tournament hands in bulk, "
          f"{len(expected)} distinct hands in expected.json; "
          f"{sum(r.double_board for r in complete)} double-board hands left out")


if __name__ == "__main__":
    main()
