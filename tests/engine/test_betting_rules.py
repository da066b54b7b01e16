"""Betting rules R1, R3, R4, R7 and pot limit, each test named after its tag."""

from __future__ import annotations

import pytest

from controller.engine.hand import Stage, Street
from controller.errors import HandStateError, IllegalAmount, NotYourTurn, RuleViolation
from tests.engine.helpers import make_hand, run


def test_r1_pvb_42_2_preflop_raise_at_least_the_big_blind() -> None:
    hand = make_hand([10_000] * 4)  # p1 SB 50, p2 BB 100, p3 first to act
    with pytest.raises(IllegalAmount, match=r"raise to 150 is below the minimum raise to 200 "
                                            r"\(PVB 42\(2\)\)"):
        hand.bet_or_raise_to(2, 150)
    hand.bet_or_raise_to(2, 200)
    assert hand.current_bet == 200


def test_r1_pvb_42_3_raise_at_least_the_previous_raise_increment() -> None:
    hand = make_hand([10_000] * 4)
    run(hand, "p3 cbr 300")  # raise of 200
    with pytest.raises(IllegalAmount, match=r"raise to 450 is below the minimum raise to 500"):
        hand.bet_or_raise_to(3, 450)
    run(hand, "p4 cbr 500; p1 f; p2 f; p3 c; db 2c3d4h")
    with pytest.raises(IllegalAmount, match=r"bet of 50 is below the minimum bet of 100 "
                                            r"\(PVB 42\(2\)\)"):
        hand.bet_or_raise_to(2, 50)
    run(hand, "p3 cbr 400")
    with pytest.raises(IllegalAmount, match=r"raise to 700 is below the minimum raise to 800 "
                                            r"\(PVB 42\(3\)\)"):
        hand.bet_or_raise_to(3, 700)


def test_r1_pvb_46_no_limit_on_the_number_of_raises() -> None:
    hand = make_hand([10**9, 10**9], blinds=[100, 50])
    # heads-up: p2 is the button and small blind and acts first
    amount = 200
    for k in range(20):
        hand.bet_or_raise_to(1 if k % 2 == 0 else 0, amount)
        amount *= 2
    assert hand.stage is Stage.BETTING


def test_r1_all_in_below_minimum_is_allowed() -> None:
    hand = make_hand([10_000, 10_000, 150])
    hand.bet_or_raise_to(2, 150)  # p3 all-in for 150: less than a full raise to 200
    assert hand.all_in[2]
    assert hand.current_bet == 150
    assert hand.min_raise_to(0) == 250  # the last full increment (the big blind) still counts


def test_r1_more_than_the_stack_is_refused() -> None:
    hand = make_hand([10_000, 10_000, 1_000])
    with pytest.raises(IllegalAmount, match=r"more than p3 has \(1,000 in all\)"):
        hand.bet_or_raise_to(2, 1_200)


def test_r1_pot_limit_omaha_at_most_the_pot() -> None:
    hand = make_hand([10_000] * 4, game="PO")
    # blinds 50/100: the first raise may reach 100 + (150 + 100) = 350
    assert hand.max_raise_to(2) == 350
    with pytest.raises(IllegalAmount, match=r"raise to 400 is over the pot limit of 350 "
                                            r"\(APSA 5\.2\)"):
        hand.bet_or_raise_to(2, 400)
    hand.bet_or_raise_to(2, 350)
    # p4 faces 350: pot 500, call 350 -> 350 + 850 = 1,200
    assert hand.max_raise_to(3) == 1_200


def test_r3_pvb_42_6_short_all_in_does_not_reopen_for_players_who_acted() -> None:
    hand = make_hand([10_000, 10_000, 10_000, 450])
    run(hand, "p3 cbr 300; p4 cbr 450; p1 c; p2 f")  # p4 all-in for 450: raise of 150 < 200
    assert hand.actor == 2
    with pytest.raises(IllegalAmount, match=r"does not reopen the betting .* \(PVB 42\(6\)\)"):
        hand.bet_or_raise_to(2, 1_000)
    options = hand.options()
    assert options is not None and options.min_raise_to is None and options.to_call == 150
    run(hand, "p3 c")
    assert hand.stage is Stage.DEALING
    assert hand.pots()[0].amount == 3 * 450 + 100


def test_r3_pvb_42_6_players_yet_to_act_may_raise_after_short_all_in() -> None:
    hand = make_hand([10_000, 10_000, 10_000, 350, 10_000])
    run(hand, "p3 cbr 300; p4 cbr 350")  # short all-in
    assert hand.actor == 4
    hand.bet_or_raise_to(4, 650)  # p5 has not acted: raises the full 300 over 350
    assert hand.current_bet == 650


def test_r3_pvb_42_7_short_all_ins_add_up_to_a_full_raise_and_reopen() -> None:
    hand = make_hand([10_000, 10_000, 10_000, 380, 460])
    run(hand, "p3 cbr 300; p4 cbr 380; p5 cbr 460; p1 c; p2 f")
    # p3 acted at 300; he now faces 460: 160 more, less than the full raise of 200
    assert not hand.betting_reopened(2)
    hand = make_hand([10_000, 10_000, 10_000, 400, 500])
    run(hand, "p3 cbr 300; p4 cbr 400; p5 cbr 500; p1 c; p2 f")
    # 400 and 500: each short, together a full raise of 200 over p3's 300
    assert hand.betting_reopened(2)
    hand.bet_or_raise_to(2, 700)


def test_r4_short_big_blind_others_match_the_full_big_blind() -> None:
    hand = make_hand([10_000, 60, 10_000, 10_000])  # p2 posts 60 of the 100 big blind, all-in
    assert hand.all_in[1] and hand.bets[1] == 60
    assert hand.current_bet == 100
    assert hand.to_call(2) == 100
    assert hand.min_raise_to(2) == 200  # a raise is to at least two big blinds (APSA 5.3)
    run(hand, "p3 c; p4 c; p1 c")
    assert hand.stage is Stage.DEALING
    # the short blind can only win 60 from each player
    pots = hand.pots()
    assert [p.amount for p in pots] == [240, 120]
    assert pots[0].eligible == (0, 1, 2, 3) and pots[1].eligible == (0, 2, 3)


def test_r4_short_small_blind_is_all_in_for_the_part() -> None:
    hand = make_hand([30, 10_000, 10_000])
    assert hand.all_in[0] and hand.bets[0] == 30
    assert hand.actor == 2


def test_r7_pvb_36_action_out_of_turn_is_refused() -> None:
    hand = make_hand([10_000] * 4)
    with pytest.raises(NotYourTurn, match=r"p4 acted out of turn: it is p3's turn \(PVB 36, 37\)"):
        hand.check_or_call(3)
    assert hand.actor == 2 and hand.stacks[3] == 10_000  # nothing changed


def test_r7_pvb_39_a_folded_player_cannot_act() -> None:
    hand = make_hand([10_000] * 4)
    run(hand, "p3 f; p4 c; p1 c; p2 x; db 2c3d4h; p1 x; p2 x; p4 x")
    with pytest.raises(NotYourTurn, match=r"p3 has folded and cannot act \(PVB 39\)"):
        hand.check(2)


def test_pvb_38_fold_when_a_check_was_possible_is_binding() -> None:
    hand = make_hand([10_000] * 3)
    run(hand, "p3 c; p1 c; p2 f")  # the big blind folds though he could check
    assert hand.folded[1]
    assert hand.stage is Stage.DEALING


def test_check_facing_a_bet_is_refused_with_the_amount() -> None:
    hand = make_hand([10_000] * 3)
    with pytest.raises(IllegalAmount, match=r"p3 cannot check: 100 to call"):
        hand.check(2)


def test_refused_action_changes_nothing() -> None:
    hand = make_hand([10_000] * 4)
    before = (list(hand.stacks), list(hand.bets), hand.actor, len(hand.log))
    for bad in (lambda: hand.bet_or_raise_to(2, 150), lambda: hand.fold(0),
                lambda: hand.deal_board([0, 1, 2]), lambda: hand.check(2)):
        with pytest.raises(RuleViolation):
            bad()
    assert (list(hand.stacks), list(hand.bets), hand.actor, len(hand.log)) == before


def test_i5_pvb_35_5_board_card_before_betting_finished() -> None:
    hand = make_hand([10_000] * 3)
    with pytest.raises(HandStateError, match=r"before the preflop betting finished "
                                             r"\(PVB 35\(5\)\)"):
        hand.deal_board([0, 1, 2])


def test_i5_pvb_34_four_card_flop_is_refused() -> None:
    hand = make_hand([10_000] * 2, blinds=[100, 50])
    run(hand, "p2 c; p1 x")
    with pytest.raises(HandStateError, match=r"the flop is 3 cards, not 4 \(PVB 34\)"):
        hand.deal_board([0, 1, 2, 3])
    hand.deal_board([0, 1, 2])
    assert hand.street is Street.FLOP
