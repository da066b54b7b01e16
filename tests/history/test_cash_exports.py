"""Cash hands out (issue 36, the CG): every hand of a simulated cash table (straddles, bomb pots,
flips, double boards, run it twice: controller/sim/cash.py) leaves in each format or is refused
for it with its reason, counted; what is written is read back by the independent readers.

- PHH: PokerKit (pinned 0.7.7) replays every file to the record's stacks (split pots shared its
  way, as tests/history/test_phh_export.py sets out). A second board (double board, run twice)
  is refused: phh-std has no field for the boards nor an action choosing the runouts.
- tracker text: pokerdf adds it up. pokerdf reads tournament headers only, knows no straddle
  line and reads a street by its line's first 30 characters; its copy of each hand gets the
  tournament header, ``posts straddle blind`` and the first run's streets without ``FIRST``
  (FPDB's PokerStars reader takes the text as written: ``posts straddle``, ``FIRST FLOP``). A
  run twice's summary gives a tabled hand each run's result, as PokerStars does (``won (400)
  with a pair of Tens, and won (400) with two pair, Tens and Sixes``); pokerdf takes a line's
  last amount for the player's winnings, so its copy has the runs' amounts summed into the
  first. Each run's tabled hands are named on that run's board (their category checked
  against PokerKit's evaluation). Its own replay of the chips counts a preflop raise from the
  blinds it knows by position (small and big) and orders the action from the big blind's left:
  for a straddled hand its replay is not checked (the posts, pots, winnings and returns are).
- OHH: each hand validates against the schema as a cash hand and its chips add up.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest
import rtoml
from pokerkit import OmahaHoldemHand, StandardHighHand

from controller.engine.records import Blinds, HandRecord, build_record
from controller.history.export import write_export
from controller.history.ohh import TournamentInfo, ohh_hand
from controller.history.phh_export import BOARDS, NO_CODE, PhhExportError, record_phh
from controller.history.query import HandQuery
from controller.history.stars import DOUBLE_BOARD, StarsExportError, hand_number, stars_hand
from tests.engine.helpers import make_hand, run
from tests.history.export_helpers import checked, pokerkit_stacks, split_as_pokerkit_does
from tests.history.pokerdf_reader import as_tournament, for_pokerdf, own_history, pokerdf_adds_up
from tests.history.shared_soak import soak_records


@pytest.fixture(scope="module")
def cash_records(tmp_path_factory: pytest.TempPathFactory) -> list[HandRecord]:
    """A tournament table and a cash table, 400 hands each (a few seconds), made once per run
    for every worker this module's tests are dealt to."""
    return soak_records(tmp_path_factory, 2, 400, seed=5, cash=True)


def cash_hands(records: list[HandRecord]) -> list[HandRecord]:
    return [r for r in records if r.cash and r.status == "complete"]


def kind(record: HandRecord) -> str:
    return ("double board" if record.double_board else "run twice" if record.run_twice
            else record.variant or ("straddle" if record.straddles else "plain"))


@pytest.mark.long(20)
def test_the_session_is_a_cash_table_and_a_tournament_kept_apart(
        cash_records: list[HandRecord]) -> None:
    cash = HandQuery(game="cash")
    tournament = HandQuery(game="tournament")
    assert {r.table for r in cash_records if cash.matches(r)} == {"2"}
    assert {r.table for r in cash_records if tournament.matches(r)} == {"1"}
    kinds = Counter(kind(r) for r in cash_hands(cash_records))
    assert kinds["straddle"] >= 20 and kinds["run twice"] >= 20, kinds
    assert kinds["bomb-pot"] >= 1 and kinds["double board"] >= 1, kinds


@pytest.mark.usefixtures("pokerkit_remembered")
def test_every_cash_hand_replays_in_pokerkit_or_is_refused_for_its_second_board(
        cash_records: list[HandRecord]) -> None:
    seen: Counter[str] = Counter()
    for record in cash_hands(cash_records):
        if record.boards:
            with pytest.raises(PhhExportError, match="phh-std has no second board") as refused:
                record_phh(record)
            assert refused.value.reason == BOARDS
            seen["refused: " + kind(record)] += 1
            continue
        text = record_phh(record.public())
        stacks = pokerkit_stacks(text)
        expected = [record.finishing_stacks[s] for s in record.starting_stacks]
        assert stacks in (expected, split_as_pokerkit_does(record)), text
        seen[kind(record)] += 1
    assert seen["straddle"] >= 20 and seen["bomb-pot"] >= 1, seen
    assert seen["refused: run twice"] >= 20, seen
    out = io.StringIO()
    done = write_export(cash_records, out, "phh")
    refused = sum(bool(r.boards) for r in cash_hands(cash_records))
    assert done.left_out[BOARDS] == refused
    assert f"{refused} hands on two boards (a double board or run twice), which PHH cannot " \
           "say" in (done.left_out_text() or "")


def test_a_straddle_is_a_forced_bet_at_its_place_in_phh(
        cash_records: list[HandRecord]) -> None:
    record = next(r for r in cash_hands(cash_records) if r.straddles and not r.boards)
    text = record_phh(record)
    seats = list(record.starting_stacks)
    blinds = [record.straddles.get(s, record.blinds.bb if s == record.bb else
                                   record.blinds.sb if s == record.sb else 0) for s in seats]
    assert rtoml.loads(text)["blinds_or_straddles"] == blinds


def split_limit_record(game: str = "NT") -> HandRecord:
    """A split-limit hand (CG Limits): small bet 100 before and on the flop, big bet 200 after."""
    cards = "AsKd QhQc 7c2d" if game == "NT" else "AsKdAhKs QhQcQsJd 7c2d3h4s"
    hand = make_hand([5_000] * 3, game=game, betting="split-limit")
    for k, hole in enumerate(cards.split()):
        run(hand, f"dh p{k + 1} {hole}")
    run(hand, "p3 cbr 200; p1 cbr 300; p2 c; p3 c; db 2c3d4h; p1 cbr 100; p2 c; p3 f; db 5s; "
              "p1 cbr 200; p2 cbr 400; p1 c; db 9h; p1 x; p2 x; p1 sm; p2 sm")
    return build_record(hand, table="3", number=1, level=1, blinds=Blinds(sb=50, bb=100),
                        button=3, sb=1, bb=2, seats=[1, 2, 3],
                        players={1: "ana", 2: "ben", 3: "cem"}, cash=True)


def test_split_limit_hold_em_is_phh_fixed_limit_and_pokerkit_replays_it() -> None:
    record = split_limit_record()
    text = record_phh(record)
    assert 'variant = "FT"' in text and "small_bet = 100" in text and "big_bet = 200" in text
    assert "min_bet" not in text
    # Every bet at its limit size replayed: 800 in from each of p1 and p2, 300 from p3; the
    # pot of 1,900 to p1's wheel (the engine's hand is left before its payout).
    assert pokerkit_stacks(text) == [5_000 - 800 + 1_900, 5_000 - 800, 5_000 - 300]


def test_split_limit_omaha_has_no_phh_code_refused_and_counted() -> None:
    record = split_limit_record("PO")
    with pytest.raises(PhhExportError, match="split-limit Omaha: phh-std has no variant code"):
        record_phh(record)
    done = write_export([record], io.StringIO(), "phh")
    assert done.hands == 0 and done.left_out[NO_CODE] == 1
    assert "1 hand of a game PHH has no variant code for" in (done.left_out_text() or "")


def test_split_limit_and_cash_headers_in_tracker_text() -> None:
    text = stars_hand(split_limit_record(), 1)
    assert re.match(r"PokerStars Hand #\d+:  Hold'em Limit \(100/200\) - 1970", text)
    assert "Table '3' 9-max Seat #3 is the button" in text
    assert "Tournament" not in text and "Level" not in text


def test_every_cash_hand_adds_up_in_pokerdf(cash_records: list[HandRecord],
                                            tmp_path: Path) -> None:
    texts: list[str] = []
    records: dict[str, HandRecord] = {}
    for record in cash_hands(cash_records):
        if record.double_board:
            with pytest.raises(StarsExportError, match="double board") as refused:
                stars_hand(record, 1)
            assert refused.value.reason == DOUBLE_BOARD
            continue
        record, hero, view = own_history(record)
        text = stars_hand(view, 1, hero)
        if record.run_twice:
            assert "*** FIRST SHOW DOWN ***" in text and "*** SECOND SHOW DOWN ***" in text
            assert "\nHand was run twice\nFIRST Board [" in text and "\nSECOND Board [" in text
        for seat in record.straddles:
            assert f"{record.players[seat]}: posts straddle {record.straddles[seat]}" in text
        texts.append(for_pokerdf(as_tournament(text, record)))
        records[str(hand_number(record))] = record
    # pokerdf's replay of a straddled hand is not checked (see the module's doc)
    read = pokerdf_adds_up(texts, records, tmp_path, replayed=lambda record: (
        record.button in record.players and not record.straddles))
    seen: Counter[str] = Counter()
    for record, replayed in read:
        seen[kind(record) + ("" if replayed else ", replay not checked")] += 1
    assert seen["straddle, replay not checked"] >= 10, seen
    assert seen["run twice"] >= 10 and seen["bomb-pot"] >= 1, seen


# A hand's words (controller/history/hand_words.py) -> PokerKit's label of its category.
CATEGORIES = (("high card ", "High card"), ("a pair of ", "One pair"), ("two pair, ", "Two pair"),
              ("three of a kind, ", "Three of a kind"), ("a straight, ", "Straight"),
              ("a flush, ", "Flush"), ("a full house, ", "Full house"),
              ("four of a kind, ", "Four of a kind"), ("a straight flush, ", "Straight flush"),
              ("a Royal Flush", "Straight flush"))


def category(words: str) -> str:
    return next(label for start, label in CATEGORIES if words.startswith(start))


def pokerkit_category(hole: str, board: str, game: str) -> str:
    """The hand's category by PokerKit's evaluator, independent of ours."""
    kind = OmahaHoldemHand if game == "PO" else StandardHighHand
    return str(kind.from_game(hole, board).entry.label.value)


def run_won(record: HandRecord, seat: int, run: int) -> int:
    """What ``seat`` won on run ``run`` (1, 2): each pot's part on it, a pot not run twice on
    the first (CG Run It Twice)."""
    return sum(sum(part.shares.get(seat, 0) for part in pot.boards if part.board == run)
               if pot.boards else pot.shares.get(seat, 0) * (run == 1) for pot in record.pots)


def test_each_run_of_a_run_twice_names_the_tabled_hands_on_its_own_board(
        cash_records: list[HandRecord]) -> None:
    """Issue 36 (FPDB-3's import): at each run's show down and in the summary's result for each
    run, a tabled hand is named on that run's board (its category as PokerKit evaluates it), and
    each run's result has that run's winnings."""
    seen: Counter[str] = Counter()
    for record in cash_hands(cash_records):
        if not record.run_twice or record.double_board:
            continue
        text = stars_hand(record.public(), 1)
        first, rest = text.split("*** FIRST SHOW DOWN ***\n")[1].split("*** SECOND SHOW DOWN ***")
        second, summary = rest.split("*** SUMMARY ***")
        for seat in record.tabled():
            name, hole = record.players[seat], record.hole_cards[seat]
            shown = re.escape(f"{name}: shows [{' '.join(re.findall('..', hole))}] (")
            words = [re.findall(rf"^{shown}(.*)\)$", show_down, re.M) for show_down in (first,
                                                                                   second)]
            assert [len(w) for w in words] == [1, 1], (record.hand, name)
            named = [w[0] for w in words]
            for board, hand in zip(record.boards, named, strict=True):
                assert category(hand) == pokerkit_category(hole, board, record.game), (
                    record.hand, name, board, hand)
            results = [f"won ({won}) with {hand}" if won else f"lost with {hand}"
                       for won, hand in ((run_won(record, seat, 1), named[0]),
                                         (run_won(record, seat, 2), named[1]))]
            assert re.search(rf"^Seat {seat}: {re.escape(name)} .*and "
                             rf"{re.escape(', and '.join(results))}$", summary, re.M), (
                record.hand, name, results)
            seen["tabled"] += 1
            seen["named apart"] += category(named[0]) != category(named[1])
    assert seen["tabled"] >= 40 and seen["named apart"] >= 10, seen


def test_every_cash_hand_is_an_ohh_cash_hand_that_adds_up(
        cash_records: list[HandRecord]) -> None:
    info = TournamentInfo(number="1").settled(cash_records[0])
    flagged = 0
    for record in cash_hands(cash_records):
        hand = ohh_hand(record, info, "--full")["ohh"]
        assert hand["tournament"] is False and "tournament_info" not in hand
        checked(record, hand, "--full")
        actions = [a["action"] for a in hand["rounds"][0]["actions"]]
        assert actions.count("Straddle") == len(record.straddles)
        flagged += "Run_It_Twice" in hand["flags"]
    assert flagged >= 20
