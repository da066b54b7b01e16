"""The boards of a hand and each pot shared between them.

A hand has one board, or two from the start (CG "Spielvarianten": "Der Croupier gibt zwei
Boards ... Der Pot wird zu gleichen Teilen zwischen diesen Boards geteilt"), or gets a second
run of the cards still to come once no action is possible and the players agree (CG "Run It
Twice": the river, turn and river, or the whole board twice). A double board is dealt street by
street, the first board's cards then the second's, with a betting round after both; the runs of
run it twice one after the other, the first complete before the second begins (CG "Run It
Twice": the second board is dealt after the first regular board).

A pot is shared in equal parts between the boards it is played on, each part to the best hand
on its board. The odd chip (what cannot be shared in whole units) goes to the worse position,
the first of the winners left of the button (CG "Run It Twice" f). The CG names it for run it
twice only; a double board shares a pot the same way, so it takes the same rule (and it is the
books' odd-chip rule too: PVB 62, CG "Unteilbare Jetons").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.engine.pots import split_pot
from controller.engine.terms import BoardShare, Street

BOARD_SIZE = 5
_STREET_OF = {0: Street.PREFLOP, 3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}


def street_of(cards: Sequence[int]) -> Street:
    """The street a board has reached by its cards (0, 3, 4 or 5 of them)."""
    return _STREET_OF[len(cards)]


class Boards:
    """The boards' cards, which board the next cards go to, and on which boards a pot is
    played."""

    def __init__(self, count: int) -> None:
        self.cards: list[list[int]] = [[] for _ in range(count)]
        self.starting = count  # 2: a double board (CG Spielvarianten)
        self.run_from: int | None = None  # run it twice: the cards both runs share
        self.pot_runs: frozenset[int] = frozenset()  # the pots run twice (CG Run It Twice)

    @property
    def runs(self) -> bool:
        return self.run_from is not None

    def street(self) -> Street:
        """The street every board has reached: the betting follows it."""
        if len(self.cards) == 1:  # (the common case, once a street)
            return _STREET_OF[len(self.cards[0])]
        return min(street_of(b) for b in self.cards)

    def due(self) -> int:
        """The board that takes the next cards: run 1 until it is complete, then run 2; on a
        double board the one behind (the first on a tie)."""
        if self.runs:
            return 0 if len(self.cards[0]) < BOARD_SIZE else 1
        if len(self.cards) == 1:
            return 0
        return min(range(len(self.cards)), key=lambda k: (len(self.cards[k]), k))

    def complete(self) -> bool:
        return all(len(b) == BOARD_SIZE for b in self.cards)

    def run_twice(self, pots: Sequence[int]) -> None:
        """From now on a second run: it shares the cards dealt so far (CG Run It Twice)."""
        self.run_from = len(self.cards[0])
        self.cards.append(list(self.cards[0]))
        self.pot_runs = frozenset(pots)

    def of_pot(self, pot: int) -> list[int]:
        """The boards pot ``pot`` is played on: every board of a double board; both runs for a
        pot run twice, the first alone for one that is not (CG Run It Twice: "darf der Main
        Pot im Showdown auch unter keinen Umständen für Run It Twice herangezogen werden")."""
        if self.runs:
            return [0, 1] if pot in self.pot_runs else [0]
        return list(range(len(self.cards)))


def share_between_boards(
    amount: int, boards: Sequence[int], winners_on: Callable[[int], list[int]],
    strength_on: Callable[[int], int | None], unit: int,
) -> list[BoardShare]:
    """``amount`` shared in equal parts between ``boards`` (in whole ``unit``s), each part
    between the winners on its board (PVB 62 within a board). What cannot be shared equally
    goes to the winner in the worse position: the first of all the pot's winners left of the
    button (CG Run It Twice f). Players are indices in order from the first seat left of the
    button, so the worse position is the lowest index."""
    count = len(boards)
    part = amount // (count * unit) * unit
    odd = amount - part * count
    winners = {b: winners_on(b) for b in boards}
    worst = min(i for b in boards for i in winners[b])
    parts: list[BoardShare] = []
    odd_given = False
    for b in boards:
        shares = split_pot(part, winners[b], unit)
        size = part
        if odd and not odd_given and worst in shares:
            shares[worst] += odd
            size += odd
            odd_given = True
        parts.append(BoardShare(b, size, tuple(winners[b]),
                                tuple((i, c) for i, c in shares.items() if c), strength_on(b)))
    return parts
