"""A big blind posted out of position (CG "Blinds": "Entfernt sich ein Spielteilnehmer durch einen
Platzwechsel um zwei oder mehr ... Plätze im Uhrzeigersinn vom Button weg, muss er das Big Blind
bringen"; "In Pot Limit-Varianten zählt das nachgebrachte Blind zum Pot"): `PostBigBlind` between
hands, posted in the player's first hand dealt in at the seat. It is live (he may check if no one
raises, it counts to the pot) and moves nobody's turn: the action starts where it would."""

from __future__ import annotations

import pytest

from controller.engine.hand import Hand, HandSetup, PlayerSetup, Stage
from controller.engine.profiles import load_profile
from controller.engine.table_play import (
    Call,
    Check,
    Fold,
    Leave,
    Level,
    PostBigBlind,
    SitDown,
    StartHand,
    Straddle,
    Table,
    VoidHand,
    rebuild,
)
from controller.errors import RuleViolation
from tests.engine.helpers import make_hand

CASH = load_profile("cg-cash").model_copy(update={"button_start": "seat-1"})


def table(players: int = 5) -> Table:
    """Hand 1 played (button 1, blinds 2 and 3, everyone folds to the big blind); seat 2 moves
    to seat 7 (past seats 3 to 5) and owes the big blind."""
    t = Table(profile=CASH, level=Level(sb=50, bb=100), seats=10,
              straddles=("live", "mississippi"))
    for s in range(1, players + 1):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=10_000))
    t.apply(StartHand())
    for s in [*range(4, players + 1), 1, 2]:
        t.apply(Fold(seat=s))
    t.apply(Leave(seat=2))
    t.apply(SitDown(seat=7, player="p2", stack=9_950))
    t.apply(PostBigBlind(seat=7))
    return t


def test_cg_blinds_the_post_is_live_and_moves_nobodys_turn() -> None:
    t = table()
    t.apply(StartHand())
    p, hand = t.positions, t.hand
    assert p is not None and hand is not None
    k = p.dealt.index(7)
    assert hand.setup.posted == (k,) and hand.bets[k] == 100
    assert t.actor_seat() == 5  # left of the big blind (seat 4), not left of the post
    t.apply(Call(seat=5))
    options = hand.options()
    assert t.actor_seat() == 7 and options is not None and options.to_call == 0
    t.apply(Check(seat=7))  # his option: nobody raised
    t.apply(Fold(seat=1))
    t.apply(Call(seat=3))
    t.apply(Check(seat=4))
    assert hand.stage is Stage.DEALING and hand.pot_total() == 400  # it counts to the pot


def test_cg_blinds_the_post_is_recorded_and_owed_until_a_hand_is_played() -> None:
    t = table()
    assert t.snapshot().seats[7].posts  # kept across a checkpoint
    t.apply(StartHand())
    t.apply(VoidHand(reason="misdeal"))  # dealt again: he posts again
    assert t.seats[7].posts
    t.apply(StartHand())
    for s in (5, 7, 1, 3):
        t.apply(Fold(seat=s))
    record = t.records[-1]
    assert record.posts == {7: 100}
    assert [(a.seat, a.amount) for a in record.actions if a.action == "blind"] == [
        (3, 50), (4, 100), (7, 100)]
    assert not t.seats[7].posts
    t.apply(StartHand())  # the next hand: no post
    assert t.hand is not None and t.hand.setup.posted == ()
    again = rebuild(t.log, profile=CASH, level=Level(sb=50, bb=100), seats=10,
                    straddles=("live", "mississippi"))
    assert again.records[-1] == record


def test_cg_blinds_on_the_big_blinds_seat_the_big_blind_is_the_post() -> None:
    t = Table(profile=CASH, level=Level(sb=50, bb=100), seats=10)
    for s in range(1, 5):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=10_000))
    t.apply(PostBigBlind(seat=3))
    t.apply(StartHand())  # button 1, blinds 2 and 3
    assert t.hand is not None and t.hand.setup.posted == ()
    assert t.hand.pot_total() == 150


def test_cg_blinds_a_poster_does_not_straddle_and_is_owed_between_hands_only() -> None:
    t = table()
    t.apply(StartHand())
    with pytest.raises(RuleViolation, match="seat 7 posts the big blind this hand"):
        t.apply(Straddle(seat=7, amount=200))
    with pytest.raises(RuleViolation, match="waits until the hand is over"):
        t.apply(PostBigBlind(seat=5))
    with pytest.raises(RuleViolation, match="seat 9 is empty"):
        Table(profile=CASH).apply(PostBigBlind(seat=9))


def test_a_posted_blind_is_a_players_blind() -> None:
    players = [PlayerSetup(label=f"p{k}", stack=1_000, blind=b)
               for k, b in enumerate([50, 100, 0])]
    with pytest.raises(ValueError, match="posted out of position"):
        HandSetup(players=players, min_bet=100, posted=(2,))
    hand = make_hand([1_000] * 4, [50, 100, 0, 100])
    assert hand.actor == 0  # without `posted` the action would start after the later blind...
    assert isinstance(hand.setup, HandSetup)
    posted = Hand(hand.setup.model_copy(update={"posted": (3,)}))
    assert posted.actor == 2  # ...with it, left of the big blind
