"""The hand variants, each rule by CG "Spielvarianten": a bomb pot (every player puts in the agreed
amount, the flop comes without a betting round, the hand goes on normally after it), a flip
(the whole board without betting, straight to the showdown) and a double board (two boards,
each pot shared equally between them). Where the CG is silent (controller/engine/boards.py,
table.py): the odd chip of a pot shared between boards goes to the worse position as in CG
"Run It Twice" f; a bomb pot or flip posts no blinds and the button stays for the next hand."""

from __future__ import annotations

import pytest

from controller.engine.cards import parse_cards
from controller.engine.hand import Hand, HandSetup, PlayerSetup, Stage, Street, Variant
from controller.engine.profiles import load_profile
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Level,
    Settle,
    Show,
    SitDown,
    StartHand,
    Table,
)
from controller.errors import RuleViolation
from tests.engine.helpers import deal, run

CASH = load_profile("cg-cash").model_copy(update={"button_start": "seat-1"})


def cards(text: str) -> list[int]:
    return [c for c in parse_cards(text) if c is not None]


def bomb(stacks: list[int], amount: int = 500, variant: Variant = "bomb-pot",
         boards: int = 1) -> Hand:
    """Players p1..pn from left of the button, each putting in ``amount``; blinds 50/100, the
    cash profile's split down to the small blind (CG Unteilbare Jetons)."""
    return Hand(HandSetup(
        players=[PlayerSetup(label=f"p{k + 1}", stack=s, ante=amount)
                 for k, s in enumerate(stacks)],
        min_bet=100, big_blind=100, dead_antes=False, variant=variant, boards=boards,
        odd_chip_unit=50))


def test_cg_spielvarianten_bomb_pot_the_flop_without_a_betting_round() -> None:
    hand = bomb([10_000] * 4)
    assert hand.stage is Stage.DEALING and hand.actor is None and hand.pot_total() == 2_000
    assert [(a.kind, a.amount) for a in hand.log] == [("ante", 500)] * 4
    deal(hand, "AsAh", "KsKh", "QsQh", "JsJh")
    hand.deal_board(cards("2c3d4h"))
    assert hand.street is Street.FLOP and hand.stage is Stage.BETTING and hand.actor == 0
    options = hand.options()
    assert options is not None and (options.to_call, options.min_raise_to) == (0, 100)
    run(hand, "p1 cbr 1000; p2 f; p3 f; p4 c; db 9s; p1 x; p4 x; db Td; p1 x; p4 x")
    assert hand.stage is Stage.SHOWDOWN
    run(hand, "p1 sm; p4 sm")
    hand.settle()
    assert hand.stacks == [10_000 - 1_500 + 4_000, 9_500, 9_500, 10_000 - 1_500]


def test_cg_spielvarianten_flip_the_whole_board_without_betting() -> None:
    hand = bomb([10_000, 300, 10_000], variant="flip")
    deal(hand, "AsAh", "KsKh", "QsQh")
    for board in ("2c3d4h", "9s", "Td"):
        assert hand.stage is Stage.DEALING and hand.actor is None
        hand.deal_board(cards(board))
    assert hand.stage is Stage.SHOWDOWN
    run(hand, "p1 sm; p2 sm; p3 sm")
    hand.settle()
    # p2 was all-in for 300: the main pot 900, a side pot of 400 between p1 and p3
    assert [r.amount for r in hand.results] == [900, 400]
    assert hand.stacks == [10_000 + 800, 0, 9_500]


def test_cg_spielvarianten_double_board_each_pot_shared_between_the_boards() -> None:
    hand = bomb([10_000, 10_000], amount=500, boards=2, variant="bomb-pot")
    deal(hand, "AsAh", "7c7d")
    hand.deal_board(cards("AdKc2d"))  # board 1's flop
    assert hand.street is Street.PREFLOP and hand.stage is Stage.DEALING  # board 2's is due
    hand.deal_board(cards("7h8s9c"))
    assert hand.street is Street.FLOP and hand.stage is Stage.BETTING
    assert hand.boards.cards == [cards("AdKc2d"), cards("7h8s9c")]
    run(hand, "p1 x; p2 x; db 4s; db 4h; p1 x; p2 x; db Jh; db Qc; p1 x; p2 x; p1 sm; p2 sm")
    (result,) = hand.settle()
    assert [(p.board, p.winners, p.amount) for p in result.parts] == [(0, (0,), 500),
                                                                     (1, (1,), 500)]
    assert hand.stacks == [10_000, 10_000]  # each board's half back to its winner
    assert [a.board for a in hand.log if a.kind == "deal_board"] == [0, 1, 0, 1, 0, 1]


def test_cg_run_it_twice_f_the_odd_chip_of_a_shared_pot_goes_to_the_worse_position() -> None:
    # 3 x 350 = 1,050 in units of 50: 21 units, 10 to each board, the odd one to the worse
    # position (p1, first left of the button) whichever board he won
    for p1_board, p2_board in (("AdKc2d", "7h8s9c"), ("7h8s9c", "AdKc2d")):
        hand = bomb([10_000] * 3, amount=350, boards=2, variant="flip")
        deal(hand, "AsAh", "7c7d", "3h3s")
        hand.deal_board(cards(p1_board))
        hand.deal_board(cards(p2_board))
        run(hand, "db 4s; db 4h; db Jh; db Qc; p1 sm; p2 sm; p3 sm")
        hand.settle()
        assert hand.stacks[0] - 9_650 == 550 and hand.stacks[1] - 9_650 == 500


def test_cg_spielvarianten_the_table_deals_them_and_the_button_stays() -> None:
    t = Table(profile=CASH, level=Level(sb=50, bb=100))
    for s in range(1, 5):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=10_000))
    with pytest.raises(RuleViolation, match=r"a bomb pot is dealt after a regular hand"):
        t.apply(StartHand(variant="bomb-pot", amount=500))
    t.apply(StartHand())
    assert t.positions is not None and (t.positions.button, t.positions.bb) == (1, 3)
    for seat in (4, 1, 2):
        t.apply(Fold(seat=seat))
    with pytest.raises(RuleViolation, match=r"how much"):
        t.apply(StartHand(variant="flip"))
    t.apply(StartHand(variant="bomb-pot", amount=300, boards=2))
    bomb_hand = t.hand
    assert bomb_hand is not None and bomb_hand.pot_total() == 1_200
    assert t.positions is not None and (t.positions.button, t.positions.bb) == (2, 4)
    holes = ["AsAh", "KsKh", "QsQh", "JsJh"]
    for k, seat in enumerate(t.positions.dealt):
        t.apply(DealHole(seat=seat, cards=holes[k]))
    for board in ("2c3d4h", "2d3h4c"):
        t.apply(DealBoard(cards=board))
    for seat in t.positions.dealt:
        t.apply(Check(seat=seat))
    for board in ("9s", "9d", "Td", "Tc"):
        t.apply(DealBoard(cards=board))
        for seat in t.positions.dealt if bomb_hand.stage is Stage.BETTING else ():
            t.apply(Check(seat=seat))
    for seat in t.positions.dealt:
        t.apply(Show(seat=seat))
    record = t.apply(Settle())
    assert record is not None and record.variant == "bomb-pot" and record.double_board
    assert record.boards == ["2c3d4h9sTd", "2d3h4c9dTc"]
    assert [p.board for p in record.pots[0].boards] == [1, 2]
    t.apply(StartHand())  # the next regular hand: as if the bomb pot had not been dealt
    assert t.positions is not None and (t.positions.button, t.positions.bb) == (2, 4)
    t.apply(BetOrRaise(seat=1, to=300))
    t.apply(Call(seat=2))
    assert t.hand is not None and t.hand.variant is None


def test_a_snapshot_after_a_bomb_pot_keeps_where_the_blinds_move_on_from() -> None:
    t = Table(profile=CASH, level=Level(sb=50, bb=100))
    for s in range(1, 5):
        t.apply(SitDown(seat=s, player=f"p{s}", stack=10_000))
    t.apply(StartHand())
    for seat in (4, 1, 2):
        t.apply(Fold(seat=seat))
    t.apply(StartHand(variant="flip", amount=100))
    assert t.positions is not None
    for k, seat in enumerate(t.positions.dealt):
        t.apply(DealHole(seat=seat, cards=["AsAh", "KsKh", "QsQh", "JsJh"][k]))
    for board in ("2c3d4h", "9s", "Td"):
        t.apply(DealBoard(cards=board))
    t.apply(Settle())
    snapshot = t.snapshot()
    assert snapshot.blinds_positions is not None and snapshot.blinds_positions.button == 1
    again = Table.from_snapshot(snapshot, profile=CASH)
    again.apply(StartHand())  # the button where the flip had it: seat 2
    assert again.positions is not None and (again.positions.button, again.positions.bb) == (2, 4)
    plain = Table(profile=CASH, level=Level(sb=50, bb=100))
    plain.apply(SitDown(seat=1, player="p1", stack=500))
    assert "blinds_positions" not in plain.snapshot().model_dump(mode="json")
