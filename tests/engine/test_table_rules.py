"""The table across hands: button and blinds (B1 to B4, B6), levels (H2), multi-hand scripts."""

from __future__ import annotations

import itertools
from typing import get_args

import pytest

from controller.engine import table_play
from controller.engine.hand import Stage
from controller.engine.operations import Operation
from controller.engine.profiles import load_profile
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    DrawForButton,
    Fold,
    Leave,
    Level,
    MoveButton,
    SetLevel,
    SitDown,
    StartHand,
    Table,
    rebuild,
)
from controller.errors import HandStateError, RuleViolation


def seated(*seats: int, stack: int = 10_000, **kwargs: object) -> Table:
    table = Table(level=Level(sb=50, bb=100), **kwargs)  # type: ignore[arg-type]
    for seat in seats:
        table.apply(SitDown(seat=seat, player=f"P{seat}", stack=stack))
    return table


def fold_around(table: Table) -> None:
    """Everyone folds to the big blind: a quick hand."""
    while table.hand is not None and table.hand.stage is not Stage.OVER:
        seat = table.actor_seat()
        assert seat is not None
        table.apply(Fold(seat=seat))


def play_hand(table: Table) -> tuple[int, int | None, int]:
    table.apply(StartHand())
    p = table.positions
    assert p is not None
    fold_around(table)
    return p.button, p.sb if p.sb_live else None, p.bb


def test_b1_pvb_26a_button_starts_at_seat_1() -> None:
    table = seated(1, 3, 4, 7)
    assert play_hand(table) == (1, 3, 4)


def test_b1_button_starts_at_first_occupied_seat_after_seat_1() -> None:
    table = seated(2, 5, 9)
    assert play_hand(table) == (2, 5, 9)


def test_b1_pvb_26b_high_card_draw_with_suit_order() -> None:
    table = seated(1, 2, 3, 4, profile=load_profile("cg-cash"))
    with pytest.raises(HandStateError, match="draw for the button first"):
        table.apply(StartHand())
    # two aces: spades beat hearts (APSA 2.2.20)
    table.apply(DrawForButton(cards={1: "Ah", 2: "7c", 3: "As", 4: "Kd"}))
    assert play_hand(table) == (3, 4, 1)


def test_b2_pvb_27_big_blind_moves_one_seat_every_hand() -> None:
    table = seated(1, 2, 3, 4, 5)
    hands = [play_hand(table) for _ in range(6)]
    assert [bb for _, _, bb in hands] == [3, 4, 5, 1, 2, 3]
    assert [b for b, _, _ in hands] == [1, 2, 3, 4, 5, 1]


TDA = load_profile("pvb-2020").model_copy(update={"name": "tda", "dead_button": "empty-seat"})


def test_b2_pvb_27_1_small_blind_busts_the_button_stays_a_second_hand() -> None:
    """APSA 5.3: the small blind busts: "der Dealerbutton bleibt zum zweiten Mal in Folge beim
    selben Spieler"; PVB 27(1), BPS 6."""
    table = seated(1, 2, 3, 4, 5)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=2))  # the small blind is eliminated
    assert play_hand(table) == (1, 3, 4)  # button stays on seat 1, big blind moves one
    assert play_hand(table) == (3, 4, 5)  # and moves on normally
    # the move to heads-up afterwards: nobody posts the big blind twice (PVB 28(2))
    table.apply(Leave(seat=1))
    table.apply(Leave(seat=3))
    button, sb, bb = play_hand(table)
    assert bb != 5 and (button, sb) == (5, 5) and bb == 4


def test_b2_apsa_5_3_big_blind_busts_dead_small_blind_then_the_button_stands() -> None:
    """The big blind busts: next hand only a big blind (the small blind is dead), and in the
    hand after that the button stands (APSA 5.3 "bleibt der Dealer Button stehen")."""
    table = seated(1, 2, 3, 4, 5)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=3))
    assert play_hand(table) == (2, None, 4)  # dead small blind; the button moves on to 2
    assert play_hand(table) == (2, 4, 5)  # the button stands on seat 2 a second hand
    assert play_hand(table) == (4, 5, 1)
    table.apply(Leave(seat=5))
    table.apply(Leave(seat=2))
    button, sb, bb = play_hand(table)  # heads-up between 1 and 4: 1 was big blind last
    assert (button, sb, bb) == (1, 1, 4)


def test_b2_two_players_bust_in_one_hand_the_big_blind_order_first() -> None:
    """Small and big blind bust together: the big blind still moves one player (APSA 5.3: its
    order comes first), the small blind is dead, and the button never moves onto either empty
    seat."""
    table = seated(1, 2, 3, 4, 5, 6)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=2))
    table.apply(Leave(seat=3))
    assert play_hand(table) == (1, None, 4)
    assert play_hand(table) == (1, 4, 5)
    assert play_hand(table) == (4, 5, 6)
    table.apply(Leave(seat=5))
    table.apply(Leave(seat=6))
    assert play_hand(table) == (4, 4, 1)  # heads-up: seat 6 had the big blind, now 1 has it


def test_b2_pvb_27_1_a_new_player_on_the_big_blind_position_the_button_stays() -> None:
    """PVB 27(1): "Hinzukommen eines neuen Spielers auf der Big Blind-Position": the big blind
    busts and a player from a broken table takes his seat. The small blind there is dead (the
    new player has not played at this table), and the hand after, the button stays."""
    table = seated(1, 2, 3, 4, 5)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=3))
    table.apply(SitDown(seat=3, player="from table 9", stack=8_000))
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb_live, p.bb) == (2, False, 4)
    assert 3 not in p.dealt  # between the button and the small blind: he waits (PVB 10(1))
    fold_around(table)
    assert play_hand(table) == (2, 4, 5)  # the button stays on seat 2
    table.apply(Leave(seat=2))
    table.apply(Leave(seat=4))
    table.apply(Leave(seat=1))
    assert play_hand(table) == (5, 5, 3)  # heads-up: seat 5 had the big blind, now seat 3


def test_b2_the_tda_convention_puts_the_button_on_the_empty_seat_under_its_profile() -> None:
    table = seated(1, 2, 3, 4, 5, profile=TDA)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=2))
    assert play_hand(table) == (2, 3, 4)  # on the empty seat of the player who busted
    table = seated(1, 2, 3, 4, 5, profile=TDA)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=3))
    assert play_hand(table) == (2, None, 4)
    assert play_hand(table) == (3, 4, 5)  # dead button on the big blind's empty seat


def test_b2_nobody_skips_the_big_blind_or_pays_it_twice_over_many_hands() -> None:
    table = seated(1, 2, 3, 4, 5, 6)
    seen: list[int] = []
    for k in range(14):
        if k == 3:
            table.apply(Leave(seat=5))
        if k == 7:
            table.apply(Leave(seat=1))
        if k == 9:
            table.apply(SitDown(seat=5, player="late", stack=5_000))
        _, _, bb = play_hand(table)
        seen.append(bb)
    assert all(a != b for a, b in itertools.pairwise(seen))
    # between two big blinds of the same seat every other seated player had one
    assert seen[:3] == [3, 4, 5] and seen[3:7] == [6, 1, 2, 3]


def test_b3_pvb_28_heads_up_button_posts_small_blind_and_acts_first() -> None:
    table = seated(2, 6)
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.bb) == (2, 2, 6)
    assert table.actor_seat() == 2  # the button acts first preflop
    table.apply(Call(seat=2))
    table.apply(BetOrRaise(seat=6, to=300))
    table.apply(Call(seat=2))
    from controller.engine.table_play import Check, DealBoard
    table.apply(DealBoard(cards="2c7d9h"))
    assert table.actor_seat() == 6  # the big blind acts first after the flop
    table.apply(Check(seat=6))
    table.apply(Check(seat=2))


def test_b3_pvb_28_2_move_to_heads_up_nobody_posts_the_big_blind_twice() -> None:
    table = seated(1, 2, 3)
    assert play_hand(table) == (1, 2, 3)
    table.apply(Leave(seat=1))  # the button busts: heads-up between 2 and 3
    button, sb, bb = play_hand(table)
    assert bb != 3  # seat 3 was big blind last hand
    assert (button, sb, bb) == (3, 3, 2)
    assert play_hand(table) == (2, 2, 3)


def test_b3_heads_up_when_the_big_blind_busts() -> None:
    table = seated(1, 2, 3)
    play_hand(table)
    table.apply(Leave(seat=3))
    assert play_hand(table) == (2, 2, 1)


def test_b4_pvb_10_new_player_between_button_and_small_blind_waits() -> None:
    table = seated(1, 3, 5, 7)
    assert play_hand(table) == (1, 3, 5)
    # next hand: button 3, SB 5, BB 7; seat 4 is between button and small blind
    table.apply(SitDown(seat=4, player="from table 9", stack=8_000))
    table.apply(SitDown(seat=8, player="also new", stack=8_000))
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.bb) == (3, 5, 7)
    assert 4 not in p.dealt and 8 in p.dealt  # seat 8 is dealt in right away
    fold_around(table)
    table.apply(StartHand())
    assert table.positions is not None and 4 in table.positions.dealt


def test_b4_pvb_27_1_new_player_on_the_big_blind_position_posts_it_and_the_button_stays() -> None:
    """PVB 27(1): "das Hinzukommen eines neuen Spielers auf der Big Blind-Position [macht] der
    Dead Button für die nächste Hand obligatorisch": the new player in the empty seat the big
    blind moves to posts the big blind at once, and the button stays where it was (it moved on
    to seat 3 before)."""
    table = seated(1, 3, 5)
    assert play_hand(table) == (1, 3, 5)
    table.apply(SitDown(seat=6, player="new", stack=8_000))
    assert play_hand(table) == (1, 5, 6)
    assert table.positions is not None and 6 in table.positions.dealt
    assert play_hand(table) == (5, 6, 1)  # then on as usual: nobody skips a big blind


def test_b4_tda_a_new_player_on_the_big_blind_position_and_the_button_moves_on() -> None:
    """Common TDA practice (profile ``dead_button = "empty-seat"``): the button moves on."""
    profile = load_profile("pvb-2020").model_copy(update={"dead_button": "empty-seat"})
    table = seated(1, 3, 5, profile=profile)
    assert play_hand(table) == (1, 3, 5)
    table.apply(SitDown(seat=6, player="new", stack=8_000))
    assert play_hand(table) == (3, 5, 6)


def bust(table: Table, loser: int, winner: int) -> None:
    """Start a hand in which ``loser`` goes all-in first and ``winner`` calls with aces and wins;
    everyone else folds."""
    from controller.engine.table_play import DealBoard, DealHole, Settle

    table.apply(StartHand())
    while table.hand is not None and table.hand.stage is Stage.BETTING:
        seat = table.actor_seat()
        assert seat is not None
        if seat == loser:
            table.apply(BetOrRaise(seat=seat, to=table.seats[seat].stack))
        elif seat == winner and table.hand.current_bet > table.hand_level.bb:
            table.apply(Call(seat=seat))
        else:
            table.apply(Fold(seat=seat))
    table.apply(DealHole(seat=loser, cards="7c2d"))
    table.apply(DealHole(seat=winner, cards="AsAh"))
    for cards in ("Kd9c4h", "3s", "Jd"):
        table.apply(DealBoard(cards=cards))
    table.apply(Settle())
    assert loser not in table.seats


def broken_table_arrives() -> Table:
    """The outside check of table 1 (6 seats): Cem (1), Dan (4) and Uta (5) play hand 20 at
    800/1,600 with a big-blind ante of 1,600; table 2 breaks and Pia, Xena and Ole sit down at
    seats 2, 3 and 6 before hand 21."""
    table = Table(level=Level(level=5, sb=800, bb=1_600, bb_ante=1_600), seats=6)
    for seat, name, stack in ((1, "Cem", 5_000), (4, "Dan", 20_000), (5, "Uta", 20_000)):
        table.apply(SitDown(seat=seat, player=name, stack=stack))
    table.apply(MoveButton(seat=1))
    assert play_hand(table) == (1, 4, 5)  # hand 20 (here hand 1)
    for seat, name in ((2, "Pia"), (3, "Xena"), (6, "Ole")):
        table.apply(SitDown(seat=seat, player=name, stack=9_000))
    return table


def test_b2_b4_pvb_10_1_27_1_newcomers_sit_out_one_hand_and_the_button_moves_on_after_it() -> None:
    """Hand 21: Ole arrived on the big blind's seat: he posts it and the button stays on seat
    1 (PVB 27(1)); Pia and Xena sit between the button and the small blind: no cards this
    hand (PVB 10(1)). Cem busts. Hand 22: Uta posted the small blind and plays on, so the
    button moves onto her seat; the big blind reaches Pia, who posts it with its ante and
    is dealt in, Xena with her (APSA 3.1.2.5: from the hand after, a newcomer gets cards
    wherever he sits). The check found the button left on Cem's empty seat for hands 22-24,
    Pia named big blind in hand 22 but neither dealt in nor charged, and Pia out until hand
    24, Xena until 22."""
    table = broken_table_arrives()
    bust(table, loser=1, winner=6)  # hand 21
    first = table.records[-1]
    assert (first.button, first.sb, first.bb) == (1, 5, 6)
    assert set(first.players) == {1, 4, 5, 6}
    assert table.eliminated == [(2, "Cem")]
    table.apply(StartHand())  # hand 22
    p = table.positions
    assert p is not None and (p.button, p.sb, p.sb_live, p.bb) == (5, 6, True, 2)
    assert p.dealt == (6, 2, 3, 4, 5) and table.sitting_out() == {}
    hand = table.hand
    assert hand is not None
    assert hand.bets[p.dealt.index(2)] == 1_600 and hand.dead_money == 1_600  # Pia's blind, ante
    assert hand.bets[p.dealt.index(6)] == 800
    fold_around(table)
    assert play_hand(table) == (6, 2, 3)  # hand 23: Xena's big blind
    assert play_hand(table) == (2, 3, 4)  # hand 24
    assert play_hand(table) == (3, 4, 5)  # every player one big blind: 2, 3, 4, 5 and 6 before
    assert [r.bb for r in table.records] == [5, 6, 2, 3, 4, 5]


def test_b4_pvb_10_1_the_engine_says_who_sits_out_and_why() -> None:
    table = broken_table_arrives()
    assert table.sitting_out() == {}  # hand 20 dealt everyone; the newcomers came after it
    table.apply(StartHand())
    assert table.sitting_out() == {2: "PVB 10(1)", 3: "PVB 10(1)"}
    fold_around(table)
    assert table.sitting_out() == {2: "PVB 10(1)", 3: "PVB 10(1)"}  # in the last hand
    table.apply(StartHand())
    assert table.sitting_out() == {}


def test_b2_apsa_5_3_the_button_cannot_stay_where_the_big_blind_went_round_it() -> None:
    """As the check's hand 21, but Cem (the button) and Uta (the small blind) both bust: the
    button would stay on seat 1 (PVB 27(1)), yet the big blind has gone round past it to Pia
    on seat 2, after the small blind Ole on seat 6. The big blind's order comes first and the
    button is adapted (APSA 5.3): it goes onto Uta's empty seat, before the small blind, and
    every player is dealt in."""
    table = broken_table_arrives()
    table.apply(StartHand())  # hand 21: Dan and Ole fold, Cem and Uta bust to him... by leaving
    fold_around(table)
    table.apply(Leave(seat=1))
    table.apply(Leave(seat=5))
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.sb_live, p.bb) == (5, 6, True, 2)
    assert p.dealt == (6, 2, 3, 4)
    fold_around(table)
    assert play_hand(table) == (6, 2, 3)


def test_b3_b4_from_heads_up_to_three_the_newcomer_may_get_the_button() -> None:
    """Heads-up the button posts the small blind (seat 1) and seat 5 the big blind; a newcomer
    sits on seat 3. The big blind moves on to seat 1, seat 5 posts the small blind, and the
    button goes before it, to the newcomer, who is dealt in (PVB 10(1): "am Button
    einsteigen")."""
    table = seated(1, 5)
    assert play_hand(table) == (1, 1, 5)
    table.apply(SitDown(seat=3, player="new", stack=8_000))
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.bb) == (3, 5, 1) and 3 in p.dealt
    fold_around(table)
    assert play_hand(table) == (5, 1, 3)


def test_b4_apsa_3_1_2_5_a_newcomer_sits_out_one_hand_even_when_the_button_stays() -> None:
    """Seat 2 arrives between the button and the small blind and sits out; the small blind
    busts, so the button stays (PVB 27(1)) and seat 2 is still behind it: he is dealt in now
    ("ab diesem Zeitpunkt erhält der neue Spieler auch Karten", APSA 3.1.2.5), and as no
    newcomer he does not hold the button back."""
    table = seated(1, 3, 5, 7)
    assert play_hand(table) == (1, 3, 5)
    table.apply(SitDown(seat=4, player="new", stack=8_000))
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.bb) == (3, 5, 7) and 4 not in p.dealt
    fold_around(table)
    table.apply(Leave(seat=5))  # the small blind busts: the button stays on 3
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.bb) == (3, 7, 1) and 4 in p.dealt
    fold_around(table)
    assert play_hand(table) == (7, 1, 3)


def test_b6_apsa_3_1_2_8_button_stays_over_a_break() -> None:
    table = seated(1, 2, 3, 4)
    assert play_hand(table) == (1, 2, 3)
    # a break: the level changes, no hand is played, the button does not move
    table.apply(SetLevel(level=Level(level=2, sb=100, bb=200)))
    assert play_hand(table) == (2, 3, 4)


def test_h2_pvb_14_new_level_applies_from_the_next_hand() -> None:
    table = seated(1, 2, 3)
    table.apply(StartHand())
    table.apply(SetLevel(level=Level(level=2, sb=100, bb=200, ante=25)))
    hand = table.hand
    assert hand is not None and hand.current_bet == 100  # this hand keeps level 1
    fold_around(table)
    assert table.records[-1].level == 1
    table.apply(StartHand())
    assert table.hand is not None and table.hand.current_bet == 200
    assert table.hand.dead_money == 0 and sum(table.hand.contributions) == 300 + 75
    fold_around(table)
    assert table.records[-1].level == 2 and table.records[-1].blinds.ante == 25


def test_big_blind_ante_is_dead_money_posted_by_the_big_blind() -> None:
    table = Table(level=Level(sb=100, bb=200, bb_ante=200))
    for seat in (1, 2, 3):
        table.apply(SitDown(seat=seat, player=f"P{seat}", stack=10_000))
    table.apply(StartHand())
    hand = table.hand
    assert hand is not None and hand.dead_money == 200
    assert table.stacks() == {1: 10_000, 2: 10_000, 3: 10_000}  # the table pays at the end
    fold_around(table)
    assert table.stacks() == {1: 10_000, 2: 9_900, 3: 10_100}


def test_eliminated_players_leave_and_the_engine_goes_on() -> None:
    table = seated(1, 2, 3)
    table.apply(StartHand())
    table.apply(BetOrRaise(seat=1, to=10_000))
    table.apply(Call(seat=2))
    table.apply(Fold(seat=3))
    from controller.engine.table_play import DealBoard, DealHole, Settle
    table.apply(DealHole(seat=1, cards="AsAh"))
    table.apply(DealHole(seat=2, cards="7c2d"))
    for cards in ("Kd9c4h", "3s", "Jd"):
        table.apply(DealBoard(cards=cards))
    record = table.apply(Settle())
    assert record is not None and record.finishing_stacks[1] == 20_100
    assert table.eliminated == [(1, "P2")]
    assert 2 not in table.seats
    assert play_hand(table) == (3, 3, 1)  # heads-up now


def test_seat_errors_are_refused() -> None:
    table = seated(1, 2)
    with pytest.raises(RuleViolation, match="seat 2 is taken"):
        table.apply(SitDown(seat=2, player="x", stack=100))
    table.apply(StartHand())
    with pytest.raises(HandStateError, match="waits until the hand is over"):
        table.apply(SitDown(seat=5, player="x", stack=100))


def test_rebuild_from_the_log_gives_the_same_table() -> None:
    table = seated(1, 2, 3, 4)
    for _ in range(3):
        play_hand(table)
    table.apply(StartHand())
    table.apply(BetOrRaise(seat=table.actor_seat() or 0, to=300))
    copy = rebuild(table.log, level=Level(sb=50, bb=100))
    assert copy.stacks() == table.stacks()
    assert copy.positions == table.positions
    assert copy.hand is not None and table.hand is not None
    assert copy.hand.log == table.hand.log
    assert copy.records == table.records


def test_table_accepts_operations_as_plain_dicts() -> None:
    table = seated(1, 2, 3)
    table.apply({"op": "start_hand"})
    with pytest.raises(ValueError):
        table.apply({"op": "bet_or_raise", "seat": 1, "to": -5})
    table.apply({"op": "fold", "seat": 1})


def test_i4_pvb_33_void_hand_returns_every_chip_and_the_same_button_deals_again() -> None:
    from controller.engine.table_play import DealHole, VoidHand

    table = seated(1, 2, 3, 4)
    play_hand(table)  # an earlier hand stands
    after_first = table.stacks()
    table.apply(StartHand())
    positions = table.positions
    table.apply(BetOrRaise(seat=1, to=400))
    table.apply(DealHole(seat=2, cards="AsKs"))
    with pytest.raises(RuleViolation, match="fouled deck"):
        table.apply(DealHole(seat=3, cards="As2c"))  # the same ace again: fouled deck
    record = table.apply(VoidHand(reason="As twice: fouled deck", rule="PVB 33"))
    assert record is not None and record.status == "void"
    (irregularity,) = record.irregularities
    assert (irregularity.rule, irregularity.text) == ("PVB 33", "As twice: fouled deck")
    assert table.stacks() == after_first  # bets go back
    assert len(table.records) == 2 and table.records[0].status == "complete"
    table.apply(StartHand())
    assert table.positions == positions  # the button does not move for a void hand


def test_b4_pvb_33_a_newcomer_after_a_void_hand_waits_for_it_to_be_dealt_again() -> None:
    """Decided: the void hand is dealt again by the same button to the same seats (PVB 30, 33);
    a player who sat down in between waits for it, says why, and plays the hand after."""
    from controller.engine.table_play import VoidHand

    table = seated(1, 2, 3, 4)
    assert play_hand(table) == (1, 2, 3)
    table.apply(StartHand())
    voided = table.positions
    table.apply(VoidHand(reason="two cards exposed", rule="PVB 30(2)", status="misdeal"))
    table.apply(SitDown(seat=6, player="from table 9", stack=8_000))
    table.apply(StartHand())
    assert table.positions == voided and table.sitting_out() == {6: "PVB 33"}
    fold_around(table)
    table.apply(StartHand())
    p = table.positions
    assert p is not None and (p.button, p.sb, p.bb) == (3, 4, 6) and 6 in p.dealt


def test_a_record_keeps_the_tables_size_not_the_players_dealt() -> None:
    # The exports say "6-max" from it (a tracker groups hands by table size).
    table = seated(1, 2, 4, seats=6)
    play_hand(table)
    assert table.records[-1].seat_count == 6
    assert table.records[-1].model_dump()["seat_count"] == 6


def test_every_operation_has_its_handler() -> None:
    """The table applies every member of `Operation` (its handlers are made once, by type)."""
    members = set(get_args(get_args(Operation)[0]))
    assert len(members) == 22
    assert set(table_play._HANDLERS) == members
    for kind, handler in table_play._HANDLERS.items():
        assert handler.__name__ == "_op_" + kind.model_fields["op"].default
