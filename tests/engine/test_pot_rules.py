"""Pots and showdown: S1 to S7, uncalled bets, I4; each test named after its tag."""

from __future__ import annotations

import pytest

from controller.engine.cards import parse_card
from controller.engine.hand import Stage
from controller.engine.pots import split_pot
from controller.errors import FouledDeck, HandStateError
from tests.engine.helpers import deal, make_hand, run

RIVER = "db 2c7d9h; db Js; db 3s"  # a dry board nobody pairs with the hands below


def test_s1_side_pots_are_settled_on_their_own() -> None:
    hand = make_hand([300, 1_000, 10_000, 10_000])
    deal(hand, "AsAh", "KsKh", "QsQh", "8c8d")
    run(hand, "p3 cbr 2000; p4 c; p1 c; p2 c")  # p1 all-in 300, p2 all-in 1,000
    assert [(p.amount, p.eligible) for p in hand.pots()] == [
        (1_200, (0, 1, 2, 3)), (2_100, (1, 2, 3)), (2_000, (2, 3)),
    ]
    run(hand, "db 2c7d9h; p3 x; p4 x; db Js; p3 x; p4 x; db 3s; p3 x; p4 x")
    results = hand.settle()
    # aces win the main pot only; kings the first side pot; queens the second (PVB 63)
    assert [r.winners for r in results] == [(0,), (1,), (2,)]
    assert hand.stacks == [1_200, 2_100, 10_000, 8_000]


def test_s1_all_in_player_wins_only_what_he_contributed() -> None:
    hand = make_hand([500, 10_000, 10_000])
    deal(hand, "AsAh", "KsKh", "QsQh")
    run(hand, "p3 cbr 3000; p1 c; p2 c")
    run(hand, "db 2c7d9h; p2 x; p3 x; db Js; p2 x; p3 x; db 3s; p2 x; p3 x")
    hand.settle()
    assert hand.stacks[0] == 1_500  # 500 from each of three players
    assert hand.stacks[1] == 10_000 - 3_000 + 5_000


def test_s1_big_blind_all_in_on_his_big_blind_ante_can_win_the_dead_money() -> None:
    # p2, the big blind, has only the big-blind ante: his whole stack is dead money in the main
    # pot, which every live player can win; the callers' chips are a pot he cannot win.
    hand = make_hand([10_000, 400, 10_000], blinds=[50, 100, 0], antes=[0, 400, 0],
                     big_blind=100)
    deal(hand, "7c2d", "AsAh", "KsKh")
    assert hand.all_in[1] and hand.contributions[1] == 0
    run(hand, "p3 c; p1 c")
    run(hand, "db 2c8d9h; p1 x; p3 x; db Js; p1 x; p3 x; db 3s; p1 x; p3 x")
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(400, (0, 1, 2)), (200, (0, 2))]
    results = hand.settle()
    assert [r.winners for r in results] == [(1,), (2,)]
    assert hand.stacks == [9_900, 400, 10_100]


def test_uncalled_bet_is_returned() -> None:
    hand = make_hand([10_000, 10_000, 10_000])
    run(hand, "p3 cbr 2500; p1 f; p2 f")
    assert hand.stage is Stage.OVER
    assert hand.stacks == [9_950, 9_900, 10_150]
    assert any(a.kind == "return" and a.amount == 2_400 for a in hand.log)


def test_uncalled_part_of_an_all_in_is_returned() -> None:
    hand = make_hand([10_000, 400])
    # p1 small blind ... heads-up order here is p1 SB acting first (not the table's layout)
    run(hand, "p1 cbr 3000; p2 c")
    assert hand.stacks[0] == 10_000 - 400
    assert hand.contributions == [400, 400]


def test_s2_pvb_62_odd_chip_goes_left_of_the_button() -> None:
    hand = make_hand([10_000, 10_000, 10_000], blinds=[50, 100, 0])
    deal(hand, "AsKd", "AhKc", "7c2d")
    run(hand, "p3 cbr 301; p1 c; p2 c")
    run(hand, "db QsJhTd; p1 x; p2 x; p3 x; db 4c; p1 x; p2 x; p3 x; db 4d; p1 x; p2 x; p3 x")
    (result,) = hand.settle()
    assert result.winners == (0, 1) and result.amount == 903
    assert dict(result.shares) == {0: 452, 1: 451}


def test_s2_odd_chips_in_the_smallest_denomination() -> None:
    assert split_pot(1_100, [4, 1], unit=100) == {4: 600, 1: 500}
    assert split_pot(1_050, [4, 1], unit=100) == {4: 550, 1: 500}  # below a chip: first
    assert split_pot(1_000, [0, 1, 2], unit=25) == {0: 350, 1: 325, 2: 325}
    # two odd chips: one each to the first two winners left of the button, as a dealer splits
    assert split_pot(353, [1, 2, 3], unit=1) == {1: 118, 2: 118, 3: 117}
    # cg-cash splits only down to the small blind unit (RULES S2 [profile])
    assert split_pot(300, [0, 1], unit=50) == {0: 150, 1: 150}
    assert split_pot(350, [0, 1], unit=50) == {0: 200, 1: 150}


def test_s3_pvb_55_last_aggressor_of_the_final_round_shows_first() -> None:
    hand = make_hand([10_000] * 4)
    run(hand, "p3 c; p4 c; p1 c; p2 x; db 2c7d9h; p1 x; p2 x; p3 x; p4 x; db Js")
    run(hand, "p1 x; p2 x; p3 x; p4 x; db 3s; p1 x; p2 cbr 400; p3 c; p4 f; p1 c")
    assert hand.stage is Stage.SHOWDOWN
    assert hand.showdown_order() == [1, 2, 0]


def test_s3_tda_without_a_bet_on_the_last_round_first_left_of_the_button() -> None:
    """The TDA convention (profile ``left-of-button``): only the final round's aggressor
    counts; here p4 bet the flop, yet p3, first left of the button, shows first."""
    hand = make_hand([10_000] * 4, showdown_fallback="left-of-button")
    run(hand, "p3 cbr 300; p4 c; p1 f; p2 f; db 2c7d9h; p3 x; p4 cbr 500; p3 c; db Js; p3 x")
    run(hand, "p4 x; db 3s; p3 x; p4 x")
    assert hand.showdown_order() == [2, 3]


def test_s3_pvb_55_apsa_5_3_bps_37_the_last_bet_after_the_flop_shows_first() -> None:
    """The German books (the rules audit): the last to bet or raise on the flop, turn or
    river shows first, even when the river was checked (PVB 55(1), APSA 5.3, BPS 37)."""
    hand = make_hand([10_000] * 4, showdown_fallback="last-aggressor")
    run(hand, "p3 cbr 300; p4 c; p1 f; p2 f; db 2c7d9h; p3 x; p4 cbr 500; p3 c; db Js; p3 x")
    run(hand, "p4 x; db 3s; p3 x; p4 x")
    assert hand.showdown_order() == [3, 2]


def test_s3_pvb_55_2_no_bet_after_the_flop_first_left_of_the_button() -> None:
    """PVB 55(2), APSA 5.3: nobody bet on flop, turn and river: the first player left of the
    button shows first, not the preflop raiser."""
    hand = make_hand([10_000] * 4, showdown_fallback="last-aggressor")
    run(hand, "p3 c; p4 cbr 300; p1 f; p2 f; p3 c; db 2c7d9h; p3 x; p4 x; db Js; p3 x; p4 x")
    run(hand, "db 3s; p3 x; p4 x")
    assert hand.showdown_order() == [2, 3]


def test_s4_pvb_54_all_in_and_no_more_betting_all_hands_face_up() -> None:
    hand = make_hand([10_000, 2_000, 10_000])
    deal(hand, "AsAh", "KsKh", "QsQh")
    run(hand, "p3 f; p1 cbr 2000; p2 c")
    assert hand.stage is Stage.DEALING and hand.all_in_showdown()
    run(hand, "p1 sm; p2 sm")  # turned face up before the board is complete
    run(hand, RIVER)
    assert hand.stage is Stage.SHOWDOWN
    hand.settle()
    assert hand.stacks == [12_000, 0, 10_000]
    assert hand.shown[:2] == [True, True]


def test_s5_pvb_56_2_lone_remaining_player_wins_without_showing() -> None:
    hand = make_hand([10_000] * 3)
    run(hand, "p3 cbr 300; p1 c; p2 f; db 2c7d9h; p1 cbr 400; p3 f")
    assert hand.stage is Stage.OVER
    assert not any(hand.shown)
    assert hand.stacks[0] == 10_000 + 300 + 100


def test_s5_pvb_56_a_mucked_hand_forfeits_its_claim() -> None:
    hand = make_hand([10_000] * 2, blinds=[100, 50])
    deal(hand, "AsAh", "7c2d")
    run(hand, "p2 c; p1 x; " + RIVER.replace("; db", "; p1 x; p2 x; db") + "; p1 x; p2 x")
    run(hand, "p2 sm; p1 muck")  # the aces are mucked: the seven-deuce wins
    hand.settle()
    assert hand.stacks == [9_900, 10_100]


def test_s5_pvb_53_cards_speak() -> None:
    hand = make_hand([10_000] * 2, blinds=[100, 50])
    deal(hand, "9s8s", "AhAd")
    run(hand, "p2 c; p1 x; db Ts7s2s; p1 x; p2 x; db Kd; p1 x; p2 x; db 3c; p1 x; p2 x")
    hand.settle()  # p1 never announced his straight flush; the table reads it
    assert hand.stacks == [10_100, 9_900]


def test_s6_omaha_exactly_two_hole_cards() -> None:
    # four spades in p1's hand and two on the board are no flush in Omaha
    hand = make_hand([10_000] * 2, blinds=[100, 50], game="PO")
    deal(hand, "AsKsQsJs", "8h8d3c4d")
    run(hand, "p2 c; p1 x; db 2s7s9h; p1 x; p2 x; db Tc; p1 x; p2 x; db 2d; p1 x; p2 x")
    hand.settle()
    # p1: two spades + three board cards can't make a flush (only two spades on board);
    # his best is a straight? Q J + T 9 ... no: the board has 2 7 9 T 2; QJ + T 9 7 is no
    # straight; A K high. p2: 8 8 + 2 2 ... two pair eights and deuces wins.
    assert hand.stacks == [9_900, 10_100]


def test_s6_holdem_best_five_of_seven_may_use_no_hole_card() -> None:
    hand = make_hand([10_000] * 2, blinds=[100, 50])
    deal(hand, "2c3d", "4h5c")
    run(hand, "p2 c; p1 x; db AsKsQs; p1 x; p2 x; db Js; p1 x; p2 x; db Ts; p1 x; p2 x")
    (result,) = hand.settle()
    assert result.winners == (0, 1)  # both play the royal flush on the board


def test_s7_pvb_22_no_rabbit_hunting() -> None:
    hand = make_hand([10_000] * 3)
    run(hand, "p3 f; p1 f")
    assert hand.stage is Stage.OVER
    with pytest.raises(HandStateError, match=r"no rabbit hunting.*\(PVB 22\)"):
        hand.deal_board([0, 1, 2])


def test_i4_pvb_33_card_seen_twice_is_a_fouled_deck() -> None:
    hand = make_hand([10_000] * 3)
    deal(hand, "AsKs")
    with pytest.raises(FouledDeck, match=r"As was seen twice in this hand: fouled deck.*"
                                         r"\(PVB 33\)"):
        hand.deal_hole(1, [parse_card("As"), parse_card("2c")])
    run(hand, "p3 c; p1 c; p2 x")
    with pytest.raises(FouledDeck, match=r"Ks was seen twice"):
        hand.deal_board([parse_card("Ks"), 0, 1])
    assert hand.board == []


def test_i5_pvb_30_6_a_player_with_three_cards() -> None:
    hand = make_hand([10_000] * 3)
    with pytest.raises(HandStateError, match=r"p1 would hold 3 cards instead of 2 "
                                             r"\(PVB 30\(6\)\)"):
        hand.deal_hole(0, [0, 1, 2])


def test_settle_before_showdown_is_refused() -> None:
    hand = make_hand([10_000] * 3)
    with pytest.raises(HandStateError, match="cannot be settled yet"):
        hand.settle()
