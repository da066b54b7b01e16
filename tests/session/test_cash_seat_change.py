"""A seat change at a cash table (CG "Blinds": "Entfernt sich ein Spielteilnehmer durch einen
Platzwechsel um zwei oder mehr (mit aktiven Spielteilnehmern besetzten) Plätze im Uhrzeigersinn
vom Button weg, muss er das Big Blind bringen"), through the session from the table's events:
the seats, the chips read on the zones and the dealer's declarations.

He posts a live big blind in his first hand at the new seat (the CG says "muss": no waiting
for the big blind instead); the action starts where it would, and he may check when no one
raised. A player the floor moved brings none (CG "Blinds"), nor one who moved by one seat."""

from __future__ import annotations

from typing import Any

from controller.engine.table_play import Level
from controller.session import SessionConfig
from controller.session.outputs import PublicEvent
from tests.session.helpers import Run, card, chips, deal, declare, seat, shuffle, start

NAMES = ["ana", "ben", "cem", "dora", "emil", "fay", "gus"]
HOLES = {1: "AsAh", 3: "QcQs", 4: "JdJh", 5: "Tc9c", 6: "KdKh", 7: "8s8d"}


def first_hand() -> Run:
    """Five players, button seat 1 (the high-card draw), blinds 50/100 on seats 2 and 3; the
    first hand folds to the big blind and the dealer clears the zones."""
    run = start(*[seat(k + 1, NAMES[k], 5_000) for k in range(5)],
                config=SessionConfig(profile="cg-cash", level=Level(sb=50, bb=100)))
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(["As", "2c", "3c", "4c", "5c"])])
    run.feed(shuffle(), chips("seat:2", 50), chips("seat:3", 100))
    run.feed(deal({2: "7c2d", 3: "QcQs", 4: "JdJh", 5: "Tc9c", 1: "AsAh"}, [2, 3, 4, 5, 1]))
    for s in (4, 5, 1, 2):
        run.feed(declare(s, "fold"))
    assert run.session.state().stage == "over"
    run.feed(chips("seat:2"), chips("seat:3"), chips("pot"))
    return run


def moves(run: Run, old: int, new: int, stack: int, **extra: Any) -> list[PublicEvent]:
    run.feed(seat(old, None))
    return run.feed(seat(new, NAMES[old - 1], stack) | extra).events


def blinds_said(events: list[PublicEvent]) -> list[str]:
    return [e.text for e in events if e.rule == "CG Blinds"]


def alerts(run: Run) -> list[str]:
    return [e.text for e in run.events if e.kind == "alert"]


def test_cg_blinds_a_seat_change_two_seats_away_posts_the_big_blind_live() -> None:
    run = first_hand()
    # ben (the small blind, seat 2) moves to seat 6, past seats 3, 4 and 5.
    said = moves(run, 2, 6, 4_950)
    assert blinds_said(said) == [
        "seat 6: ben changes seats from seat 2, 3 occupied seats clockwise away from the "
        "button: he posts the big blind of 100 in his first hand at this seat (CG Blinds: a "
        "seat change)"]
    step = run.feed(shuffle())
    state = run.session.state()
    assert (state.sb, state.bb) == (3, 4)
    assert "seat 6 posts the big blind (CG Blinds: a seat change)" in blinds_said(step.events)
    # Read from the chips like the blinds: a wrong amount is the dealer's alert, the right one
    # is the post.
    run.feed(chips("seat:3", 50), chips("seat:4", 100), chips("seat:6", 50))
    assert alerts(run) == ["seat 6 put 50 in the betting zone but owes 100 in blinds and antes"]
    run.feed(chips("seat:6", 100))
    dealt = list(run.session.table.positions.dealt)  # type: ignore[union-attr]
    assert 6 in dealt
    run.feed(deal({s: HOLES[s] for s in dealt}, dealt))
    # The action starts left of the big blind, as without the post (not left of seat 6).
    assert run.session.state().actor == 5
    run.feed(chips("seat:5", 100))  # a call
    state = run.session.state()
    assert state.actor == 6 and state.to_call == 0  # nobody raised: he may check
    run.feed(declare(6, "check"), declare(1, "fold"), chips("seat:3", 100), declare(4, "check"))
    state = run.session.state()
    assert state.stage == "dealing", state
    assert len(alerts(run)) == 1  # the wrong amount only
    hand = run.session.table.hand
    assert hand is not None and hand.pot_total() == 400
    run.feed(*[chips(f"seat:{s}") for s in (3, 4, 5, 6)], chips("pot", *[100] * 4),
             card("burn", "2h"), card("board", "3h"), card("board", "4s"), card("board", "7d"))
    for s in (3, 4, 5):
        run.feed(declare(s, "check"))
    run.feed(declare(6, "bet", 200), declare(3, "fold"), declare(4, "fold"), declare(5, "fold"))
    record = run.records()[-1]
    assert record.posts == {6: 100} and (record.sb, record.bb) == (3, 4)
    assert [(a.seat, a.amount) for a in record.actions if a.action == "blind"] == [
        (3, 50), (4, 100), (6, 100)]
    # Posted once: the next hand asks nothing more of him.
    run.feed(*[chips(f"seat:{s}") for s in (6,)], chips("pot"), shuffle())
    assert not blinds_said(run.steps[-1].events)
    assert run.session.table.hand is not None and run.session.table.hand.setup.posted == ()


def test_cg_blinds_a_raise_after_the_post_he_calls_the_rest() -> None:
    run = first_hand()
    moves(run, 2, 6, 4_950)
    run.feed(shuffle(), chips("seat:3", 50), chips("seat:4", 100), chips("seat:6", 100))
    dealt = list(run.session.table.positions.dealt)  # type: ignore[union-attr]
    run.feed(deal({s: HOLES[s] for s in dealt}, dealt))
    run.feed(declare(5, "raise", 300))
    state = run.session.state()
    assert state.actor == 6 and state.to_call == 200  # the post is his: 200 more
    run.feed(declare(6, "call"))
    assert run.session.table.hand is not None
    assert run.session.table.hand.contributions[dealt.index(6)] == 300


def test_cg_blinds_a_player_moved_by_the_floor_posts_nothing() -> None:
    run = first_hand()
    said = moves(run, 2, 6, 4_950, arrival="moved")
    assert blinds_said(said) == [
        "seat 6: ben comes moved by the floor with his whole stake and brings no blind (CG "
        "Blinds)"]
    step = run.feed(shuffle())
    assert not [e for e in step.events if e.rule == "CG Blinds"]
    hand = run.session.table.hand
    assert hand is not None and hand.setup.posted == ()
    assert sum(hand.bets) == 150  # the small and the big blind only


def test_cg_blinds_a_seat_change_by_one_seat_posts_nothing() -> None:
    run = first_hand()
    # dora (seat 4) moves to seat 6: past seat 5 alone, one occupied seat.
    said = moves(run, 4, 6, 5_000)
    assert blinds_said(said) == [
        "seat 6: dora changes seats from seat 4 with his stake of 5,000: no blind to bring "
        "(not two occupied seats away from the button, CG Blinds)"]
    run.feed(shuffle())
    hand = run.session.table.hand
    assert hand is not None and hand.setup.posted == () and sum(hand.bets) == 150


def test_cg_blinds_a_seat_change_asked_during_a_hand_posts_in_the_next() -> None:
    run = start(*[seat(k + 1, NAMES[k], 5_000) for k in range(5)],
                config=SessionConfig(profile="cg-cash", level=Level(sb=50, bb=100)))
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(["As", "2c", "3c", "4c", "5c"])])
    run.feed(shuffle(), chips("seat:2", 50), chips("seat:3", 100))
    run.feed(deal({2: "7c2d", 3: "QcQs", 4: "JdJh", 5: "Tc9c", 1: "AsAh"}, [2, 3, 4, 5, 1]))
    run.feed(declare(4, "fold"), declare(5, "fold"), declare(1, "fold"))
    # Asked while ben still plays the hand: both wait for it to end (PVB 14(1)).
    step = run.feed(seat(2, None), seat(6, "ben", 4_950))
    assert step.events[-1].text == "seat 6: ben sits down after this hand"
    mark = len(run.events)
    run.feed(declare(2, "fold"), chips("seat:2"), chips("seat:3"), chips("pot"), shuffle())
    said = blinds_said(run.events[mark:])  # the queued seats are taken, then the post
    assert said[0].startswith("seat 6: ben changes seats from seat 2, 3 occupied seats")
    assert said[-1] == "seat 6 posts the big blind (CG Blinds: a seat change)"
    hand = run.session.table.hand
    assert hand is not None and len(hand.setup.posted) == 1
