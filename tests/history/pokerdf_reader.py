"""pokerdf (PyPI), an independent reader of PokerStars hand histories, reading our tracker text
back: the text made readable for it where it cannot read what the format allows, its own
conversion, and the check that what it read adds up to the records (tests/history/
test_stars_export.py's doc says what pokerdf cannot read, and why each change is safe)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.engine.records import HandRecord
from controller.history.views import hero_view

if TYPE_CHECKING:
    import pandas as pd

# pokerdf and pandas are imported where they are used: every test process collects the modules
# that use this one, and pandas alone took half a second of CPU to import in each.

TOURNAMENT = 20270115


def prefix_free(record: HandRecord) -> HandRecord:
    """The record with every name ending in a character no name continues with."""
    return record.model_copy(update={"players": {s: f"{n}." for s, n in record.players.items()}})


def own_history(record: HandRecord) -> tuple[HandRecord, str, HandRecord]:
    """The record with its names made prefix-free, the player whose own history it is exported
    as (a different one hand after hand: pokerdf needs a "Dealt to" line), and his view."""
    record = prefix_free(record)
    seats = list(record.players)
    hero = record.players[seats[record.hand % len(seats)]]
    view = hero_view(record, hero)
    assert view is not None
    return record, hero, view


def for_pokerdf(text: str) -> str:
    """The two readings pokerdf cannot do, made for it (seat 10, Omaha's four cards)."""
    text = re.sub(r"^Seat 10: ", "Seat 0: ", text, flags=re.MULTILINE)
    return re.sub(r"^(Dealt to .* \[\S+ \S+) \S+ \S+\]$", r"\1]", text, flags=re.MULTILINE)


def pokerdf_reads(texts: list[str], tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """pokerdf's own conversion (`pokerdf convert`: a HH*.txt file to parquet), then its
    model's fact table of every post and action with the chips it moved."""
    from pokerdf.core.read_and_convert import DataProcessing
    from pokerdf.modeling.star_schema import build_fact_player_action, load_converted_data

    source = tmp_path / f"HH{TOURNAMENT} T{TOURNAMENT} Freeroll.txt"
    source.write_text("\n\n\n".join(texts), encoding="utf-8")
    out = tmp_path / "parquet"
    out.mkdir()
    DataProcessing(str(source), str(out)).run()
    assert not (out / "fail.txt").exists(), (out / "fail.txt").read_text()
    rows = load_converted_data(str(out))
    return rows, build_fact_player_action(rows)


def or_zero(value: Any) -> float:
    import pandas as pd

    return 0.0 if value is None or pd.isna(value) else float(value)


def pokerdf_adds_up(texts: list[str], records: dict[str, HandRecord], tmp_path: Path,
                    replayed: Callable[[HandRecord], bool] = lambda record: True,
                    ) -> list[tuple[HandRecord, bool]]:
    """pokerdf reads ``texts``, the hands of ``records`` (by hand number), every one of them.
    Each hand's players (a row each) and pots are the record's, and so are each player's
    starting stack, winnings, uncalled bet returned and posts; where ``replayed(record)``, so
    is the stack pokerdf's own replay of every action leaves him with. Each hand's record and
    whether its replay was checked, in pokerdf's order."""
    rows, fact = pokerdf_reads(texts, tmp_path)
    # Plain Python from here on: pandas indexed row by row took a fifth of the test's CPU.
    pushed = fact.groupby(["HandID", "Player"])["AddedValue"].sum().to_dict()
    hands: dict[Any, list[dict[str, Any]]] = {}
    for row in rows.to_dict("records"):
        hands.setdefault(row["HandID"], []).append(row)
    read: list[tuple[HandRecord, bool]] = []
    for hand_id in sorted(hands):  # (as pandas groups them)
        hand = hands[hand_id]
        record = records.pop(str(hand_id))
        assert sorted(row["Player"] for row in hand) == sorted(record.players.values()), hand_id
        assert hand[0]["TotalPotLog"] == sum(p.amount for p in record.pots)
        assert list(hand[0]["PotBreakdown"]) == [p.amount for p in record.pots]
        chips_replayed = replayed(record)
        read.append((record, chips_replayed))
        seats = {name: seat for seat, name in record.players.items()}
        for row in hand:
            player = row["Player"]
            seat = seats[str(player)]
            mine = [a for a in record.actions if a.seat == seat]
            won = sum(p.shares.get(seat, 0) for p in record.pots)
            returned = sum(a.amount for a in mine if a.action == "return")
            assert row["Stack"] == record.starting_stacks[seat]
            assert or_zero(row["Balance"]) == won, (hand_id, player)
            assert or_zero(row["UncalledReturned"]) == returned, (hand_id, player)
            assert or_zero(row["PostedAnte"]) == sum(a.amount for a in mine if a.action == "ante")
            assert or_zero(row["PostedBlind"]) == sum(a.amount for a in mine
                                                      if a.action == "blind")
            if chips_replayed:
                chips = or_zero(pushed.get((int(str(hand_id)), player), 0))
                left = record.starting_stacks[seat] - chips + returned + won
                assert left == record.finishing_stacks[seat], (hand_id, player)
    assert not records, "pokerdf did not read every hand"
    return read


def as_tournament(text: str, record: HandRecord) -> str:
    """pokerdf's copy of a cash hand (see tests/history/test_cash_exports.py's doc)."""
    b = record.blinds
    text = re.sub(r"^(PokerStars Hand #\d+):  (.*?) \(\d+/\d+\) - ",
                  lambda m: f"{m[1]}: Tournament #1, Freeroll {m[2]} - Level I ({b.sb}/{b.bb}) - ",
                  text, count=1)
    text = re.sub(r"^\*\*\* FIRST (FLOP|TURN|RIVER) \*\*\*", r"*** \1 ***", text, flags=re.M)
    text = text.replace(": posts straddle ", ": posts straddle blind ")
    text = RUN_RESULTS.sub(_runs_summed, text) if "\nHand was run twice\n" in text else text
    return re.sub(r"^Table '", "Table '1 ", text, count=1, flags=re.M)


# A run twice's tabled hand in the summary: "showed [..] and " and each run's result.
RUN_RESULTS = re.compile(r"^(Seat \d+: .*?showed \[[^\]]*\] and )(.*)$", re.M)


def _runs_summed(line: re.Match[str]) -> str:
    """pokerdf's copy of a run twice's result: one, the first run's, with both runs' chips."""
    first, second = re.split(r", and (?=won \(|lost)", line[2])
    won = sum(int(n) for n in re.findall(r"^won \((\d+)\)", f"{first}\n{second}", re.M))
    return line[1] + re.sub(r"^(won \(\d+\)|lost)", f"won ({won})" if won else "lost", first)
