"""Tracker text (controller/history/stars.py), read by pokerdf (PyPI), an independent reader of
PokerStars hand histories: for every complete hand of a long simulated session, its pots, the
amounts each player collected, the uncalled bets, the posts and the stacks add up to the record's,
and so do the chips its own reconstruction of every action ("raises X to Y", calls, all-ins)
leaves each player with.

pokerdf reads a player's own history: it needs a "Dealt to" line (its owner). So every hand is
exported for one of its players (``--hero``), a different one hand after hand. Where pokerdf cannot
read what the format allows, the test says so and gives it no less to check:
- it reads one-digit seat numbers only (``Seat \\d:``): a player in seat 10 would not exist for it.
  Its copy of the text names seat 10 "Seat 0", the same place in its clockwise order (it counts
  seats modulo 10); everything else is the text as exported.
- its owner's cards are two (hold'em): for an Omaha hand its copy of "Dealt to" keeps the first
  two of the four cards. No amount changes.
- it finds a player's summary line with a pattern that a longer name beginning with the same
  letters also matches ("ben-1" in "ben-11"): the session's names are made prefix-free first.
- it orders the actions after the flop from the button's seat; with a dead button (on an empty
  seat, PVB 27) it starts from the big blind's instead, so its own replay of such a hand can put
  a raise before the bet it raises. Those hands are checked on everything pokerdf reads from the
  text, but not on its replay (there are none in make test's session; a deeper one has some).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from controller.engine.records import Blinds, HandRecord, PotRecord
from controller.history.export import write_export
from controller.history.stars import StarsExportError, hand_number, roman, stars_hand
from controller.history.views import hero_view
from tests.history.pokerdf_reader import TOURNAMENT, for_pokerdf, own_history, pokerdf_adds_up
from tests.history.sample_hand import SIDE_POTS, record_of


@pytest.mark.long(25)
def test_every_hand_of_a_long_session_adds_up_in_pokerdf(
        session_records: list[HandRecord], tmp_path: Path) -> None:
    texts: list[str] = []
    records: dict[str, HandRecord] = {}
    for record in session_records:
        if record.status != "complete":
            with pytest.raises(StarsExportError):
                stars_hand(record, TOURNAMENT)
            continue
        record, hero, view = own_history(record)
        texts.append(for_pokerdf(stars_hand(view, TOURNAMENT, hero)))
        records[str(hand_number(record))] = record
    # pokerdf's replay of a hand with a dead button is not checked (see the module's doc)
    read = pokerdf_adds_up(texts, records, tmp_path,
                           replayed=lambda record: record.button in record.players)
    seen: Counter[str] = Counter()
    for _, replayed in read:
        seen["hands"] += 1
        seen["dead button, replay not checked"] += not replayed
    # What the session holds, so that a check over it means something.
    complete = [r for r in session_records if r.status == "complete"]
    assert seen["hands"] == len(complete) >= 1000
    assert sum(r.game == "PO" for r in complete) >= 100
    assert sum(len(r.pots) > 2 for r in complete) >= 50  # two side pots or more
    assert sum(any(len(set(p.shares.values())) > 1 for p in r.pots) for r in complete) >= 3
    assert sum(10 in r.players for r in complete) >= 50
    assert sum(len(r.players) == 2 for r in complete) >= 50  # heads-up: posts reordered
    assert sum(r.blinds.bb_ante > 0 for r in complete) >= 50
    assert sum(r.blinds.ante > 0 for r in complete) >= 50
    assert sum(r.sb is None for r in complete) >= 20  # dead small blinds
    assert sum(sum(a.amount for a in r.actions if a.action == "blind" and a.seat == r.bb)
               < r.blinds.bb for r in complete) >= 5  # short big blinds (R4)
    walks = [r for r in complete if not any(a.action in ("call", "bet", "raise")
                                            for a in r.actions)]
    assert len(walks) >= 10


def test_the_format_says_posts_all_ins_raises_side_pots_and_the_summary() -> None:
    record = record_of(SIDE_POTS, board="2c7h9d Jc3s".replace(" ", ""), pots=[
        PotRecord(amount=600, eligible=[6, 9, 2], winners=[6], shares={6: 600}),
        PotRecord(amount=1500, eligible=[6, 2], winners=[6], shares={6: 1500}),
    ], finishing_stacks={6: 6225, 9: 0, 2: 0, 4: 7975})
    text = stars_hand(hero_view(record, "dora") or record, 20261125, "dora")
    lines = text.splitlines()
    assert lines[0] == (f"PokerStars Hand #{hand_number(record)}: Tournament #20261125, Freeroll "
                        "Hold'em No Limit - Level V (100/200) - 2026/11/18 11:06:40 UTC "
                        "[2026/11/18 6:06:40 ET]")
    assert lines[1] == "Table '20261125 3' 9-max Seat #4 is the button"
    assert lines[2:6] == ["Seat 2: dora (900 in chips) ", "Seat 4: ana (8000 in chips) ",
                          "Seat 6: ben (5000 in chips) ", "Seat 9: cem (150 in chips) "]
    for line in ["ben: posts the ante 25", "cem: posts big blind 125 and is all-in",
                 "ben: posts small blind 100", "*** HOLE CARDS ***", "Dealt to dora [Qs Qd]",
                 "dora: raises 750 to 875 and is all-in", "ana: folds ",
                 "ben: raises 1125 to 2000", "Uncalled bet (1125) returned to ben",
                 "*** FLOP *** [2c 7h 9d]", "*** TURN *** [2c 7h 9d] [Jc]",
                 "*** RIVER *** [2c 7h 9d Jc] [3s]", "*** SHOW DOWN ***",
                 "ben: shows [As Ad] (a pair of Aces)", "cem: shows [Ks Kd] (a pair of Kings)",
                 "ben collected 1500 from side pot", "ben collected 600 from main pot",
                 "*** SUMMARY ***", "Total pot 2100 Main pot 600. Side pot 1500. | Rake 0",
                 "Board [2c 7h 9d Jc 3s]",
                 "Seat 2: dora showed [Qs Qd] and lost with a pair of Queens",
                 "Seat 4: ana (button) folded before Flop (didn't bet)",
                 "Seat 6: ben (small blind) showed [As Ad] and won (2100) with a pair of Aces",
                 "Seat 9: cem (big blind) showed [Ks Kd] and lost with a pair of Kings"]:
        assert line in lines, line
    assert lines.index("ben: posts the ante 25") < lines.index("ben: posts small blind 100")
    assert "7c" not in text  # ana's cards: nobody saw them


def test_a_walk_and_a_split_pot_with_an_odd_chip() -> None:
    walk = record_of([
        (6, "blind", 100, "", False), (9, "blind", 150, "", True), (2, "fold", 0, "", False),
        (4, "fold", 0, "", False), (6, "fold", 0, "", False),
    ], blinds=Blinds(sb=100, bb=200), pots=[
        PotRecord(amount=250, eligible=[9], winners=[9], shares={9: 250})])
    text = stars_hand(walk.public(), 1)
    assert "cem collected 250 from pot" in text
    assert "Seat 9: cem (big blind) collected (250)" in text
    assert "Seat 6: ben (small blind) folded before Flop\n" in text
    assert "Dealt to" not in text  # no hero: nobody's cards
    split = record_of([
        (2, "ante", 1, "", False),
        (6, "blind", 100, "", False), (9, "blind", 150, "", True), (2, "fold", 0, "", False),
        (4, "fold", 0, "", False), (6, "call", 50, "", False),
        (6, "show", 0, "AsKd", False), (9, "show", 0, "AhKs", False),
    ], blinds=Blinds(sb=100, bb=200, bb_ante=1), board="2c7h9dJc3s", pots=[
        PotRecord(amount=301, eligible=[6, 9], winners=[6, 9], shares={6: 151, 9: 150})])
    text = stars_hand(split.public(), 1)
    assert "ben collected 151 from pot\ncem collected 150 from pot" in text
    assert "Seat 6: ben (small blind) showed [As Kd] and won (151) with high card Ace" in text
    assert "Seat 9: cem (big blind) showed [Ah Ks] and won (150) with high card Ace" in text


def test_pot_limit_omaha_is_written_as_the_format_writes_it() -> None:
    record = record_of([
        (6, "blind", 100, "", False), (9, "blind", 150, "", True),
        (6, "deal_hole", 0, "AsAdKsKd", False), (9, "deal_hole", 0, "QsQdJsJd", False),
        (2, "fold", 0, "", False), (4, "fold", 0, "", False), (6, "call", 50, "", False),
        (6, "show", 0, "AsAdKsKd", False), (9, "show", 0, "QsQdJsJd", False),
    ], game="PO", board="8h9dTc2c3s", pots=[
        PotRecord(amount=300, eligible=[6, 9], winners=[9], shares={9: 300})],
        hole_cards={6: "AsAdKsKd", 9: "QsQdJsJd", 2: "2s2d3s3d", 4: "7c2d4h5h"})
    text = stars_hand(hero_view(record, "ben") or record, 1, "ben")
    assert "Freeroll Omaha Pot Limit - Level V (100/200)" in text
    assert "Dealt to ben [As Ad Ks Kd]" in text
    # Omaha: exactly two hole cards and three of the board: Q-J with 8-9-T, a straight.
    assert "cem: shows [Qs Qd Js Jd] (a straight, Eight to Queen)" in text
    assert "ben: shows [As Ad Ks Kd] (a pair of Aces)" in text


def test_void_hands_and_misdeals_are_left_out_and_counted() -> None:
    import io

    hands = [record_of([], status="void"), record_of([], status="misdeal", hand=18),
             record_of([], status="misdeal", hand=19),
             record_of(SIDE_POTS, hand=20, board="2c7h9dJc3s", pots=[
                 PotRecord(amount=2100, eligible=[6, 9, 2], winners=[6], shares={6: 2100})])]
    out = io.StringIO()
    done = write_export(hands, out, "stars")
    assert done.hands == 1 and out.getvalue().count("PokerStars Hand #") == 1
    assert done.left_out_text() == "3 hands that have no result to import (2 misdeals, 1 void)"


def test_numbers_that_the_format_needs() -> None:
    assert [roman(n) for n in (1, 4, 9, 14, 40, 99)] == ["I", "IV", "IX", "XIV", "XL", "XCIX"]
    one = record_of([])
    assert hand_number(one) == hand_number(record_of([])) < 10**18  # the same every export
    assert hand_number(one) != hand_number(record_of([], hand=18))


def test_heads_up_posts_the_antes_then_the_small_blind_then_the_big_blind() -> None:
    """Heads-up the button posts the small blind (PVB 28, RULES B3) and the record posts
    from the button's left, the big blind first; the format posts antes, small blind, big blind."""
    record = record_of([
        (9, "ante", 25, "", False), (4, "ante", 25, "", False),
        (9, "blind", 200, "", False), (4, "blind", 100, "", False),
        (9, "deal_hole", 0, "KsKd", False), (4, "deal_hole", 0, "7c2d", False),
        (4, "fold", 0, "", False), (9, "return", 100, "", False),
    ], button=4, sb=4, bb=9, players={4: "anna", 9: "ben"},
        starting_stacks={9: 5000, 4: 5000}, hole_cards={9: "KsKd", 4: "7c2d"},
        pots=[PotRecord(amount=250, eligible=[9], winners=[9], shares={9: 250})],
        finishing_stacks={9: 5125, 4: 4875})
    lines = stars_hand(record.public(), 1).splitlines()
    posts = [line for line in lines if ": posts " in line]
    assert posts == ["ben: posts the ante 25", "anna: posts the ante 25",
                     "anna: posts small blind 100", "ben: posts big blind 200"]


def test_the_table_size_is_the_tables_not_the_players() -> None:
    # A 10-seat table with seat 10 empty is still "10-max" to a tracker (it groups hands and
    # players by table size); a 6-seat table is "6-max". Older records without the table's size
    # fall back to what the seats played say.
    record = record_of(SIDE_POTS, board="2c7h9dJc3s", pots=[
        PotRecord(amount=600, eligible=[6, 9, 2], winners=[6], shares={6: 600}),
        PotRecord(amount=1500, eligible=[6, 2], winners=[6], shares={6: 1500}),
    ], finishing_stacks={6: 6225, 9: 0, 2: 0, 4: 7975})
    for seat_count, expected in [(10, "10-max"), (9, "9-max"), (None, "9-max")]:
        sized = record.model_copy(update={"seat_count": seat_count})
        header = stars_hand(sized, 1).splitlines()[1]
        assert header == f"Table '1 3' {expected} Seat #4 is the button"

