"""Tracker text of the cash game's own hands, line by line (issue 36: what FPDB-3's import found):
- a bomb pot or a flip (CG Spielvarianten) posts no blinds, every player's agreed amount is an
  ante: its summary labels the button alone, no seat "(small blind)" or "(big blind)"; a regular
  hand on the same seats keeps them;
- a run twice (CG Run It Twice) names every tabled hand on each run's own board: at each show
  down, and in the summary, where a tabled hand's line says each run's result in turn, as
  PokerStars writes it (FPDB's reader: ``and won (X) with <hand>, and lost with <hand>``).
The hands are played by the engine and recorded as a table records them (build_record); what
is written is read back by pokerdf, as in tests/history/test_cash_exports.py.
"""

from __future__ import annotations

from pathlib import Path

from controller.engine.hand import Hand, HandSetup, PlayerSetup
from controller.engine.records import Blinds, HandRecord, build_record
from controller.history.stars import hand_number, stars_hand
from tests.engine.helpers import deal, run
from tests.history.pokerdf_reader import as_tournament, for_pokerdf, pokerdf_adds_up

NAMES = {1: "ana", 2: "ben", 3: "cem"}


def recorded(hand: Hand, number: int) -> HandRecord:
    """Hand ``number``: seat 1 the small blind's place, 2 the big blind's, 3 the button (a cash
    table's)."""
    hand.settle()
    return build_record(hand, table="5", number=number, level=1, blinds=Blinds(sb=50, bb=100),
                        button=3, sb=1, bb=2, seats=[1, 2, 3], players=NAMES, cash=True)


def variant_record(variant: str) -> HandRecord:
    """A bomb pot (500 each, the flop without betting, then betting) or a flip (500 each, the
    whole board without betting), as the table deals them: antes, no blinds (CG
    Spielvarianten). ben makes two pair, Aces and Kings."""
    hand = Hand(HandSetup(
        players=[PlayerSetup(label=f"p{k}", stack=5_000, ante=500) for k in (1, 2, 3)],
        min_bet=100, big_blind=100, dead_antes=False, variant=variant,  # type: ignore[arg-type]
    ))
    deal(hand, "QsQh", "AhKd", "7c2d")
    if variant == "bomb-pot":
        run(hand, "db As9c4h; p1 x; p2 cbr 500; p3 f; p1 c; db Kc; p1 x; p2 x; db 3s; "
                  "p1 x; p2 x; p1 sm; p2 sm")
    else:
        run(hand, "db As9c4h; db Kc; db 3s; p1 sm; p2 sm; p3 sm")
    return recorded(hand, 1 if variant == "bomb-pot" else 2)


def summary(text: str) -> list[str]:
    return text[text.index("*** SUMMARY ***"):].splitlines()


def test_a_bomb_pot_labels_no_blinds_in_its_summary() -> None:
    text = stars_hand(variant_record("bomb-pot").public(), 1)
    assert "posts small blind" not in text and "posts big blind" not in text
    assert "ana: posts the ante 500" in text
    assert summary(text) == [
        "*** SUMMARY ***", "Total pot 2500 | Rake 0", "Board [As 9c 4h Kc 3s]",
        "Seat 1: ana showed [Qs Qh] and lost with a pair of Queens",
        "Seat 2: ben showed [Ah Kd] and won (2500) with two pair, Aces and Kings",
        "Seat 3: cem (button) folded on the Flop",
    ]


def test_a_flip_labels_no_blinds_in_its_summary() -> None:
    text = stars_hand(variant_record("flip").public(), 1)
    assert summary(text)[3:] == [
        "Seat 1: ana showed [Qs Qh] and lost with a pair of Queens",
        "Seat 2: ben showed [Ah Kd] and won (1500) with two pair, Aces and Kings",
        "Seat 3: cem (button) showed [7c 2d] and lost with high card Ace",
    ]


def regular_record() -> HandRecord:
    """The same cards in a regular hand: the blinds posted, ana calls, ben checks it down."""
    hand = Hand(HandSetup(
        players=[PlayerSetup(label=f"p{k}", stack=5_000, blind=b)
                 for k, b in ((1, 50), (2, 100), (3, 0))], min_bet=100))
    deal(hand, "QsQh", "AhKd", "7c2d")
    run(hand, "p3 f; p1 c; p2 x; db As9c4h; p1 x; p2 x; db Kc; p1 x; p2 x; db 3s; p1 x; p2 x; "
              "p1 sm; p2 sm")
    return recorded(hand, 3)


def test_a_regular_hand_on_the_same_seats_keeps_its_blinds_labels() -> None:
    text = stars_hand(regular_record().public(), 1)
    assert summary(text)[3:] == [
        "Seat 1: ana (small blind) showed [Qs Qh] and lost with a pair of Queens",
        "Seat 2: ben (big blind) showed [Ah Kd] and won (200) with two pair, Aces and Kings",
        "Seat 3: cem (button) folded before Flop (didn't bet)",
    ]


def run_twice_record() -> HandRecord:
    """ana (aces) all in against ben (kings) before the flop, run twice from the turn (CG Run It
    Twice): the first run's king gives ben three Kings, the second run's ace ana three Aces."""
    hand = Hand(HandSetup(
        players=[PlayerSetup(label=f"p{k}", stack=1_000, blind=b)
                 for k, b in ((1, 50), (2, 100), (3, 0))],
        min_bet=100, run_twice_min_pot=500))
    deal(hand, "AsAh", "KsKh", "7c2d")
    run(hand, "p3 f; p1 cbr 1000; p2 c; db 2c7d9h")
    hand.run_twice([0])
    run(hand, "db Kd; db 3s; db Ad; db 5c; p1 sm; p2 sm")
    return recorded(hand, 4)


def test_each_run_names_the_hands_made_on_its_own_board() -> None:
    record = run_twice_record()
    assert record.boards == ["2c7d9hKd3s", "2c7d9hAd5c"]
    text = stars_hand(record.public(), 1)
    lines = text.splitlines()
    assert lines[lines.index("*** FLOP *** [2c 7d 9h]"):] == [
        "*** FLOP *** [2c 7d 9h]",
        "*** FIRST TURN *** [2c 7d 9h] [Kd]",
        "*** FIRST RIVER *** [2c 7d 9h Kd] [3s]",
        "*** SECOND TURN *** [2c 7d 9h] [Ad]",
        "*** SECOND RIVER *** [2c 7d 9h Ad] [5c]",
        "*** FIRST SHOW DOWN ***",
        "ana: shows [As Ah] (a pair of Aces)",
        "ben: shows [Ks Kh] (three of a kind, Kings)",
        "ben collected 1000 from pot",
        "*** SECOND SHOW DOWN ***",
        "ana: shows [As Ah] (three of a kind, Aces)",
        "ben: shows [Ks Kh] (a pair of Kings)",
        "ana collected 1000 from pot",
        "*** SUMMARY ***",
        "Total pot 2000 | Rake 0",
        "Hand was run twice",
        "FIRST Board [2c 7d 9h Kd 3s]",
        "SECOND Board [2c 7d 9h Ad 5c]",
        "Seat 1: ana (small blind) showed [As Ah] and lost with a pair of Aces, and won (1000) "
        "with three of a kind, Aces",
        "Seat 2: ben (big blind) showed [Ks Kh] and won (1000) with three of a kind, Kings, and "
        "lost with a pair of Kings",
        "Seat 3: cem (button) folded before Flop (didn't bet)",
    ]


def test_pokerdf_reads_them(tmp_path: Path) -> None:
    """Each hand's winnings, posts and stacks, and pokerdf's own replay of every chip, as in
    tests/history/test_cash_exports.py (its copy of a run twice: the runs' winnings summed)."""
    records = {str(hand_number(r)): r for r in (
        variant_record("bomb-pot"), variant_record("flip"), regular_record(), run_twice_record())}
    texts = [for_pokerdf(as_tournament(stars_hand(r, 1, "ana"), r)) for r in records.values()]
    # every hand read, a row for each of its three players, and each adds up
    pokerdf_adds_up(texts, dict(records), tmp_path)
