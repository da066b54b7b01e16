"""Run it twice at the table (CG "Run It Twice" a-f): asked for with the dealer's confirm key
once no action is possible and every player agreed, or by the floor's command (per pot; the
floor there when more than two players are in); each run's board read by RFID, run 1 then run
2; a card of run 1 seen in run 2 an irregularity, except run 1's burns in a nine-handed Omaha
hand run twice from the start, which are shuffled back; each run's part of the pot settled and
recorded."""

from __future__ import annotations

from pathlib import Path

from controller.engine.table_play import Level
from controller.session import SessionConfig
from tests.session.helpers import (
    Run,
    board,
    card,
    command,
    deal,
    declare,
    key,
    seat,
    shuffle,
    start,
)

NAMES = ["ana", "ben", "cem", "dora", "emil", "fay", "gus", "hal", "ida"]


def cash_table(stacks: list[int], profile: str = "cg-cash") -> Run:
    """Button seat 1 (the high-card draw), blinds 50/100."""
    config = SessionConfig(profile=profile, level=Level(sb=50, bb=100))
    run = start(*[seat(k + 1, NAMES[k], s) for k, s in enumerate(stacks)], config=config)
    draw = ["As", "2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c"]
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(draw[:len(stacks)])])
    run.feed(shuffle())
    return run


def alerts(run: Run) -> list[str]:
    return [e.text for e in run.events if e.kind == "alert"]


def heads_up_all_in_on_the_flop(stacks: tuple[int, int] = (1_000, 1_000)) -> Run:
    run = cash_table(list(stacks))  # heads-up: seat 1 the button posts the small blind
    run.feed(deal({2: "AsAh", 1: "KsKh"}, [2, 1]))
    run.feed(declare(1, "call"), declare(2, "check"))
    run.feed(board("2c7d9h", burn="Qd"))
    run.feed(declare(2, "allin"), declare(1, "call"))
    return run


def test_cg_run_it_twice_the_dealers_confirm_when_both_agreed() -> None:
    run = heads_up_all_in_on_the_flop()
    state = run.session.state()
    assert state.stage == "dealing"
    assert state.waiting_for == "deal the turn (or run it twice: every player agrees, confirm)"
    step = run.feed(key("confirm"))
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("decision", "run it twice (every pot): every player agreed; the turn and the river are "
         "dealt twice, run 1 then run 2; the floor informed (d) (dealer)", "CG Run It Twice")]
    assert run.session.state().waiting_for == "deal the turn of run 1"
    texts = []
    for cards, burn in (("Kd", "2h"), ("3s", "2s"), ("4s", "3h"), ("5c", "3d")):
        step = run.feed(board(cards, burn=burn))
        texts += [e.text for e in step.events if e.kind == "street"]
    assert texts == ["turn of run 1: Kd", "river of run 1: 3s", "turn of run 2: 4s",
                     "river of run 2: 5c"]
    record = run.records()[-1]
    assert record.run_twice == [1] and record.boards == ["2c7d9hKd3s", "2c7d9h4s5c"]
    assert [(p.board, p.winners, p.amount) for p in record.pots[0].boards] == [
        (1, [1], 1_000), (2, [2], 1_000)]
    assert [e.text for e in run.events if e.kind == "payout"] == [
        "pot 1 (2,000): run 1: seat 1 1,000 with three of a kind; run 2: seat 2 1,000 with one "
        "pair"]
    assert alerts(run) == []


def test_cg_run_it_twice_c_below_the_minimum_pot_the_confirm_is_no_agreement() -> None:
    run = heads_up_all_in_on_the_flop((240, 240))
    assert run.session.state().waiting_for == "deal the turn"
    step = run.feed(key("confirm"))
    assert step.events[0].kind == "refused" and step.events[0].rule == "PVB 36"
    step = run.feed(command("run_twice"))
    assert (step.events[0].text, step.events[0].rule) == (
        "the pot holds 480: run it twice from 500", "CG Run It Twice c")


def test_cg_run_it_twice_e_more_than_two_players_the_floor_per_pot() -> None:
    # seat 2 (small blind) all-in for 600; seats 3 and 1 all-in for 3,000: a main pot of
    # 1,800 and a side pot of 4,800
    run = cash_table([3_000, 600, 3_000])
    run.feed(deal({2: "AsAh", 3: "KsKh", 1: "QsQh"}, [2, 3, 1]))
    run.feed(declare(1, "allin"), declare(2, "call"), declare(3, "call"))
    state = run.session.state()
    assert state.waiting_for == "deal the flop (run it twice: with the floor, CG Run It Twice e)"
    step = run.feed(key("confirm"))
    assert (step.events[0].kind, step.events[0].text, step.events[0].rule) == (
        "refused", "3 players in the hand: run it twice with the floor there; call the floor",
        "CG Run It Twice e")
    step = run.feed(command("run_twice", by="dealer", pots=[2]))
    assert step.events[0].kind == "refused"
    # seat 2 does not agree: only the side pot between seats 3 and 1 runs twice
    step = run.feed(command("run_twice", pots=[2]))
    assert step.events[0].text == (
        "run it twice (pot 2 only): every player agreed; the whole board is dealt twice, run 1 "
        "then run 2; the floor there (floor:anna)")
    for cards, burn in (("2c7d9h", "Jd"), ("3s", "Jh"), ("4d", "Js"), ("Qd2d3c", "Td"),
                        ("5h", "Th"), ("6h", "Ts")):
        run.feed(board(cards, burn=burn))
    record = run.records()[-1]
    main, side = record.pots
    assert main.boards == [] and main.winners == [2] and main.amount == 1_800
    assert [(p.board, p.winners) for p in side.boards] == [(1, [3]), (2, [1])]
    assert record.finishing_stacks == {1: 2_400, 2: 1_800, 3: 2_400}
    assert alerts(run) == []


def test_cg_run_it_twice_a_card_of_run_1_in_run_2_is_an_irregularity() -> None:
    run = heads_up_all_in_on_the_flop()
    run.feed(key("confirm"))
    run.feed(board("Kd", burn="2h"), board("3s", burn="2s"))
    step = run.feed(card("burn", "3h"), card("board", "2h"))  # run 1's burn, on run 2's turn
    assert [(e.text, e.rule) for e in step.events if e.kind == "alert"] == [
        ("2h was burned before run 2: it cannot come again on the board (only a nine-handed "
         "Omaha hand run twice from the start shuffles the burn cards back); the card does not "
         "count, the floor decides", "CG Run It Twice")]
    assert run.session.state().waiting_for == "deal the turn of run 2"
    run.feed(card("board", "4s"), board("5c", burn="3d"))
    assert run.records()[-1].boards == ["2c7d9hKd3s", "2c7d9h4s5c"]


def test_cg_run_it_twice_nine_handed_omaha_the_burns_are_shuffled_back(tmp_path: Path) -> None:
    path = tmp_path / "cg-omaha.toml"  # the cash book's pot-limit Omaha
    path.write_text('name = "cg-omaha"\ngame = "PO"\nbutton_start = "high-card"\n'
                    'odd_chip_unit = "small-blind"\nrun_it_twice_min_pot = 500\n')
    run = cash_table([300] * 9, profile=str(path))
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    holes = {s: "".join(deck[4 * (s - 1): 4 * s]) for s in range(1, 10)}
    order = [*range(2, 10), 1]
    run.feed(deal(holes, order))
    while (actor := run.session.state().actor) is not None:
        run.feed(declare(actor, "allin" if actor in (4, 5) else "fold"))
    assert run.session.state().pots[0].amount == 750
    run.feed(key("confirm"))  # seats 4 and 5: the whole board twice
    rest = deck[36:]  # 16 cards: 3 burns and 5 for run 1, then 8 left
    run.feed(board("".join(rest[1:4]), burn=rest[0]), board(rest[5], burn=rest[4]),
             board(rest[7], burn=rest[6]))
    # run 1's burns go back with the other eight: they come again in run 2
    again = [rest[0], rest[4], rest[6]]
    run.feed(board("".join(rest[8:11]), burn=again[0]), board(again[1], burn=rest[11]),
             board(again[2], burn=rest[12]))
    record = run.records()[-1]
    assert record.run_twice == [1] and record.boards[1][6:] == again[1] + again[2]
    assert alerts(run) == []
