"""A big blind posted out of position (CG "Blinds": a seat change two or more seats away from the
button) in the hand exports: PHH writes it as PokerKit's "post bet" (a negative value in
``blinds_or_straddles``: live, the action starting where it would), which PokerKit and our own
replay play to the record's stacks; tracker text writes ``posts big blind`` at its seat after
the big blind's (as PokerStars writes a player posting to come in); OHH a "Post Extra Blind"."""

from __future__ import annotations

import rtoml

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
    Table,
)
from controller.history.ohh import TournamentInfo, ohh_hand
from controller.history.phh import Replay, parse_phh
from controller.history.phh_export import record_phh
from controller.history.stars import stars_hand
from tests.history.export_helpers import checked, pokerkit_stacks

CASH = load_profile("cg-cash").model_copy(update={"button_start": "seat-1"})


def posted_hand() -> HandRecord:
    """Hand 1 folds to the big blind; seat 2 moves to seat 7 and posts the big blind in hand 2
    (button 1, blinds 3 and 4): seat 5 calls, seat 7 checks his option, and the hand goes to a
    showdown between seats 5 and 7."""
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
    holes = {3: "2c2d", 4: "3c3d", 5: "AsAh", 7: "KsKh", 1: "4c4d"}
    for s, cards in holes.items():
        t.apply(DealHole(seat=s, cards=cards))
    t.apply(Call(seat=5))
    t.apply(Check(seat=7))
    for s in (1, 3, 4):
        t.apply(Fold(seat=s))
    t.apply(DealBoard(cards="7d8h9c"))
    t.apply(BetOrRaise(seat=5, to=200))
    t.apply(BetOrRaise(seat=7, to=600))
    t.apply(Call(seat=5))
    t.apply(DealBoard(cards="Jd"))
    t.apply(Check(seat=5))
    t.apply(Check(seat=7))
    t.apply(DealBoard(cards="2s"))
    t.apply(Check(seat=5))
    t.apply(Check(seat=7))
    t.apply(Show(seat=7))
    t.apply(Show(seat=5))
    record = t.apply(Settle())
    assert record is not None and record.posts == {7: 100}
    return record


def test_phh_writes_the_post_as_a_post_bet_and_both_replays_agree() -> None:
    record = posted_hand()
    text = record_phh(record)
    document = rtoml.loads(text)
    seats = list(record.starting_stacks)
    assert seats == [3, 4, 5, 7, 1]
    assert document["blinds_or_straddles"] == [50, 100, 0, -100, 0]
    expected = [record.finishing_stacks[s] for s in seats]
    assert expected[2] == 10_000 + 700 + 150  # seat 5's aces: both posts and seat 7's 700
    assert pokerkit_stacks(text) == expected
    replay = Replay(parse_phh(text))
    assert replay.hand.setup.posted == (3,)
    replay.run()
    assert replay.hand.stacks == expected


def test_tracker_text_posts_the_big_blind_at_its_seat_after_the_big_blinds() -> None:
    text = stars_hand(posted_hand(), 1)
    posts = [line for line in text.splitlines() if ": posts " in line]
    assert posts == ["p3: posts small blind 50", "p4: posts big blind 100",
                     "p2: posts big blind 100"]


def test_ohh_writes_a_post_extra_blind() -> None:
    record = posted_hand().public()
    hand = ohh_hand(record, TournamentInfo(number=1, name="cash"))["ohh"]
    checked(record, hand, None)
    posts = [(a["player_id"], a["action"]) for a in hand["rounds"][0]["actions"]
             if a["action"].startswith("Post")]
    assert [action for _, action in posts] == ["Post SB", "Post BB", "Post Extra Blind"]
