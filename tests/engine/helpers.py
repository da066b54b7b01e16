"""Small builders for engine tests: a hand from stacks and blinds, a script runner, and a
table's hand played out with everyone folding to the big blind."""

from __future__ import annotations

from controller.engine.cards import parse_cards
from controller.engine.hand import Hand, HandSetup, PlayerSetup, Stage
from controller.engine.table_play import DealBoard, DealHole, Fold, Settle, Table


def make_hand(
    stacks: list[int],
    blinds: list[int] | None = None,
    antes: list[int] | None = None,
    *,
    game: str = "NT",
    betting: str | None = None,
    min_bet: int = 100,
    big_bet: int | None = None,
    big_blind: int | None = None,
    dead_antes: bool = True,
    odd_chip_unit: int = 1,
    showdown_fallback: str = "left-of-button",
) -> Hand:
    """Players p1..pn from the first seat left of the button (the button is last)."""
    n = len(stacks)
    blinds = blinds if blinds is not None else [50, 100] + [0] * (n - 2)
    antes = antes if antes is not None else [0] * n
    return Hand(
        HandSetup(
            game=game,  # type: ignore[arg-type]
            betting=betting,  # type: ignore[arg-type]
            players=[
                PlayerSetup(label=f"p{k + 1}", stack=s, ante=a, blind=b)
                for k, (s, a, b) in enumerate(zip(stacks, antes, blinds, strict=True))
            ],
            min_bet=min_bet,
            big_bet=big_bet,
            big_blind=big_blind,
            dead_antes=dead_antes,
            odd_chip_unit=odd_chip_unit,
            showdown_fallback=showdown_fallback,  # type: ignore[arg-type]
        )
    )


def run(hand: Hand, script: str) -> Hand:
    """Apply a PHH-like script: ``p1 f``, ``p2 cc``, ``p3 cbr 300``, ``p1 x`` (check),
    ``p1 c`` (call), ``db AsKsQs``, ``dh p1 AsKs``, ``p1 sm``, ``p1 muck``; ``;`` separates."""
    for step in filter(None, (s.strip() for s in script.split(";"))):
        parts = step.split()
        if parts[0] == "db":
            hand.deal_board([c for c in parse_cards(parts[1]) if c is not None])
            continue
        if parts[0] == "dh":
            hand.deal_hole(int(parts[1][1:]) - 1, parse_cards(parts[2]))
            continue
        i = int(parts[0][1:]) - 1
        verb = parts[1]
        if verb == "f":
            hand.fold(i)
        elif verb == "cc":
            hand.check_or_call(i)
        elif verb == "x":
            hand.check(i)
        elif verb == "c":
            hand.call(i)
        elif verb == "cbr":
            hand.bet_or_raise_to(i, int(parts[2]))
        elif verb == "sm":
            hand.show(i, list(hand.hole[i]))
        elif verb == "muck":
            hand.muck(i)
        else:
            raise ValueError(step)
    return hand


def deal(hand: Hand, *holes: str) -> Hand:
    for i, cards in enumerate(holes):
        hand.deal_hole(i, parse_cards(cards))
    return hand


def play_out(table: Table) -> None:
    """Everyone folds to the big blind; a hand of all-in blinds is dealt out and settled."""
    assert table.positions is not None
    deck = iter(["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s", "6s", "5s", "4s", "3s", "2s",
                 "Ah", "Kh", "Qh", "Jh", "Th", "9h", "8h", "7h", "6h", "5h", "4h", "3h", "2h"])
    for seat in table.positions.dealt:
        table.apply(DealHole(seat=seat, cards=next(deck) + next(deck)))
    while table.hand is not None and table.hand.stage is not Stage.OVER:
        actor = table.actor_seat()
        if actor is not None:
            table.apply(Fold(seat=actor))
        elif table.hand.stage is Stage.DEALING:
            table.apply(DealBoard(cards="".join(
                next(deck) for _ in range(3 if not table.hand.board else 1))))
        else:
            table.apply(Settle())
