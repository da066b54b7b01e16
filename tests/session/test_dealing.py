"""Dealing from RFID: hole cards, board, burn, muck; irregularities I1-I5 and S7."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.session import SessionConfig
from tests.session.helpers import (
    HOLE,
    board,
    card,
    command,
    deal,
    declare,
    key,
    shuffle,
    start,
    three_players,
)


def preflop_called() -> list[dict[str, object]]:
    return [*deal(HOLE), declare(1, "call"), declare(2, "call"), key("confirm")]


def test_hole_cards_per_seat_go_to_the_engine_in_holdem() -> None:
    run = start(three_players(), shuffle(), deal(HOLE))
    hand = run.session.table.hand
    assert hand is not None and all(len(h) == 2 for h in hand.hole)
    assert run.rules() == ["PVB 14(3)"]  # a clean deal raises nothing


def test_omaha_deals_four_cards_per_seat(tmp_path: Path) -> None:
    profile = tmp_path / "po.toml"
    profile.write_text('name = "po"\ngame = "PO"\n')
    hole = {2: "AsAhKsKh", 3: "2c3c4c5c", 1: "9d9h8d8h"}
    run = start(three_players(), shuffle(), deal(hole), config=SessionConfig(profile=str(profile)))
    state = run.session.state()
    assert [state.seats[s].cards for s in (1, 2, 3)] == [4, 4, 4]
    assert run.session.state().stage == "betting" and run.rules() == ["PVB 14(3)"]


def test_i1_pvb_30_2_e_card_to_a_seat_not_dealt_in() -> None:
    run = start(three_players(), shuffle(), card("seat:2", "As"), card("seat:3", "Kd"),
                card("seat:1", "7c"), card("seat:6", "Qh"))
    assert "PVB 30(2)(e)" in run.rules()
    assert run.session.leds().irregularity


def test_i1_pvb_30_2_f_g_entitled_seat_without_all_its_cards_at_the_first_action() -> None:
    run = start(three_players(), shuffle(), card("seat:2", "As"), card("seat:3", "Kd"),
                card("seat:1", "7c"), card("seat:2", "Ah"), card("seat:3", "Kh"))
    assert "PVB 30(2)(g)" not in run.rules()  # the deal may still be going on
    run.feed(declare(1, "fold"))
    assert "PVB 30(2)(g)" in run.rules()
    run2 = start(three_players(), shuffle(), deal({2: "AsAh", 3: "KdKh"}), declare(1, "fold"))
    assert "PVB 30(2)(f)" in run2.rules()


def test_i1_pvb_30_2_d_h_first_card_to_the_wrong_seat_and_out_of_order() -> None:
    run = start(three_players(), shuffle(), deal(HOLE, order=[3, 2, 1]))
    assert "PVB 30(2)(d)" in run.rules()
    run2 = start(three_players(), shuffle(), deal(HOLE, order=[2, 1, 3]))
    assert "PVB 30(2)(h)" in run2.rules() and "PVB 30(2)(d)" not in run2.rules()


def test_i5_pvb_30_6_three_cards_to_one_seat() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), card("seat:1", "Qc"))
    assert "PVB 30(6)" in run.rules()


def test_i1_i2_pvb_30_5_31_misdeal_before_substantial_action_only() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "fold"))
    step = run.feed(command("misdeal", reason="seat 1's first card exposed"))
    assert step.accepted
    record = run.session.pending_record
    assert record is not None and record.status == "misdeal"
    assert record.finishing_stacks == record.starting_stacks
    assert record.irregularities[-1].by == "floor:anna"
    run.feed(shuffle())
    assert run.session.state().button == 1  # the same button deals again
    # I2: a call and a fold are substantial action (PVB 31(1)(a)).
    run2 = start(three_players(), shuffle(), deal(HOLE), declare(1, "call"), declare(2, "fold"))
    step = run2.feed(command("misdeal"))
    assert not step.accepted and step.events[0].rule == "PVB 30(5), 31"
    # Three actions of any kind are substantial too (PVB 31(1)(b)); two checks are not.
    run3 = start(three_players(), shuffle(), preflop_called(), board("QsJd4h"),
                 key("confirm"))
    assert run3.feed(command("misdeal")).accepted is False


def test_i4_pvb_33_duplicate_card_voids_the_hand_and_returns_every_bet() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "raise", 300),
                declare(2, "fold"), declare(3, "fold"), shuffle())
    first = run.sealed[0]
    assert first.status == "complete"
    stacks_after_first = run.session.table.stacks()
    run.feed(deal({3: "QhQd", 1: "9c9d", 2: "5s6s"}), declare(2, "raise", 400))
    run.feed(card("board", "9c"))  # seat 1's nine again: two of the same card
    record = run.session.pending_record
    assert record is not None and record.status == "void"
    assert record.irregularities[0].rule == "PVB 33"
    assert run.session.table.stacks() == stacks_after_first  # bets back, earlier hand stands
    run.feed(shuffle())
    assert run.sealed[0] == first


def test_i4_apsa_2_1_14_foreign_card_voids_the_hand() -> None:
    run = start(three_players(), shuffle(), deal(HOLE))
    run.feed({"type": "foreign", "zone": "seat:2", "uid": "DEADBEEF01"})
    record = run.session.pending_record
    assert record is not None and record.status == "void"
    # A chip no set knows is an alert, never a void.
    run.feed(shuffle(), {"type": "foreign", "zone": "seat:2", "uid": "DEADBEEF02",
                         "reads": "chips"})
    assert run.session.state().stage == "betting"


def test_i5_pvb_34_four_card_flop_the_extra_card_is_the_next_burn() -> None:
    run = start(three_players(), shuffle(), preflop_called(), board("QsJd4h"), card("board", "5c"))
    assert "PVB 34" in run.rules()
    state = run.session.state()
    assert state.board == "QsJd4h" and state.stage == "betting"


def test_i5_pvb_35_5_board_card_before_the_betting_finished_goes_back() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "call"), card("board", "Qs"))
    assert "PVB 35(5)" in run.rules() and run.session.state().board == ""
    # The card was shuffled back into the stub: it may come again, no fouled deck.
    run.feed(declare(2, "call"), key("confirm"), board("QsJd4h"))
    assert run.session.state().board == "QsJd4h"


def test_pvb_35_2_burn_cards_checked_when_the_table_has_a_burn_antenna() -> None:
    config = SessionConfig(check_burns=True)
    run = start(three_players(), shuffle(), preflop_called(), board("QsJd4h", burn="3c"),
                key("confirm"), key("confirm"), key("confirm"), board("5s"), config=config)
    assert run.rules().count("PVB 35(2)") == 1  # the turn came without a burn card


def test_pvb_35_2_the_dealer_is_told_to_burn_first_until_the_burn_card_is_read() -> None:
    """Where the table reads burn cards, what it waits for names the burn until it has it (the
    dealer's screen, and what the simulated dealer waits for before the street's cards)."""
    burns = SessionConfig(check_burns=True)
    run = start(three_players(), shuffle(), preflop_called(), config=burns)
    assert run.session.state().waiting_for == "burn a card, then deal the flop"
    step = run.feed(card("burn", "3c"))
    assert step.changed and run.session.state().waiting_for == "deal the flop"
    run.feed(card("board", "Qs"))  # the flop's first card: the burn is behind it
    assert run.session.state().waiting_for == "deal the flop"
    run.feed(card("board", "Jd"), card("board", "4h"), key("confirm"), key("confirm"),
             key("confirm"))
    assert run.session.state().waiting_for == "burn a card, then deal the turn"
    # An extra flop card becomes the next burn card (PVB 34): nothing more to burn for the turn.
    extra = start(three_players(), shuffle(), preflop_called(), board("QsJd4h", burn="3c"),
                  card("board", "5c"), config=burns)
    assert "PVB 34" in extra.rules()
    extra.feed(key("confirm"), key("confirm"), key("confirm"))
    assert extra.session.state().waiting_for == "deal the turn"
    # A table without a burn antenna asks for no burn.
    assert start(three_players(), shuffle(),
                 preflop_called()).session.state().waiting_for == "deal the flop"


def test_s7_pvb_22_no_rabbit_hunting() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "raise", 300),
                declare(2, "fold"), declare(3, "fold"))
    step = run.feed(card("board", "Qs"))
    assert step.events[0].rule == "PVB 22" and "Qs" not in step.events[0].text
    run.feed(shuffle())
    assert run.sealed[0].board == ""


def test_fold_when_the_cards_reach_the_muck_antenna() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), card("muck", "7c"))
    state = run.session.state()
    assert state.seats[1].folded and state.actor == 2
    run.feed(card("muck", "2d"))  # his second card changes nothing
    assert run.session.state() == state


def test_r7_pvb_37_5_fold_out_of_turn_is_binding_and_applied_in_turn() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), card("muck", "KdKh"[:2]))
    assert run.session.state().actor == 1 and not run.session.state().seats[3].folded
    run.feed(declare(1, "call"), declare(2, "call"))
    state = run.session.state()
    assert state.seats[3].folded and state.stage == "dealing"
    assert "PVB 37(5)" in run.rules()


def test_confirm_key_checks_only_when_a_check_is_possible() -> None:
    run = start(three_players(), shuffle(), deal(HOLE))
    step = run.feed(key("confirm"))
    assert not step.accepted and "100 to call" in step.events[0].text
    run.feed(declare(1, "call"), declare(2, "call"))
    assert run.feed(key("confirm")).accepted
    assert run.session.state().stage == "dealing"


def test_card_to_a_new_seat_between_hands_changes_nothing() -> None:
    run = start(three_players())
    before = run.session.state()
    run.feed(card("seat:1", "As"), card("muck", "Kd"))
    assert run.session.state() == before


@pytest.mark.parametrize("drawn", ["Qc", "7c"])
def test_i5_pvb_30_6_three_cards_noticed_late_the_floor_draws_one_as_the_next_burn(
        drawn: str) -> None:
    """After substantial action a seat found holding three cards is no misdeal (PVB
    30(5)); the floor draws one of them, which becomes the next burn card (PVB 30(6)), and the
    hand plays on. The table used to take that card on the burn antenna for a card seen twice
    and void the hand as a fouled deck."""
    run = start(three_players(), shuffle(), deal(HOLE), card("seat:1", "Qc"),
                declare(1, "call"), declare(2, "call"))  # substantial action (PVB 31)
    step = run.feed(command("draw", seat=1))
    assert step.accepted and step.events[0].rule == "PVB 30(6)"
    step = run.feed(card("burn", drawn))
    assert step.accepted and "fouled" not in " ".join(e.text for e in step.events)
    keeps = [c for c in ("7c", "2d", "Qc") if c != drawn]
    hand = run.session.table.hand
    assert hand is not None and run.session.state().stage == "betting"
    run.feed(key("confirm"), board("QsJd4h"), key("confirm"), key("confirm"), key("confirm"),
             board("5s"), key("confirm"), key("confirm"), key("confirm"), board("9h"),
             key("confirm"), key("confirm"), key("confirm"),
             key("confirm"), key("confirm"), key("confirm"))
    record = run.session.pending_record
    assert record is not None and record.status == "complete"
    assert record.hole_cards[1] == "".join(keeps)
    assert any(i.rule == "PVB 30(6)" and drawn not in i.text for i in record.irregularities)
    assert drawn not in record.board  # the drawn card is out of the game


@pytest.mark.parametrize("drawn", ["Qc", "2d"])
def test_i5_pvb_30_6_the_drawn_card_on_the_burn_antenna_is_the_draw_without_a_command(
        drawn: str) -> None:
    """PVB 30(6), as the antennas see it: the floor draws one of the three cards of seat 1 after
    substantial action and the dealer puts it on the burn antenna. That is the draw, the next
    burn card: never a card seen twice, never a fouled deck; the hand plays on to its end."""
    run = start(three_players(), shuffle(), deal(HOLE), card("seat:1", "Qc"),
                declare(1, "call"), declare(2, "call"))  # substantial action (PVB 31)
    step = run.feed(card("burn", drawn))  # no `draw` command: the antennas show it
    assert step.accepted and "fouled" not in " ".join(e.text for e in step.events)
    assert any(e.rule == "PVB 30(6)" and drawn not in e.text for e in step.events)
    run.feed(key("confirm"), board("QsJd4h"), key("confirm"), key("confirm"), key("confirm"),
             board("5s"), key("confirm"), key("confirm"), key("confirm"), board("9h"),
             key("confirm"), key("confirm"), key("confirm"),
             key("confirm"), key("confirm"), key("confirm"))
    record = run.session.pending_record
    assert record is not None and record.status == "complete"
    assert record.hole_cards[1] == "".join(c for c in ("7c", "2d", "Qc") if c != drawn)
    assert not [e for e in run.events if "fouled" in e.text]
    # A floor command after it has nothing left to draw.
    assert not run.feed(command("draw", seat=1)).accepted


def test_pvb_30_6_a_card_of_a_seat_with_its_own_cards_on_the_burn_is_still_a_foul() -> None:
    """Only a seat holding one card too many gives one up to the burn: any other card seen at a
    seat and then on the burn antenna is a card in two places (RULES I3)."""
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "call"), declare(2, "call"))
    step = run.feed(card("burn", "7c"))
    assert any("fouled" in e.text or "came up again" in e.text for e in step.events)


def test_i5_pvb_30_6_before_substantial_action_three_cards_are_a_misdeal() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), card("seat:1", "Qc"))
    step = run.feed(command("draw", seat=1))
    assert not step.accepted and "misdeal" in step.events[0].text
    assert not run.feed(command("draw", seat=2)).accepted  # seat 2 holds no extra card
