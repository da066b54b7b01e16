"""A cash table's session for the table-stake tests: seated within its limits, a hand, its words."""

from __future__ import annotations

from controller.engine.table_play import Level
from controller.session import SessionConfig
from controller.session.model import BuyIn
from controller.session.outputs import PublicEvent
from tests.session.helpers import Run, card, chips, deal, seat, shuffle, start

NAMES = ["ana", "ben", "cem", "dora", "emil", "fay"]
HOLES = ["AsAh", "KdKh", "QcQs", "JdJh", "Tc9c", "8s8d"]
LIMITS = BuyIn(min=4_000, max=10_000)


def config(buy_in: BuyIn | None = LIMITS) -> SessionConfig:
    return SessionConfig(profile="cg-cash", level=Level(sb=50, bb=100), buy_in=buy_in)


def table(players: int = 4, stack: int = 5_000, buy_in: BuyIn | None = LIMITS) -> Run:
    """Seated, the button drawn for seat 1 (CG: the high-card draw); no hand yet."""
    run = start(*[seat(k + 1, NAMES[k], stack) for k in range(players)], config=config(buy_in))
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in
               enumerate(["As", "2c", "3c", "4c", "5c", "6c"][:players])])
    return run


def hand(run: Run, players: int = 4) -> None:
    """Shuffle, the blinds (seats 2 and 3) in their zones, the cards dealt."""
    run.feed(shuffle(), chips("seat:2", 50), chips("seat:3", 100))
    order = [*range(2, players + 1), 1]
    run.feed(deal({s: HOLES[s - 1] for s in order}, order))


def said(run: Run, kind: str | None = None, rule: str | None = None) -> list[PublicEvent]:
    return [e for e in run.events if (kind is None or e.kind == kind)
            and (rule is None or e.rule == rule)]


def stack_of(run: Run, seat_number: int) -> int:
    return run.session.state().seats[seat_number].stack
