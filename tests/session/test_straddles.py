"""Straddles at the table (CG "Straddle"), read from the chips like the blinds: a seat's chips put
out before the cards are its straddle when they are one; the dealer is told, in his words, why
others are not; a new player is told the table plays them; only at a table that opened with
them."""

from __future__ import annotations

from controller.engine.table_play import Level
from controller.session import SessionConfig
from tests.session.helpers import Run, card, chips, deal, declare, seat, shuffle, start

NAMES = ["ana", "ben", "cem", "dora", "emil", "fay"]
HOLES = ["AsAh", "KdKh", "QcQs", "JdJh", "Tc9c", "8s8d"]


def cash_table(straddles: list[str] | None = None, players: int = 6) -> Run:
    """Blinds 50/100, button seat 1 (the high-card draw), small blind 2, big blind 3."""
    config = SessionConfig(profile="cg-cash", level=Level(sb=50, bb=100),
                           straddles=["live", "button", "mississippi"] if straddles is None
                           else straddles)
    run = start(*[seat(k + 1, NAMES[k], 20_000) for k in range(players)], config=config)
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in
               enumerate(["As", "2c", "3c", "4c", "5c", "6c"][:players])])
    run.feed(shuffle(), chips("seat:2", 50), chips("seat:3", 100))
    state = run.session.state()
    assert (state.button, state.sb, state.bb) == (1, 2, 3)
    return run


def deal_cards(run: Run, players: int = 6) -> None:
    order = [*range(2, players + 1), 1]
    run.feed(deal({s: HOLES[s - 1] for s in order}, order))


def texts(run: Run, kind: str) -> list[str]:
    return [e.text for e in run.events if e.kind == kind]


def test_cg_straddle_a_new_player_is_told() -> None:
    run = cash_table()
    told = [e for e in run.events if e.rule == "CG Straddle" and e.kind == "seat"]
    assert [e.seat for e in told] == [1, 2, 3, 4, 5, 6]
    assert told[0].text == ("seat 1: ana, this table plays the live straddle and button straddle "
                            "and Mississippi straddle (CG Straddle)")
    assert run.session.state().straddle_kinds == ["live", "button", "mississippi"]
    plain = cash_table(straddles=[])
    assert not [e for e in plain.events if e.rule == "CG Straddle"]


def test_cg_straddle_read_from_the_chips_before_the_cards() -> None:
    run = cash_table()
    step = run.feed(chips("seat:4", 200))
    assert [e.text for e in step.events] == [
        "seat 4 posts a live straddle of 200: the action starts at seat 5"]
    assert step.events[0].rule == "CG Straddle"
    state = run.session.state()
    assert state.straddles == {4: 200} and state.actor == 5 and state.to_call == 200
    assert state.min_raise_to == 400
    deal_cards(run)
    run.feed(chips("seat:5", 200), chips("seat:6", 200), declare(1, "fold"), chips("seat:2", 200),
             chips("seat:3", 200))
    state = run.session.state()
    assert state.actor == 4 and state.to_call == 0  # the straddler's option
    run.feed(declare(4, "check"))
    assert run.session.state().stage == "dealing"
    assert not texts(run, "alert"), texts(run, "alert")
    run.feed(*[chips(f"seat:{s}") for s in (2, 3, 4, 5, 6)], chips("pot", *[200] * 5),
             card("burn", "2d"), card("board", "3h"), card("board", "4s"), card("board", "7c"))
    for s in (2, 3, 4, 5, 6):
        run.feed(declare(s, "check"))
    assert not texts(run, "alert"), texts(run, "alert")


def test_cg_straddle_chips_that_are_no_straddle_go_back() -> None:
    run = cash_table()
    step = run.feed(chips("seat:4", 300))
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("alert", "seat 4 put out 300 before the cards: no straddle: seat 4 put out 300: a "
         "straddle is 200, twice the big blind; the chips go back", "CG Straddle")]
    assert run.session.state().straddles == {}
    run.feed(chips("seat:4"))  # handed back: nothing more to say
    run.feed(chips("seat:4", 200))
    assert run.session.state().straddles == {4: 200}
    step = run.feed(chips("seat:6", 800))  # the second live straddle is seat 5's
    assert "the next straddle is seat 5's, 400" in step.events[0].text
    run.feed(chips("seat:6"))
    deal_cards(run)
    run.feed(chips("seat:5", 500, 500))  # after the cards: a raise, never a straddle
    assert run.session.table.hand_straddles[-1].seat == 4
    assert any(e.text.startswith("seat 5 raises to 1,000") for e in run.events)


def test_cg_straddle_the_live_straddle_takes_the_place_of_a_mississippi() -> None:
    run = cash_table()
    run.feed(chips("seat:6", 200))
    assert run.session.state().straddles == {6: 200}
    step = run.feed(chips("seat:4", 200))
    assert [e.text for e in step.events] == [
        "seat 6's straddle is off: the live straddle has precedence; its chips go back",
        "seat 4 posts a live straddle of 200: the action starts at seat 5"]
    run.feed(chips("seat:6"))
    deal_cards(run)
    assert run.session.state().actor == 5
    run.feed(declare(5, "fold"), declare(6, "fold"), declare(1, "fold"), declare(2, "fold"),
             declare(3, "fold"))
    record = run.records()[-1]
    assert record.straddles == {4: 200}
    assert not texts(run, "alert")


def test_cg_straddle_only_where_the_table_opened_with_it() -> None:
    run = cash_table(straddles=[])
    deal_cards(run)
    run.feed(chips("seat:4", 100, 50, 50))  # after the cards, UTG raises (PVB 41(1)(a))
    assert any(e.text.startswith("seat 4 raises to 200") for e in run.events)
    run = cash_table(straddles=["button"])
    step = run.feed(chips("seat:4", 200))
    assert step.events[0].text == (
        "seat 4 put out 200 before the cards: no straddle: seat 4 cannot straddle: this table "
        "plays the button straddle only (seat 4 left of the big blind, seat 1 on the button); "
        "the chips go back")
    run.feed(chips("seat:4"), chips("seat:1", 200))
    assert run.session.state().actor == 2  # left of the button
