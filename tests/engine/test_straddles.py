"""Straddles, each rule by CG "Straddle": live straddles (one or more, each twice the one before,
from the seat left of the big blind on), the button straddle (the action starts left of the
button), the Mississippi straddle (any seat; the action starts left of it), the live straddle's
precedence, and only at a table that opened with them. A straddle is a blind: the preflop order
and the minimum raise follow it. Where the CG is silent (common practice, controller/engine/
straddles.py): before the cards, the full amount, not heads-up, not the blinds, not in split
limit."""

from __future__ import annotations

import pytest

from controller.engine.cards import parse_cards
from controller.engine.hand import Stage, Street
from controller.engine.profiles import load_profile
from controller.engine.straddles import StraddleKind
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Level,
    SitDown,
    StartHand,
    Straddle,
    Table,
    rebuild,
)
from controller.errors import ConfigError, RuleViolation

CASH = load_profile("cg-cash").model_copy(update={"button_start": "seat-1"})
ALL: tuple[StraddleKind, ...] = ("live", "button", "mississippi")


def table(players: int = 6, straddles: tuple[StraddleKind, ...] = ALL,
          stacks: list[int] | None = None) -> Table:
    """Button seat 1, small blind seat 2, big blind seat 3 (blinds 50/100), UTG seat 4."""
    t = Table(profile=CASH, level=Level(sb=50, bb=100), seats=10, straddles=straddles)
    for s in range(1, players + 1):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=(stacks or [10_000] * players)[s - 1]))
    t.apply(StartHand())
    p = t.positions
    assert p is not None and (p.button, p.bb) == (1, 3 if players > 2 else 2)
    return t


def to_act(t: Table) -> int | None:
    return t.actor_seat()


def deal_all(t: Table) -> None:
    deck = iter(parse_cards("AsKsQsJsTs9s8s7s6s5s4s3s2sAhKhQhJhTh9h8h"))
    assert t.positions is not None
    for seat in t.positions.dealt:
        t.apply(DealHole(seat=seat, cards="".join(
            f"{'23456789TJQKA'[c // 4]}{'cdhs'[c % 4]}" for c in (next(deck), next(deck))
            if c is not None)))


def test_cg_straddle_live_utg_posts_twice_the_big_blind_and_the_action_starts_after_him() -> None:
    t = table()
    t.apply(Straddle(seat=4, amount=200))
    hand = t.hand
    assert hand is not None
    assert to_act(t) == 5  # left of the straddle
    options = hand.options()
    assert options is not None
    assert (options.to_call, options.min_raise_to) == (200, 400)  # the minimum raise: its size
    assert [(a.kind, a.amount) for a in hand.log] == [("blind", 50), ("blind", 100),
                                                      ("blind", 200)]
    for seat in (5, 6, 1):
        t.apply(Call(seat=seat))
    t.apply(Call(seat=2))
    t.apply(Call(seat=3))  # the big blind completes to the straddle
    assert to_act(t) == 4  # the straddler has the option
    t.apply(BetOrRaise(seat=4, to=600))
    assert hand.current_bet == 600 and hand.min_raise == 400
    for seat in (5, 6, 1, 2, 3):
        t.apply(Fold(seat=seat))
    assert hand.stage is Stage.OVER and t.records[-1].straddles == {4: 200}


def test_cg_straddle_several_live_straddles_each_twice_the_one_before() -> None:
    t = table()
    t.apply(Straddle(seat=4, amount=200))
    with pytest.raises(RuleViolation, match=r"seat 5 put out 300: a straddle is 400, twice the "
                                            r"last straddle \(CG Straddle\)"):
        t.apply(Straddle(seat=5, amount=300))
    with pytest.raises(RuleViolation, match=r"the next straddle is seat 5's, 400"):
        t.apply(Straddle(seat=6, amount=400))
    t.apply(Straddle(seat=5, amount=400))
    t.apply(Straddle(seat=6, amount=800))
    hand = t.hand
    assert hand is not None and to_act(t) == 1
    options = hand.options()
    assert options is not None and (options.to_call, options.min_raise_to) == (800, 1600)
    t.apply(Straddle(seat=1, amount=1600))  # up to the button
    assert to_act(t) == 2 and [s.kind for s in t.hand_straddles] == ["live"] * 4


def test_cg_straddle_button_straddle_the_action_starts_left_of_the_button() -> None:
    t = table()
    t.apply(Straddle(seat=1, amount=200))
    assert t.hand_straddles[0].kind == "button"
    assert to_act(t) == 2  # the small blind, left of the button
    order = []
    for _ in range(5):
        seat = to_act(t)
        assert seat is not None
        order.append(seat)
        t.apply(Call(seat=seat))
    assert order == [2, 3, 4, 5, 6] and to_act(t) == 1  # the straddler acts last
    t.apply(Check(seat=1))
    assert t.hand is not None and t.hand.stage is Stage.DEALING


def test_cg_straddle_mississippi_any_seat_the_action_starts_left_of_it() -> None:
    t = table()
    t.apply(Straddle(seat=5, amount=200))
    assert t.hand_straddles[0].kind == "mississippi"
    order = []
    while t.hand is not None and t.hand.stage is Stage.BETTING:
        seat = to_act(t)
        assert seat is not None
        order.append(seat)
        t.apply(Call(seat=seat) if t.hand.to_call(t.positions.dealt.index(seat))  # type: ignore[union-attr]
                else Check(seat=seat))
    assert order == [6, 1, 2, 3, 4, 5]  # left of the straddle round to it: UTG after the blinds


def test_cg_straddle_the_live_straddle_has_precedence() -> None:
    t = table()
    t.apply(Straddle(seat=6, amount=200))  # Mississippi first
    t.apply(Straddle(seat=4, amount=200))  # UTG's live straddle takes its place
    hand = t.hand
    assert hand is not None
    assert [(s.seat, s.kind) for s in t.hand_straddles] == [(4, "live")]
    assert [a.player for a in hand.log if a.kind == "blind"] == [0, 1, 2]  # seat 6 posts none
    assert to_act(t) == 5
    with pytest.raises(RuleViolation, match=r"a live straddle is on: the next straddle is seat "
                                            r"5's, 400 \(the live straddle has precedence\)"):
        t.apply(Straddle(seat=1, amount=200))  # no button straddle now
    t2 = table()
    t2.apply(Straddle(seat=1, amount=200))
    with pytest.raises(RuleViolation, match=r"seat 1 has straddled already: one button "
                                            r"straddle a hand"):
        t2.apply(Straddle(seat=6, amount=200))


def test_cg_straddle_only_at_a_table_that_opened_with_it() -> None:
    t = table(straddles=())
    with pytest.raises(RuleViolation, match=r"this table plays no straddles: it did not open "
                                            r"with them \(CG Straddle\)"):
        t.apply(Straddle(seat=4, amount=200))
    t = table(straddles=("live",))
    with pytest.raises(RuleViolation, match=r"seat 6 cannot straddle: this table plays the live "
                                            r"straddle only \(seat 4 left of the big blind"):
        t.apply(Straddle(seat=6, amount=200))
    with pytest.raises(ConfigError, match="no such straddle"):
        Table(profile=load_profile("pvb-2020"), straddles=("live",))  # the tournament book


def test_cg_straddle_where_the_cg_is_silent() -> None:
    t = table()
    with pytest.raises(RuleViolation, match=r"seat 3 posts a blind: the blinds do not straddle"):
        t.apply(Straddle(seat=3, amount=200))
    t = table(stacks=[10_000, 10_000, 10_000, 150, 10_000, 10_000])
    with pytest.raises(RuleViolation, match=r"seat 4 has 150: a straddle of 200 is the full "
                                            r"amount"):
        t.apply(Straddle(seat=4, amount=200))
    t = table(players=2)
    with pytest.raises(RuleViolation, match=r"no straddle heads-up"):
        t.apply(Straddle(seat=1, amount=200))
    t = table()
    deal_all(t)
    with pytest.raises(RuleViolation, match=r"a straddle is posted before the cards"):
        t.apply(Straddle(seat=4, amount=200))
    limit = CASH.model_copy(update={"betting": "split-limit"})
    t = Table(profile=limit, level=Level(sb=50, bb=100), straddles=ALL)
    for s in range(1, 5):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=5_000))
    t.apply(StartHand())
    with pytest.raises(RuleViolation, match=r"no straddle in a split-limit game"):
        t.apply(Straddle(seat=4, amount=200))


def test_cg_straddle_after_the_flop_the_first_left_of_the_button_and_the_big_blind_bet() -> None:
    t = table(players=4)
    t.apply(Straddle(seat=4, amount=200))
    deal_all(t)
    for seat in (1, 2, 3):
        t.apply(Call(seat=seat))
    t.apply(Check(seat=4))
    t.apply(DealBoard(cards="2c3d4h"))
    hand = t.hand
    assert hand is not None and hand.street is Street.FLOP and to_act(t) == 2
    options = hand.options()
    assert options is not None and options.min_raise_to == 100  # the big blind, not the straddle


def test_a_straddled_hand_replays_the_same() -> None:
    t = table()
    t.apply(Straddle(seat=6, amount=200))
    t.apply(Straddle(seat=4, amount=200))
    t.apply(Straddle(seat=5, amount=400))
    deal_all(t)
    t.apply(BetOrRaise(seat=6, to=1200))
    again = rebuild(t.log, profile=CASH, level=Level(sb=50, bb=100), straddles=ALL)
    assert again.hand is not None and t.hand is not None
    assert again.hand.log == t.hand.log and again.hand_straddles == t.hand_straddles
