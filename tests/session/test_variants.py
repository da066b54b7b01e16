"""Bomb pot, flip and double board at the table (CG "Spielvarianten"): asked for the next hand by
the floor (or the dealer's console), journaled with the hand, shown in the table's state, the
agreed amounts read from the betting zones, and a double board read by the one board antenna in
the order the dealer deals it: each street's cards for board 1, then the same street for board
2 (docs/table.md)."""

from __future__ import annotations

from controller.engine.table_play import Level
from controller.session import SessionConfig, TableSession
from tests.session.helpers import (
    Run,
    board,
    card,
    chips,
    command,
    deal,
    declare,
    key,
    seat,
    shuffle,
    start,
)

NAMES = ["ana", "ben", "cem", "dora"]
HOLES = {1: "AsAh", 2: "KdKh", 3: "QcQs", 4: "7c7d"}


def cash_table(players: int = 4) -> Run:
    config = SessionConfig(profile="cg-cash", level=Level(sb=50, bb=100))
    run = start(*[seat(k + 1, NAMES[k], 20_000) for k in range(players)], config=config)
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(["As", "2c", "3c", "4c"][:players])])
    return run


def order(run: Run) -> list[int]:
    state = run.session.state()
    dealt = [s for s, v in state.seats.items() if v.in_hand]
    button = state.button or 0
    return [s for s in dealt if s > button] + [s for s in dealt if s <= button]


def fold_around(run: Run) -> None:
    """A regular hand: blinds posted, cards dealt, everyone folds to the big blind."""
    run.feed(shuffle())
    state = run.session.state()
    run.feed(chips(f"seat:{state.sb}", 50), chips(f"seat:{state.bb}", 100))
    seats = order(run)
    run.feed(deal({s: HOLES[s] for s in seats}, seats))
    while (actor := run.session.state().actor) is not None:
        run.feed(declare(actor, "fold"))
    run.feed(*[chips(f"seat:{s}") for s in seats])


def alerts(run: Run) -> list[str]:
    return [e.text for e in run.events if e.kind == "alert"]


def test_cg_spielvarianten_bomb_pot_asked_by_the_floor_and_read_from_the_zones() -> None:
    run = cash_table()
    fold_around(run)  # hand 1: button seat 1
    step = run.feed(command("variant", kind="bomb-pot", amount=500))
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("decision", "the next hand is a bomb pot of 500 (floor:anna): every player puts in the "
         "amount, the flop comes without a betting round", "CG Spielvarianten")]
    assert run.session.state().next_variant is not None
    step = run.feed(shuffle())
    assert any(e.text == "hand 2 is a bomb pot of 500: every player puts in the amount, the "
               "flop comes without a betting round" for e in step.events)
    state = run.session.state()
    assert state.variant is not None and state.variant.variant == "bomb-pot"
    assert state.next_variant is None and (state.button, state.bb) == (2, 4)
    assert state.actor is None and state.waiting_for == "deal the flop"
    seats = order(run)
    run.feed(*[chips(f"seat:{s}", 500) for s in seats])
    run.feed(deal({s: HOLES[s] for s in seats}, seats))
    run.feed(*[chips(f"seat:{s}") for s in seats], chips("pot", 500, 500, 500, 500))
    run.feed(board("2c3d4h", burn="9d"))
    state = run.session.state()
    assert state.street == "flop" and state.actor == 3  # left of the button
    for street in ("5s", "8h"):
        for s in (3, 4, 1, 2):
            run.feed(declare(s, "check"))
        run.feed(board(street, burn="Tc" if street == "5s" else "Td"))
    for s in (3, 4, 1, 2):
        run.feed(declare(s, "check"))
    for _ in seats:
        run.feed(key("confirm"))  # each hand tabled in turn
    record = run.records()[-1]
    assert record.variant == "bomb-pot" and record.pots[0].amount == 2_000
    assert alerts(run) == [], alerts(run)
    fold_around(run)  # hand 3, regular: the button where the bomb pot had it
    assert run.records()[-1].button == 2


def test_cg_spielvarianten_double_board_read_board_by_board() -> None:
    run = cash_table()
    fold_around(run)
    run.feed(command("variant", kind="double-board"))
    run.feed(shuffle(), chips("seat:3", 50), chips("seat:4", 100))
    seats = order(run)
    run.feed(deal({s: HOLES[s] for s in seats}, seats))
    for s in (1, 2, 3):
        run.feed(declare(s, "call"))
    run.feed(declare(4, "check"))
    run.feed(*[chips(f"seat:{s}") for s in seats])
    step = run.feed(board("Ad2c3d", burn="9d"))
    assert step.events[-1].text == "flop of board 1: Ad 2c 3d"
    assert run.session.state().waiting_for == "deal the flop of board 2"
    step = run.feed(board("7h8s9c", burn="9h"))
    assert step.events[0].text == "flop of board 2: 7h 8s 9c"
    state = run.session.state()
    assert state.boards == ["Ad2c3d", "7h8s9c"] and state.actor == 3
    for turn in (("4s", "Ts"), ("Jh", "2d")):
        for s in (3, 4, 1, 2):
            run.feed(declare(s, "check"))
        run.feed(board(turn[0], burn="2h" if turn[0] == "4s" else "2s"))
        run.feed(board(turn[1], burn="3h" if turn[0] == "4s" else "3s"))
    for s in (3, 4, 1, 2):
        run.feed(declare(s, "check"))
    for _ in seats:
        run.feed(key("confirm"))
    record = run.records()[-1]
    assert record.double_board and record.boards == ["Ad2c3d4sJh", "7h8s9cTs2d"]
    pot = record.pots[0]
    assert [(p.board, p.winners) for p in pot.boards] == [(1, [1]), (2, [4])]
    assert [e.text for e in run.events if e.kind == "payout"][-1] == (
        "pot 1 (400): board 1: seat 1 200 with three of a kind; board 2: seat 4 200 with three "
        "of a kind")
    assert alerts(run) == [], alerts(run)


def test_cg_spielvarianten_refusals_in_the_dealers_words() -> None:
    run = cash_table()
    step = run.feed(command("variant", kind="flip", amount=120))
    assert step.events[0].kind == "refused" and step.events[0].text == (
        "a flip: every player puts in an amount the small blind divides (50): args.amount")
    assert step.events[0].rule == "CG Unteilbare Jetons"
    step = run.feed(command("variant", kind="omaha"))
    assert step.events[0].kind == "refused" and step.events[0].rule == "CG Spielvarianten"
    run.feed(command("variant", kind="flip", amount=100))
    step = run.feed(shuffle())  # the table's first hand lays out the button and blinds
    assert step.events[0].text == ("a flip of 100 is dealt after a regular hand, which lays out "
                                   "the button and the blinds: this hand is a regular one")
    assert run.session.state().variant is None and run.session.state().next_variant is not None


def test_cg_spielvarianten_a_void_bomb_pot_is_dealt_again_and_survives_a_restart() -> None:
    run = cash_table()
    fold_around(run)
    run.feed(command("variant", kind="bomb-pot", amount=200, double_board=True))
    run.feed(shuffle())
    run.feed(command("void", reason="cards exposed"))
    state = run.session.state()
    assert state.next_variant is not None and state.next_variant.boards == 2
    # the journal's snapshot at the next shuffle keeps it; a restart from it deals it
    session = run.session
    again = TableSession(session.config, session._make_snapshot())
    again_run = Run(again)
    again_run.feed(shuffle())
    state = again.state()
    assert state.variant is not None and state.variant.variant == "bomb-pot"
    assert state.variant.boards == 2 and state.waiting_for == "deal the flop of board 1"


def test_cg_spielvarianten_flip_the_board_without_betting_the_amounts_checked_first() -> None:
    run = cash_table(players=3)
    fold_around(run)  # button seat 1; the flip keeps the next hand's: button seat 2
    run.feed(command("variant", kind="flip", amount=300, by="dealer"))
    run.feed(shuffle())
    seats = order(run)
    assert seats == [3, 1, 2]
    step = run.feed(chips("seat:3", 300), chips("seat:1", 300), chips("seat:2", 200))
    assert [(e.text, e.rule) for e in step.events] == [
        ("seat 2 put 200 in the betting zone but owes 300 for the flip (CG Spielvarianten)",
         "APSA 5.4.1")]
    run.feed(deal({s: HOLES[s] for s in seats}, seats))
    run.feed(board("9d8d2s", burn="Tc"))  # no betting: the deal is checked at the flop (I1, H4)
    assert run.session.state().actor is None and run.session.state().alerts == [
        "seat 2 put 200 in the betting zone but owes 300 for the flip (CG Spielvarianten)"]
    run.feed(board("5c", burn="Th"), board("4h", burn="Ts"))
    state = run.session.state()
    assert state.stage == "showdown" and state.showdown_order == [3, 1, 2]
    for _ in seats:
        run.feed(key("confirm"))
    record = run.records()[-1]
    assert record.variant == "flip" and record.pots[0].winners == [1]
    assert [i.rule for i in record.irregularities] == ["APSA 5.4.1"]
