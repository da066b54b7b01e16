"""What a table does for the tournament between hands: a player leaves for another table only
between hands and only the one named (PVB 09, 10), a newcomer's chips are counted at his seat
(DFO §2(2)(3)), and the seating hold stops the table until its newcomers sit (PVB 09(3))."""

from __future__ import annotations

from controller.session import SessionConfig
from tests.session.helpers import (
    HOLE,
    board,
    chips,
    command,
    deal,
    declare,
    level,
    seat,
    shuffle,
    start,
    three_players,
)


def test_pvb_09_a_player_leaves_for_another_table_between_hands_only() -> None:
    run = start(three_players(), shuffle())
    step = run.feed(command("unseat", by="tournament", seat=2, player="ben",
                            reason="table 2, seat 4 (PVB 09(1))"))
    assert not step.accepted and "this hand is in play" in step.events[0].text
    assert step.events[0].rule == "PVB 09"
    run.feed(deal(HOLE), declare(1, "fold"), declare(2, "fold"))
    assert run.session.state().stage == "over"
    wrong = run.feed(command("unseat", by="tournament", seat=2, player="cem"))
    assert not wrong.accepted and "not cem's (ben sits there)" in wrong.events[0].text
    step = run.feed(command("unseat", by="tournament", seat=2, player="ben",
                            reason="table 2, seat 4 (PVB 09(1))"))
    assert step.accepted
    (said,) = [e for e in step.events if e.kind == "seat"]
    assert said.text == "seat 2: ben leaves for table 2, seat 4 (PVB 09(1)) with 9,950"
    assert said.data["stack"] == 9_950 and said.data["player"] == "ben"
    assert 2 not in run.session.state().seats


def test_dfo_2_3_a_newcomers_chips_are_counted_at_his_seat_between_hands() -> None:
    run = start(three_players())
    assert {s.counted for s in run.session.state().seats.values()} == {False}
    run.feed(chips("seat:1", 5_000))  # half the stack laid down: nothing yet
    assert run.session.state().seats[1].counted is False
    step = run.feed(chips("seat:1", 5_000, 5_000))
    assert run.session.state().seats[1].counted is True
    assert [e.text for e in step.events] == ["seat 1: ana's 10,000 chips are counted at this seat"]
    run.feed(shuffle())  # in a hand the zone is a bet again, never a count
    assert run.session.state().seats[2].counted is False
    run.feed(seat(4, "dan", 7_000))  # arriving during the hand: he sits after it, uncounted
    run.feed(deal(HOLE), declare(1, "fold"), declare(2, "fold"))
    assert run.session.state().seats[4].counted is False
    run.feed(chips("seat:4", 5_000, 1_000, 1_000))
    assert run.session.state().seats[4].counted is True


def test_pvb_09_3_the_seating_hold_stops_the_table_until_the_tournament_lifts_it() -> None:
    run = start(three_players(), command("hold", by="tournament", kind="seating",
                                         reason="seating: 2 player(s) on their way"))
    refused = run.feed(shuffle())
    assert not refused.accepted and refused.events[0].rule == "PVB 09(3)"
    assert run.session.state().holds == {"seating": "seating: 2 player(s) on their way"}
    run.feed(command("release", by="tournament", kind="seating"))
    assert run.feed(shuffle()).accepted


def test_b2_b4_pvb_10_1_newcomers_from_a_broken_table_and_a_bust_at_the_button() -> None:
    """The outside check of table 1 at the table itself: Cem (1), Dan (4) and Uta (5) play at
    800/1,600 with a big-blind ante; the tournament seats Pia, Xena and Ole (2, 3, 6) from a
    broken table while a hand is in play. The next hand Ole posts the big blind at once and
    the button stays on Cem (PVB 27(1)); Pia and Xena sit between the button and the small
    blind: they sit out this hand, and the table says so in its events and its state (PVB
    10(1)). Cem busts; the hand after, the button moves on to Uta, Pia posts the big blind
    with its ante and is dealt in with Xena (APSA 3.1.2.5). The check found Pia named big
    blind but neither dealt in nor charged, and both of them sitting out for hands on end
    without a word to the floor."""
    run = start(seat(1, "Cem", 5_000), seat(4, "Dan", 20_000), seat(5, "Uta", 20_000),
                level(5, 800, 1_600, bb_ante=1_600), shuffle(), config=SessionConfig(seats=6))
    run.feed(deal({4: "2c3c", 5: "4c5c", 1: "6c7c"}),
             seat(2, "Pia", 9_000), seat(3, "Xena", 9_000), seat(6, "Ole", 9_000),
             declare(1, "fold"), declare(4, "fold"))
    assert run.session.state().stage == "over" and set(run.session.state().seats) == {
        1, 2, 3, 4, 5, 6}
    step = run.feed(shuffle())
    (started,) = [e for e in step.events if e.kind == "hand_started"]
    assert started.data == {"button": 1, "sb": 5, "bb": 6, "dealt": [4, 5, 6, 1], "level": 5}
    out = [e for e in step.events if e.kind == "seat"]
    assert [(e.seat, e.rule, e.data["sits_out"]) for e in out] == [
        (2, "PVB 10(1)", True), (3, "PVB 10(1)", True)]
    assert out[0].text.startswith("seat 2: Pia sits out this hand (PVB 10(1))")
    state = run.session.state()
    assert {s: v.sits_out for s, v in state.seats.items()} == {
        1: None, 2: "PVB 10(1)", 3: "PVB 10(1)", 4: None, 5: None, 6: None}
    assert state.seats[6].bet == 1_600 and state.seats[5].bet == 800
    assert "sits_out" not in state.seats[4].model_dump()  # said only where it applies
    run.feed(deal({4: "2d3d", 5: "4d5d", 6: "AsAd", 1: "7h2h"}, [4, 5, 6, 1]),
             declare(1, "allin"), declare(4, "fold"), declare(5, "fold"), declare(6, "call"),
             board("Ks8d4h3c9s"))
    assert [e.data["player"] for e in run.events if e.kind == "elimination"] == ["Cem"]
    assert run.session.state().seats[2].sits_out is None  # the hand is over
    step = run.feed(shuffle())
    (started,) = [e for e in step.events if e.kind == "hand_started"]
    assert started.data == {"button": 5, "sb": 6, "bb": 2, "dealt": [6, 2, 3, 4, 5],
                            "level": 5}
    assert not [e for e in step.events if e.kind == "seat"]
    state = run.session.state()
    assert state.seats[2].in_hand and state.seats[2].bet == 1_600
    assert state.seats[2].stack == 9_000 - 1_600 - 1_600  # the big blind and its ante
    assert state.seats[3].in_hand and state.seats[6].bet == 800
    run.feed(deal({6: "2s3s", 2: "4s5s", 3: "6s7s", 4: "8s9s", 5: "TsJs"}, [6, 2, 3, 4, 5]),
             declare(3, "fold"), declare(4, "fold"), declare(5, "fold"), declare(6, "fold"))
    run.feed(shuffle())
    assert (run.session.state().button, run.session.state().sb,
            run.session.state().bb) == (6, 2, 3)
    assert [(r.hand, r.button, r.sb, r.bb) for r in run.sealed] == [
        (1, 1, 4, 5), (2, 1, 5, 6), (3, 5, 6, 2)]


def test_the_same_seat_asked_again_for_the_same_player_is_no_refusal() -> None:
    """The tournament asks for a seat until the table's state shows the player there: a
    request that crosses the state on its way (or comes while the hand it is queued behind
    lasts) changes nothing and is not refused, so the table logs no error for it. Another
    player on that seat is still refused."""
    run = start(three_players(), shuffle())
    queued = run.feed(seat(5, "dan", 7_000))
    assert queued.accepted and queued.events[0].text == "seat 5: dan sits down after this hand"
    before = run.session.state()
    again = run.feed(seat(5, "dan", 7_000))
    assert again.accepted and run.session.state() == before
    assert [(e.seat, e.player) for e in run.session.queued_seats] == [(5, "dan")]  # once
    assert [e.text for e in again.events] == [
        "seat 5: dan sits down after this hand, as asked already; nothing changes"]
    other = run.feed(seat(5, "eve", 7_000))
    assert not other.accepted and other.events[0].text == "seat 5 is taken"
    # A player seated already, asked for again during a hand and between hands
    same = run.feed(seat(2, "ben", 10_000))
    assert same.accepted and same.events[0].text == "seat 2: ben sits there already; nothing " \
        "changes"
    run.feed(deal(HOLE), declare(1, "fold"), declare(2, "fold"))
    assert run.session.state().stage == "over" and run.session.state().seats[5].player == "dan"
    before = run.session.state()
    after = run.feed(seat(5, "dan", 7_000))
    assert after.accepted and run.session.state() == before
    assert after.events[0].text == "seat 5: dan sits there already; nothing changes"
    assert run.session.state().seats[5].stack == 7_000
    taken = run.feed(seat(5, "eve", 7_000))
    assert not taken.accepted and "taken by dan" in taken.events[0].text
