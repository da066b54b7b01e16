"""The hands the chip-zone tests start from (test_chip_bets.py, test_time_and_penalties.py,
test_chip_properties.py): three to six players at a level, the blinds in their zones, the cards
dealt, under either rule profile; and what they read back (the actions, who is waited for)."""

from __future__ import annotations

from controller.engine.hand import Street
from controller.engine.table_play import Level
from controller.session import SessionConfig
from tests.session.helpers import Run, card, chips, deal, declare, seat, shuffle, start

PROFILES = ("pvb-2020", "cg-cash")
NAMES = ["ana", "ben", "cem", "dora", "emil", "fay"]
HOLES = ["AsAh", "KdKh", "QcQs", "JdJh", "Tc9c", "8s8d"]
FLOP = ["2c", "7d", "9h"]


# CG Table Stake: a cash table's bets are divisible by the small blind (300: a 5,000 chip is a
# bet of 4,800, the 200 back; tests/session/test_cash_table_stakes.py)
CHIP_5000 = {"pvb-2020": 5000, "cg-cash": 4800}


def hand_at(profile: str, sb: int, bb: int, players: int = 3, stack: int = 100_000) -> Run:
    """A hand just dealt: button seat 1, small blind seat 2, big blind seat 3; the blinds are
    in their betting zones as single chips of their size."""
    run = start(*[seat(k + 1, NAMES[k], stack) for k in range(players)],
                config=SessionConfig(profile=profile, level=Level(sb=sb, bb=bb)))
    if profile == "cg-cash":  # B1: a high-card draw gives seat 1 the button
        run.feed(*[card(f"seat:{k + 1}", c) for k, c in
                   enumerate(["As", "2c", "3c", "4c", "5c", "6c"][:players])])
    run.feed(shuffle())
    state = run.session.state()
    assert (state.button, state.sb, state.bb) == (1, 2, 3)
    run.feed(chips("seat:2", sb), chips("seat:3", bb))
    order = [*range(2, players + 1), 1]
    run.feed(deal({s: HOLES[s - 1] for s in order}, order))
    return run


def actions(run: Run) -> list[tuple[int, str, int]]:
    hand = run.session.table.hand
    assert hand is not None
    seats = run.session.table.positions
    assert seats is not None
    return [(seats.dealt[a.player], a.kind, a.amount) for a in hand.log
            if a.player is not None and a.kind in ("fold", "check", "call", "bet", "raise")]


def last_action(run: Run) -> tuple[int, str, int]:
    return actions(run)[-1]


def waiting(run: Run) -> str:
    return run.session.state().waiting_for


def to_flop(run: Run) -> None:
    """Everyone calls preflop, the bets are swept, the flop comes."""
    while run.session.state().stage == "betting" and run.session.state().street == "preflop":
        state = run.session.state()
        assert state.actor is not None
        run.feed(declare(state.actor, "call" if state.to_call else "check"))
    run.feed(*[chips(f"seat:{s}") for s in run.session.state().seats], card("burn", "3s"),
             *[card("board", c) for c in FLOP])
    assert run.session.table.hand is not None and run.session.table.hand.street == Street.FLOP


def chips_conserved(run: Run, total: int) -> None:
    assert run.session.chips_on_table() == total
