"""A cash player who loses his last chip (the CG; a tournament eliminates him, PVB 64b), through
the session from the table's events: he keeps his seat with 0 and is told he may buy chips; he
is dealt out while he has none (CG "Am Sitzplatz": a seat gets cards with a valid table stake
only); chips he buys between hands are a buy-in again, within the table's minimum and maximum
(CG "Buy-in", CG "Limits", CG "Table Stake"), whether the floor enters them (``stack``) or the
dealer lays them on his zone for the readers; he leaves when the dealer or the floor lets him
go."""

from __future__ import annotations

from controller.engine.table_play import Level
from controller.session import SessionConfig
from tests.session.cash_table_helpers import NAMES, hand, said, stack_of, table
from tests.session.helpers import Run, board, chips, command, deal, declare, seat, shuffle, start


def dora_busts(run: Run) -> None:
    """Hand 1 (button seat 1, blinds seats 2 and 3): dora (seat 4, JJ) all-in, ana (AA) calls,
    the others fold; ana's aces hold."""
    hand(run)
    run.feed(declare(4, "allin"), declare(1, "call"), declare(2, "fold"), declare(3, "fold"))
    run.feed(board("2c7d9h", burn="5c"), board("3s", burn="6c"), board("4d", burn="8c"))
    assert run.session.state().stage == "over"


def test_cg_table_stake_a_busted_cash_player_keeps_his_seat_and_is_dealt_out() -> None:
    run = table()
    dora_busts(run)
    state = run.session.state()
    assert (state.seats[4].player, state.seats[4].stack) == ("dora", 0)
    assert not said(run, "elimination")
    assert said(run, "seat", "CG Table Stake")[-1].text == (
        "seat 4: dora has no chips left and keeps his seat: dealt out while he has none; he may "
        "buy chips between hands (a buy-in of at least 4,000 and at most 10,000: CG Buy-in, CG "
        "Table Stake) or leave the table")
    step = run.feed(shuffle())
    assert step.accepted
    assert [e.text for e in step.events if e.rule == "CG Am Sitzplatz"] == [
        "seat 4: dora has no chips and is dealt out of this hand (CG Am Sitzplatz: a seat gets "
        "cards with a valid table stake only); he may buy chips between hands (a buy-in of at "
        "least 4,000 and at most 10,000: CG Buy-in, CG Table Stake) or leave the table"]
    state = run.session.state()
    assert (state.button, state.sb, state.bb) == (2, 3, 1)  # seat 4 passed over
    assert [s for s, v in state.seats.items() if v.in_hand] == [1, 2, 3]
    # ... and a buy-in refused during the hand (CG Table Stake: between hands only)
    step = run.feed(command("stack", seat=4, player="dora", add=5_000))
    assert not step.accepted and step.events[0].rule == "CG Table Stake"


def test_cg_buy_in_chips_he_buys_from_none_are_a_buy_in_within_the_limits() -> None:
    run = table()
    dora_busts(run)
    run.feed(command("stack", seat=4, player="dora", add=1_000))
    assert [(e.kind, e.text, e.rule) for e in run.steps[-1].events] == [
        ("refused", "seat 4: dora has no chips and buys in again for 1,000: this table's "
         "minimum buy-in is 4,000", "CG Buy-in")]
    run.feed(command("stack", seat=4, player="dora", add=12_000))
    assert run.steps[-1].events[0].rule == "CG Limits"
    assert stack_of(run, 4) == 0
    step = run.feed(command("stack", seat=4, player="dora", add=4_000))
    assert step.accepted and stack_of(run, 4) == 4_000
    run.feed(shuffle())
    state = run.session.state()
    assert state.seats[4].in_hand and not said(run, rule="CG Am Sitzplatz")


def test_cg_table_stake_chips_the_dealer_sells_him_are_read_on_his_zone() -> None:
    run = table()
    dora_busts(run)
    # Too few: told, he stays dealt out
    run.feed(chips("seat:4", *[1_000] * 3), chips("seat:4"))
    assert [(e.kind, e.text, e.rule) for e in run.steps[-1].events] == [
        ("alert", "seat 4: dora has no chips and buys in again for 3,000: this table's minimum "
         "buy-in is 4,000: the chips go back, he stays dealt out", "CG Buy-in")]
    assert stack_of(run, 4) == 0
    run.feed(chips("seat:4", *[1_000] * 6), chips("seat:4"))
    assert [(e.kind, e.text) for e in run.steps[-1].events] == [
        ("decision", "seat 4: dora buys in again for 6,000 between hands (read on the zone; CG "
         "Buy-in, CG Table Stake): dealt in from the next hand")]
    assert stack_of(run, 4) == 6_000
    run.feed(shuffle())
    assert run.session.state().seats[4].in_hand


def test_a_busted_cash_player_leaves_when_the_dealer_lets_him_go() -> None:
    run = table(buy_in=None)  # (no limits: any chips he buys would do)
    dora_busts(run)
    assert "a buy-in" in said(run, "seat", "CG Table Stake")[-1].text
    step = run.feed(seat(4, None))
    assert step.accepted and 4 not in run.session.state().seats
    # His seat is free for a newcomer
    assert run.feed(seat(4, "emil", 5_000)).accepted and stack_of(run, 4) == 5_000


def test_a_busted_cash_player_asked_off_during_the_hand_leaves_after_it() -> None:
    run = table()
    hand(run)
    run.feed(declare(4, "allin"), declare(1, "call"))
    assert run.feed(seat(4, None)).accepted  # the dealer: he goes after this hand
    run.feed(declare(2, "fold"), declare(3, "fold"))
    run.feed(board("2c7d9h", burn="5c"), board("3s", burn="6c"), board("4d", burn="8c"))
    assert 4 not in run.session.state().seats
    assert stack_of(run, 1) == 10_150


def test_pvb_64b_a_tournament_player_who_busts_is_eliminated() -> None:
    """The same hand at a tournament table (no cash profile): eliminated, as before."""
    run = start(*[seat(k + 1, NAMES[k], 5_000) for k in range(4)],
                config=SessionConfig(profile="pvb-2020", level=Level(sb=50, bb=100)))
    dora_busts(run)
    assert [e.rule for e in said(run, "elimination")] == ["PVB 64b"]
    assert 4 not in run.session.state().seats



def test_heads_up_the_hand_that_busts_one_is_sealed_by_the_next_not_at_once() -> None:
    """Heads-up, ben loses his chips: at a tournament no further hand could be dealt and the
    hand is sealed at once (PVB 64(1)); at a cash table ben may buy chips, so the next hand
    seals it, as any (RULES H3)."""
    run = table(players=2)
    run.feed(shuffle(), chips("seat:1", 50), chips("seat:2", 100))
    run.feed(deal({2: "KdKh", 1: "AsAh"}, [2, 1]))
    run.feed(declare(1, "allin"), declare(2, "call"))
    run.feed(board("2c7d9h", burn="5c"), board("3s", burn="6c"), board("4d", burn="8c"))
    assert stack_of(run, 2) == 0 and run.sealed == []
    assert run.session.pending_record is not None
    run.feed(command("stack", seat=2, player="ben", add=4_000))
    step = run.feed(shuffle())
    assert [r.hand for r in step.sealed] == [1]
