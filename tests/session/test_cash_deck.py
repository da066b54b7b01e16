"""What one deck can deal, at a cash table (CG "Spielvarianten", CG "Run It Twice"), through the
session from the table's events: two boards need every player's hole cards plus five cards and
three burn cards a board, and a run it twice needs the rest of the board twice, each street with
its burn card, from what the stub still holds (run 1's burns shuffled back in a nine-handed
Omaha hand run from the start). Ten players at Omaha hold 40 cards: neither two boards (56
cards) nor a run it twice from the flop (56) can be dealt; the table refuses them in the
dealer's words, and does not offer what it cannot deal."""

from __future__ import annotations

from pathlib import Path

from controller.engine.table_play import Level
from controller.session import SessionConfig
from controller.sim.soak import cash_profile
from tests.session.helpers import Run, board, command, deal, declare, key, seat, shuffle, start

NAMES = ["ana", "ben", "cem", "dora", "emil", "fay", "gus", "hal", "ida", "jon"]
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def omaha(tmp_path: Path, players: int, stack: int = 300) -> Run:
    """Pot-limit Omaha under the CG (first button on seat 1), blinds 50/100."""
    path = tmp_path / "cash-PO.toml"
    path.write_text(cash_profile("PO"), encoding="utf-8")
    config = SessionConfig(profile=str(path), level=Level(sb=50, bb=100))
    return start(*[seat(k + 1, NAMES[k], stack) for k in range(players)], config=config)


def refusal(run: Run) -> tuple[str, str | None]:
    events = run.steps[-1].events
    assert [e.kind for e in events] == ["refused"], events
    return events[0].text, events[0].rule


def test_cg_spielvarianten_two_boards_for_ten_at_omaha_are_refused(tmp_path: Path) -> None:
    run = omaha(tmp_path, 10)
    step = run.feed(command("variant", kind="double-board"))
    assert not step.accepted
    assert refusal(run) == ("not enough cards for two boards with ten players at Omaha: 56 "
                            "needed, 52 in the deck", "CG Spielvarianten")
    run.feed(command("variant", kind="bomb-pot", amount=200, double_board=True))
    assert refusal(run)[0].startswith("not enough cards for two boards with ten players")
    run.feed(command("variant", kind="flip", amount=200, double_board=True))
    assert refusal(run)[0].startswith("not enough cards for two boards with ten players")
    assert run.session.state().next_variant is None
    # On one board the deck holds it
    step = run.feed(command("variant", kind="bomb-pot", amount=200))
    assert step.accepted and run.session.state().next_variant is not None
    # One player leaves: nine at Omaha, 36 + 16 = 52 cards
    run.feed(seat(10, None))
    step = run.feed(command("variant", kind="double-board"))
    assert step.accepted
    assert [(e.kind, e.rule) for e in step.events] == [("decision", "CG Spielvarianten")]


def test_cg_spielvarianten_two_boards_asked_for_nine_dealt_to_ten_are_a_regular_hand(
        tmp_path: Path) -> None:
    run = omaha(tmp_path, 9)
    assert run.feed(command("variant", kind="double-board")).accepted
    run.feed(seat(10, "jon", 300))  # a tenth sits down before the shuffle
    step = run.feed(shuffle())
    assert step.accepted
    assert [(e.kind, e.text, e.rule) for e in step.events if e.kind == "decision"] == [
        ("decision", "not enough cards for two boards with ten players at Omaha: 56 needed, 52 "
         "in the deck: a double board is not dealt, this hand is a regular one",
         "CG Spielvarianten")]
    state = run.session.state()
    assert state.variant is None and state.next_variant is None
    assert sum(1 for v in state.seats.values() if v.in_hand) == 10


def ten_at_omaha_all_in_before_the_flop(tmp_path: Path) -> Run:
    """Ten players at Omaha: seat 4 all-in for 300, the big blind (seat 3) calls all-in, the
    others fold; 650 in the pot, 12 cards left in the stub."""
    run = omaha(tmp_path, 10)
    run.feed(shuffle())
    holes = {s: "".join(DECK[4 * (s - 1): 4 * s]) for s in range(1, 11)}
    run.feed(deal(holes, [*range(2, 11), 1]))
    while (actor := run.session.state().actor) is not None:
        action = "allin" if actor == 4 else "call" if actor == 3 else "fold"
        run.feed(declare(actor, action))
    state = run.session.state()
    assert state.stage == "dealing" and state.pots[0].amount == 650
    return run


def test_cg_run_it_twice_ten_at_omaha_not_from_the_flop(tmp_path: Path) -> None:
    run = ten_at_omaha_all_in_before_the_flop(tmp_path)
    # Not offered: the stub holds 12 cards, two runs from the flop take 16
    assert run.session.state().waiting_for == "deal the flop"
    words = ("not enough cards to run it twice from the flop with ten players at Omaha: 56 "
             "needed, 52 in the deck", "CG Run It Twice")
    run.feed(key("confirm"))
    assert refusal(run) == words
    run.feed(command("run_twice"))
    assert refusal(run) == words
    # From the turn the stub holds both runs (40 + 4 used, 2 x 4 wanted: 52)
    rest = DECK[40:]
    run.feed(board("".join(rest[1:4]), burn=rest[0]))
    state = run.session.state()
    assert state.waiting_for == "deal the turn (or run it twice: every player agrees, confirm)"
    step = run.feed(key("confirm"))
    assert step.accepted and step.events[0].rule == "CG Run It Twice"
    run.feed(board(rest[5], burn=rest[4]), board(rest[7], burn=rest[6]),
             board(rest[9], burn=rest[8]), board(rest[11], burn=rest[10]))
    record = run.records()[-1]
    assert record.run_twice == [1] and len(record.boards) == 2
    assert [e.text for e in run.events if e.kind == "alert"] == []


def test_cg_run_it_twice_nine_at_omaha_from_the_flop_with_the_burns_shuffled_back(
        tmp_path: Path) -> None:
    """Nine at Omaha: 36 hole cards and two runs of eight are 52, run 1's three burns back in
    the stub for run 2 (CG Run It Twice): offered, and accepted."""
    run = omaha(tmp_path, 9)
    run.feed(shuffle())
    holes = {s: "".join(DECK[4 * (s - 1): 4 * s]) for s in range(1, 10)}
    run.feed(deal(holes, [*range(2, 10), 1]))
    while (actor := run.session.state().actor) is not None:
        run.feed(declare(actor, "allin" if actor == 4 else "call" if actor == 3 else "fold"))
    assert run.session.state().waiting_for == (
        "deal the flop (or run it twice: every player agrees, confirm)")
    assert run.feed(key("confirm")).accepted
