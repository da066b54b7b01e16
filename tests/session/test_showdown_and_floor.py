"""Showdown (S3-S5), the payout, undo and the floor's commands, each journaled with its author."""

from __future__ import annotations

from tests.session.helpers import (
    HOLE,
    board,
    card,
    command,
    deal,
    declare,
    key,
    seat,
    shuffle,
    start,
    three_players,
)


def to_river(*, bet_on_river: bool = False) -> list[dict[str, object]]:
    """Seats 2 and 3 see a checked-down board QsJd4h 5s 9c; seat 1 folds preflop."""
    river = [declare(2, "bet", 500), declare(3, "call")] if bet_on_river else [
        key("confirm"), key("confirm")]
    return [*deal(HOLE), declare(1, "fold"), declare(2, "call"), key("confirm"),
            *board("QsJd4h"), key("confirm"), key("confirm"),
            *board("5s"), key("confirm"), key("confirm"),
            *board("9c"), *river]


def test_s3_pvb_55_first_left_of_the_button_shows_first_without_a_river_bet() -> None:
    run = start(three_players(), shuffle(), to_river())
    state = run.session.state()
    assert state.stage == "showdown" and state.showdown_order == [2, 3]
    assert "seat 2 shows" in state.waiting_for
    assert "PVB 55" in run.rules()


def test_s3_pvb_55_last_river_bettor_shows_first() -> None:
    run = start(three_players(), shuffle(), to_river(bet_on_river=True))
    assert run.session.state().showdown_order == [2, 3]
    run2 = start(three_players(), shuffle(), [*deal(HOLE), declare(1, "fold"),
                 declare(2, "call"), key("confirm"), *board("QsJd4h"), key("confirm"),
                 key("confirm"), *board("5s"), key("confirm"), key("confirm"), *board("9c"),
                 key("confirm"), declare(3, "bet", 200), declare(2, "call")])
    assert run2.session.state().showdown_order == [3, 2]


def test_s5_showdown_cards_speak_and_the_payout_is_announced() -> None:
    run = start(three_players(), shuffle(), to_river(), key("confirm"), key("confirm"))
    payout = [e for e in run.events if e.kind == "payout"]
    assert len(payout) == 1 and payout[0].data["shares"] == {2: 200}
    assert payout[0].data["winning_hand"] == "one pair"
    shown = [e for e in run.events if e.kind == "show"]
    assert [e.data["cards"] for e in shown] == ["AsAh", "KdKh"]  # tabled: now public
    record = run.session.pending_record
    assert record is not None and record.pots[0].winners == [2]
    assert record.public().hole_cards == {2: "AsAh", 3: "KdKh"}  # seat 1 never tabled


def test_pvb_56_hand_mucked_at_showdown_forfeits_its_claim() -> None:
    run = start(three_players(), shuffle(), to_river(), card("muck", "As"))
    record = run.session.pending_record
    assert record is not None and record.pots[0].winners == [3]  # aces mucked: kings win
    assert record.public().hole_cards == {}  # nobody tabled


def test_s4_pvb_54_all_in_hands_turned_face_up_at_once() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "fold"),
                declare(2, "allin"), declare(3, "call"))
    face_up = [e for e in run.events if e.kind == "showdown"]
    assert face_up and face_up[0].rule == "PVB 54"
    state = run.session.state()
    assert state.seats[2].shown == "AsAh" and state.seats[3].shown == "KdKh"
    run.feed(board("QsJd4h"), board("5s"), board("Kc"))  # the river gives seat 3 a set
    record = run.session.pending_record
    assert record is not None and record.finishing_stacks[3] == 20_000
    assert 2 not in run.session.table.seats  # eliminated


def test_undo_takes_back_the_last_declared_action() -> None:
    run = start(three_players(), shuffle(), deal(HOLE))
    before = run.session.state()
    run.feed(declare(1, "raise", 300))
    assert run.feed(key("undo")).accepted
    assert run.session.state() == before
    run.feed(declare(1, "call"), declare(2, "call"), key("confirm"), board("QsJd4h"))
    step = run.feed(key("undo"))  # the flop came after the check: no undo
    assert not step.accepted and "call the floor" in step.events[0].text


def test_floor_corrects_an_action_until_the_next_shuffle() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "raise", 300),
                declare(2, "call"), declare(3, "fold"))
    step = run.feed(command("correct", seat=2, action="fold"))
    assert step.accepted
    record = run.session.pending_record
    assert record is not None and record.finishing_stacks == {2: 9_950, 3: 9_900, 1: 10_150}
    assert record.irregularities[-1].by == "floor:anna"
    refused = run.feed(command("correct", seat=3, action="raise", amount=50))
    assert not refused.accepted  # a raise to 50 is illegal: nothing changes
    assert run.session.pending_record == record


def test_floor_awards_a_pot_when_cards_were_not_read() -> None:
    hole = {2: "AsAh", 1: "7c2d"}  # seat 3's cards were never read
    run = start(three_players(), shuffle(), deal(hole), declare(1, "fold"), declare(2, "call"),
                key("confirm"), board("QsJd4h"), key("confirm"), key("confirm"), board("5s"),
                key("confirm"), key("confirm"), board("9c"), key("confirm"), key("confirm"),
                key("confirm"))
    assert not run.feed(key("confirm")).accepted  # seat 3's cards unknown: floor decides
    run.feed(command("award", pot=1, seats=[3], by="floor:max"))
    record = run.session.pending_record
    assert record is not None and record.pots[0].winners == [3]
    assert [i.by for i in record.irregularities if i.rule == "PVB 63"] == ["floor:max"]


def test_floor_award_after_the_payout_replays_the_hand_h3() -> None:
    run = start(three_players(), shuffle(), to_river(), key("confirm"), key("confirm"))
    run.feed(command("award", pot=1, seats=[2, 3], by="td:eva"))
    record = run.session.pending_record
    assert record is not None and record.pots[0].winners == [2, 3]
    assert record.finishing_stacks[2] == record.finishing_stacks[3] == 10_000
    run.feed(shuffle())
    assert run.sealed[0] == record
    assert not run.feed(command("award", pot=1, seats=[3])).accepted  # sealed (H3)


def test_floor_kills_a_hand() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "call"))
    run.feed(command("kill", seat=3, reason="looked at another player's cards"))
    state = run.session.state()
    assert state.seats[3].folded and state.actor == 2
    record_rule = run.session.track.irregularities[-1]  # type: ignore[union-attr]
    assert record_rule.rule == "PVB 39" and record_rule.by == "floor:anna"


def test_floor_void_returns_every_bet() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "raise", 300),
                declare(2, "call"), declare(3, "call"))
    run.feed(command("void", reason="the wrong deck"))
    record = run.session.pending_record
    assert record is not None and record.status == "void"
    assert run.session.table.stacks() == {1: 10_000, 2: 10_000, 3: 10_000}


def test_b5_pvb_29_wrong_button_before_and_after_substantial_action() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "fold"))
    assert run.feed(command("move_button", seat=3)).accepted
    assert run.session.pending_record is not None
    assert run.session.pending_record.status == "void"
    run.feed(shuffle())
    assert run.session.state().button == 3
    run2 = start(three_players(), shuffle(), deal(HOLE), declare(1, "call"), declare(2, "call"))
    step = run2.feed(command("move_button", seat=3))
    assert not step.accepted and step.events[0].rule == "PVB 29(1)"


def test_multi_hand_dead_button_heads_up_and_new_player() -> None:
    """B2: seat 2 (small blind next) is eliminated: dead small blind; B3 heads-up later; B4 a
    new player waits for his position."""
    stacks = [seat(1, "ana", 10_000), seat(2, "ben", 150), seat(3, "cem", 10_000),
              seat(4, "dan", 10_000)]
    run = start(stacks, shuffle())  # button 1, sb 2, bb 3
    assert run.session.state().button == 1
    run.feed(deal({2: "2c3d", 3: "AsAh", 4: "KdKh", 1: "7c7d"}), declare(4, "fold"),
             declare(1, "fold"), declare(2, "allin"), declare(3, "call"),
             board("QsJd4h"), board("5s"), board("9c"))
    assert 2 not in run.session.table.seats
    run.feed(shuffle())  # B2: the big blind moves to seat 4; seat 3 posts the small blind
    state = run.session.state()
    # The button stays on seat 1 a second hand: never onto the empty seat (PVB 27(1))
    assert (state.button, state.sb, state.bb) == (1, 3, 4)
    run.feed(declare(1, "fold"), declare(3, "fold"), seat(5, "eve", 5_000))
    run.feed(seat(4, None), shuffle())  # B4: eve comes in on the big blind; dead small blind
    record = run.sealed[-1]  # hand 2's record and its PHH say the same: the button on seat 1
    assert (record.hand, record.button) == (2, 1) and list(record.starting_stacks)[-1] == 1
    state = run.session.state()
    # A new player on the big blind's position: the dead button is obligatory, it stays on
    # seat 1 (PVB 27(1)); the small blind (seat 4, gone) is dead.
    assert (state.button, state.sb, state.bb) == (1, None, 5)
    run.feed(declare(1, "fold"), declare(3, "fold"), seat(5, None), shuffle())
    state = run.session.state()
    assert (state.button, state.sb, state.bb) == (3, 3, 1)  # B3: heads-up, button posts sb


def test_pvb_53_shuffle_at_showdown_settles_the_hands_as_read() -> None:
    run = start(three_players(), shuffle(), to_river())
    assert run.session.state().stage == "showdown"
    step = run.feed(shuffle())
    assert step.accepted
    (record,) = step.sealed
    assert record.pots[0].winners == [2] and record.tabled() == {2, 3}
    assert run.session.state().hand == 2
