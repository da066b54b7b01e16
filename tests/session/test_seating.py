"""What a table does for the tournament between hands: a player leaves for another table only
between hands and only the one named (PVB 09, 10), a newcomer's chips are counted at his seat
(DFO §2(2)(3)), and the seating hold stops the table until its newcomers sit (PVB 09(3))."""

from __future__ import annotations

from tests.session.helpers import (
    HOLE,
    chips,
    command,
    deal,
    declare,
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
