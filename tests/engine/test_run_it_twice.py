"""Run it twice in the engine, each rule by CG "Run It Twice" a-f: the river, turn and river, or
the whole board twice, once no action is possible (a), at or above the table's minimum pot (c),
per pot (a side pot may run twice while the main pot does not), the odd chip to the worse
position (f); each run's part of a pot to the best hand on it. (The players' agreement, b, and
the floor, d and e, are the table's: tests/session/test_run_it_twice.py.)"""

from __future__ import annotations

import pytest

from controller.engine.cards import parse_cards
from controller.engine.hand import Hand, HandSetup, PlayerSetup, Stage, Street
from controller.errors import HandStateError
from tests.engine.helpers import deal, run


def hand_of(stacks: list[int], min_pot: int | None = 500, unit: int = 1,
            boards: int = 1) -> Hand:
    """Players p1..pn from left of the button; blinds 50/100 (heads-up p1 the big blind)."""
    blinds = [50, 100] + [0] * (len(stacks) - 2) if len(stacks) > 2 else [100, 50]
    return Hand(HandSetup(
        players=[PlayerSetup(label=f"p{k + 1}", stack=s, blind=b)
                 for k, (s, b) in enumerate(zip(stacks, blinds, strict=True))],
        min_bet=100, run_twice_min_pot=min_pot, odd_chip_unit=unit, boards=boards))


def cards(text: str) -> list[int]:
    return [c for c in parse_cards(text) if c is not None]


def test_cg_run_it_twice_the_turn_and_river_twice_each_run_half_the_pot() -> None:
    hand = deal(hand_of([1_000, 1_000]), "AsAh", "KsKh")
    run(hand, "p2 cbr 1000; p1 c")
    hand.deal_board(cards("2c7d9h"))
    assert hand.stage is Stage.DEALING and hand.run_twice_refusal([0]) is None
    hand.run_twice([0])
    for turn_or_river in ("Kd", "3s"):  # run 1: the kings
        hand.deal_board(cards(turn_or_river))
    assert hand.street is Street.FLOP and hand.stage is Stage.DEALING  # run 2 is due
    assert hand.next_board_street() == (1, Street.TURN)
    for turn_or_river in ("4s", "5c"):  # run 2: the aces hold
        hand.deal_board(cards(turn_or_river))
    assert hand.stage is Stage.SHOWDOWN
    assert hand.boards.cards == [cards("2c7d9hKd3s"), cards("2c7d9h4s5c")]
    run(hand, "p1 sm; p2 sm")
    (result,) = hand.settle()
    assert [(p.board, p.winners, p.amount) for p in result.parts] == [(0, (1,), 1_000),
                                                                     (1, (0,), 1_000)]
    assert hand.stacks == [1_000, 1_000]
    assert [a.board for a in hand.log if a.kind == "deal_board"] == [0, 0, 0, 1, 1]


def test_cg_run_it_twice_the_whole_board_twice() -> None:
    hand = deal(hand_of([1_000, 1_000]), "AsAh", "KsKh")
    run(hand, "p2 cbr 1000; p1 c")
    hand.run_twice([0])
    for board in ("2c7d9h", "Kd", "3s", "2d7c9s", "4s", "5c"):
        hand.deal_board(cards(board))
    assert hand.boards.run_from == 0 and hand.stage is Stage.SHOWDOWN


def test_cg_run_it_twice_a_only_once_no_action_is_possible() -> None:
    hand = deal(hand_of([5_000, 5_000]), "AsAh", "KsKh")
    run(hand, "p2 cbr 1000; p1 c")
    hand.deal_board(cards("2c7d9h"))
    assert hand.run_twice_refusal([0]) == (
        "run it twice only once no action is possible (all-in, the betting over)",
        "CG Run It Twice a")
    with pytest.raises(HandStateError, match=r"\(CG Run It Twice a\)$"):
        hand.run_twice([0])


def test_cg_run_it_twice_c_at_or_above_the_tables_minimum_pot() -> None:
    hand = deal(hand_of([240, 240]), "AsAh", "KsKh")
    run(hand, "p2 cbr 240; p1 c")
    assert hand.run_twice_refusal([0]) == ("the pot holds 480: run it twice from 500",
                                           "CG Run It Twice c")
    hand = deal(hand_of([250, 250]), "AsAh", "KsKh")
    run(hand, "p2 cbr 250; p1 c")
    assert hand.run_twice_refusal([0]) is None
    hand = deal(hand_of([5_000, 5_000], min_pot=None), "AsAh", "KsKh")
    run(hand, "p2 cbr 5000; p1 c")
    assert hand.run_twice_refusal([0]) == ("this table does not run it twice", "CG Run It Twice")


def test_cg_run_it_twice_a_side_pot_runs_twice_while_the_main_pot_does_not() -> None:
    # p1 all-in for 600 (main pot 1,800), p2 and p3 for 2,000 (side pot 2,800)
    hand = deal(hand_of([600, 2_000, 2_000]), "AsAh", "KsKh", "QsQh")
    run(hand, "p3 cbr 2000; p1 c; p2 c")
    hand.run_twice([1])
    for board in ("2c7d9h", "3s", "4d", "Qd2d3c", "5h", "6h"):
        hand.deal_board(cards(board))
    run(hand, "p1 sm; p2 sm; p3 sm")
    main, side = hand.settle()
    assert main.parts == () and main.winners == (0,) and main.amount == 1_800
    assert [(p.board, p.winners) for p in side.parts] == [(0, (1,)), (1, (2,))]
    assert hand.stacks == [1_800, 1_400, 1_400]


def test_cg_run_it_twice_f_the_odd_chip_goes_to_the_worse_position() -> None:
    # a pot of 1,050 in units of 50 (CG: split down to the small blind): 21 units, 10 to each
    # run; the 21st to the worse position, the first left of the button, whichever run it won
    for runs in (("Kd", "3s", "4s", "5c"), ("4s", "5c", "Kd", "3s")):
        hand = deal(hand_of([525, 525], unit=50), "KsKh", "AsAh")  # heads-up: p1 the big blind
        run(hand, "p2 cbr 525; p1 c")
        hand.deal_board(cards("2c7d9h"))
        hand.run_twice([0])
        for card in runs:
            hand.deal_board(cards(card))
        run(hand, "p1 sm; p2 sm")
        hand.settle()
        assert hand.stacks == [550, 500]


def test_cg_run_it_twice_not_twice_nor_on_a_double_board_and_which_pots() -> None:
    hand = deal(hand_of([1_000, 1_000]), "AsAh", "KsKh")
    run(hand, "p2 cbr 1000; p1 c")
    assert hand.run_twice_refusal([]) == ("which pots? pot 1 to 1", "CG Run It Twice")
    assert hand.run_twice_refusal([1]) == ("which pots? pot 1 to 1", "CG Run It Twice")
    hand.run_twice([0])
    assert hand.run_twice_refusal([0]) == ("the hand is already run twice", "CG Run It Twice")
    two = deal(hand_of([1_000, 1_000], boards=2), "AsAh", "KsKh")
    run(two, "p2 cbr 1000; p1 c")
    assert two.run_twice_refusal([0]) == ("a double board is not run twice", "CG Run It Twice")
