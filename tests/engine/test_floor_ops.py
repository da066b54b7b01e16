"""Floor decisions in the engine: a dead hand, a pot awarded by the floor, the button moved, and
table snapshots between hands."""

from __future__ import annotations

import pytest

from controller.engine.hand import Stage
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    KillHand,
    Level,
    MoveButton,
    SetStack,
    Settle,
    Show,
    SitDown,
    StartHand,
    Table,
    rebuild,
)
from controller.errors import HandStateError, RuleViolation
from tests.engine.helpers import make_hand, run


def seated(*seats: int, stack: int = 10_000) -> Table:
    table = Table(level=Level(sb=50, bb=100))
    for seat in seats:
        table.apply(SitDown(seat=seat, player=f"P{seat}", stack=stack))
    return table


def test_pvb_37_5_killed_hand_out_of_turn_leaves_the_action_where_it_was() -> None:
    hand = make_hand([1_000, 1_000, 1_000, 1_000])
    assert hand.actor == 2
    hand.kill(3)  # the button's hand is dead before his turn
    assert hand.actor == 2 and hand.folded[3]
    run(hand, "p3 c; p1 c; p2 x")
    assert hand.stage is Stage.DEALING
    assert hand.log[-4].kind == "kill"


def test_pvb_37_5_killing_the_actor_passes_the_action_on() -> None:
    hand = make_hand([1_000, 1_000, 1_000])
    assert hand.actor == 2
    hand.kill(2)
    assert hand.actor == 0


def test_killing_all_but_one_awards_the_pot_uncontested() -> None:
    hand = make_hand([1_000, 1_000, 1_000])
    run(hand, "p3 cbr 300")
    hand.kill(0)
    hand.kill(1)
    assert hand.stage is Stage.OVER
    assert hand.stacks == [950, 900, 1_150]  # his raise comes back uncalled, blinds won
    with pytest.raises(HandStateError):
        hand.kill(2)


def test_floor_award_replaces_the_evaluation_of_one_pot() -> None:
    hand = make_hand([1_000, 1_000])
    run(hand, "dh p1 AsAd; dh p2 7c2d; p1 c; p2 x; db KsQs3h; p1 x; p2 x; db 9c; p1 x; p2 x;"
              " db 4d; p1 x; p2 x")
    with pytest.raises(HandStateError, match="only go to players who are in it"):
        hand.settle({0: [5]})
    hand.settle({0: [1]})  # the floor gives the pot to the worse hand (a dispute)
    assert hand.stacks == [900, 1_100]


def test_pvb_29_2_floor_moves_the_button_for_the_next_hand() -> None:
    table = seated(1, 2, 3, 4)
    table.apply(MoveButton(seat=3))
    table.apply(StartHand())
    assert table.positions is not None
    assert (table.positions.button, table.positions.sb, table.positions.bb) == (3, 4, 1)
    with pytest.raises(HandStateError):
        table.apply(MoveButton(seat=1))  # not during a hand


def test_pvb_29_2_button_only_on_a_player_with_chips() -> None:
    table = seated(1, 2, 3)
    with pytest.raises(RuleViolation, match="no player"):
        table.apply(MoveButton(seat=7))


def test_kill_hand_op_and_awarded_settle_through_the_table() -> None:
    table = seated(1, 2)
    table.apply(StartHand())
    table.apply(DealHole(seat=1, cards="AsAd"))
    table.apply(DealHole(seat=2, cards="KcKd"))
    table.apply(Call(seat=1))
    table.apply(Check(seat=2))
    for cards in ("2c7d9h", "Js", "3s"):
        table.apply(DealBoard(cards=cards))
        table.apply(Check(seat=2))
        table.apply(Check(seat=1))
    table.apply(Show(seat=2))
    table.apply(Show(seat=1))
    record = table.apply(Settle(awards={0: [2]}))
    assert record is not None and record.pots[0].winners == [2]
    table.apply(StartHand())
    record = table.apply(KillHand(seat=2))  # heads-up: the other hand wins uncontested
    assert record is not None and record.pots[0].winners == [1]


def test_snapshot_restores_the_table_between_hands() -> None:
    table = seated(1, 3, 5)
    table.apply(StartHand())
    table.apply(BetOrRaise(seat=1, to=300))
    table.apply(Call(seat=3))
    table.apply(Call(seat=5))
    snapshot_in_hand = pytest.raises(HandStateError)
    with snapshot_in_hand:
        table.snapshot()
    table.apply(DealBoard(cards="2c7d9h"))
    for seat in (3, 5, 1):
        table.apply(Check(seat=seat))
    table.apply(DealBoard(cards="Js"))
    for seat in (3, 5, 1):
        table.apply(Check(seat=seat))
    table.apply(DealBoard(cards="3s"))
    table.apply(BetOrRaise(seat=3, to=9_700))
    from controller.engine.table_play import Fold
    table.apply(Fold(seat=5))
    table.apply(Fold(seat=1))
    copy = Table.from_snapshot(table.snapshot())
    assert copy.stacks() == table.stacks() and copy.hand_number == 1
    copy.apply(StartHand())
    table.apply(StartHand())
    assert copy.positions == table.positions


def test_cg_table_stake_a_stack_is_set_between_hands_only_and_never_to_nothing() -> None:
    table = seated(1, 2, 3)
    table.apply(SetStack(seat=2, stack=15_000))  # an add-on, between hands
    assert table.stacks() == {1: 10_000, 2: 15_000, 3: 10_000}
    table.apply(StartHand())
    with pytest.raises(HandStateError, match="a stack change waits until the hand is over"):
        table.apply(SetStack(seat=2, stack=20_000))
    assert table.seats[2].stack == 15_000
    with pytest.raises(RuleViolation):
        seated(1, 2).apply(SetStack(seat=5, stack=100))
    with pytest.raises(ValueError):
        SetStack(seat=1, stack=0)  # nobody leaves a tournament by a count (PVB 15b(2))
    again = rebuild(table.log, level=Level(sb=50, bb=100))  # replayed from its operations
    assert again.hand is not None and sorted(again.hand.starting_stacks) == [10_000, 10_000, 15_000]
