"""Settling a hand's pots at showdown: each on its own (PVB 63), cards speak (PVB 53), split pots
with the odd chip left of the button (PVB 62), and a pot played on two boards shared between
them (`controller.engine.boards`: CG "Spielvarianten" double board, CG "Run It Twice").

Functions over a `Hand` (which calls them); they read its state and return the results, and
`Hand` pays them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.engine.boards import share_between_boards
from controller.engine.evaluate import holdem_strength, omaha_strength
from controller.engine.pots import Pot, split_pot
from controller.engine.terms import HOLE_CARDS, STREET_NAMES, BoardShare, PotResult, Stage
from controller.errors import HandStateError, UnknownCards

if TYPE_CHECKING:
    from controller.engine.hand import Hand


def strength(hand: Hand, i: int, board: int = 0) -> int:
    """Player ``i``'s hand on board ``board`` (cards speak, PVB 53)."""
    hole = hand.hole[i]
    if len(hole) != HOLE_CARDS[hand.game] or any(c is None for c in hole):
        raise UnknownCards(
            f"the pot cannot be decided: the hole cards of {hand.labels[i]} were never seen "
            "(cards speak, PVB 53)"
        )
    cards = [c for c in hole if c is not None]
    on = hand.boards.cards[board]
    if hand.game == "PO":
        return omaha_strength(cards, on)
    return holdem_strength(cards, on)


def settle(hand: Hand, awards: dict[int, list[int]]) -> list[PotResult]:
    """Every pot's result at showdown. ``awards`` are the floor's decisions (pot index ->
    winners), which replace the evaluation of those pots on every board."""
    if hand.stage is not Stage.SHOWDOWN:
        raise HandStateError(
            f"the hand cannot be settled yet: it is at the {STREET_NAMES[hand.street]} "
            f"({hand.stage.value})", "PVB 55"
        )
    pots = hand.pots()
    for k, chosen in awards.items():
        if not 0 <= k < len(pots):
            raise HandStateError(f"there is no pot {k + 1}", "PVB 63")
        if not chosen or any(i not in pots[k].eligible for i in chosen):
            raise HandStateError(
                f"pot {k + 1} can only go to players who are in it", "PVB 63"
            )
    strengths: dict[tuple[int, int], int] = {}

    def best_on(contenders: list[int], board: int) -> tuple[list[int], int]:
        for i in contenders:
            if (i, board) not in strengths:
                strengths[i, board] = strength(hand, i, board)
        best = max(strengths[i, board] for i in contenders)
        return [i for i in contenders if strengths[i, board] == best], best

    results: list[PotResult] = []
    for k, pot in enumerate(pots):
        contenders = [i for i in pot.eligible if not hand.mucked[i]] or list(pot.eligible)
        boards = hand.boards.of_pot(k)
        if k in awards:
            results.append(pay(hand, pot, sorted(awards[k]), None))
        elif len(contenders) == 1:
            results.append(pay(hand, pot, contenders, None))  # a lone claimant (PVB 56(2))
        elif len(boards) == 1:
            winners, best = best_on(contenders, boards[0])
            results.append(pay(hand, pot, winners, best))
        else:
            def winners_on(board: int, c: list[int] = contenders) -> list[int]:
                return best_on(c, board)[0]

            def strength_on(board: int, c: list[int] = contenders) -> int | None:
                return best_on(c, board)[1]

            parts = share_between_boards(pot.amount, boards, winners_on, strength_on,
                                         hand.setup.odd_chip_unit)
            results.append(pay_parts(hand, pot, parts))
    return results


def pay(hand: Hand, pot: Pot, winners: list[int], best: int | None) -> PotResult:
    """The pot to ``winners``, split with the odd chips left of the button (PVB 62)."""
    payout = split_pot(pot.amount, winners, hand.setup.odd_chip_unit)
    for i, chips in payout.items():
        hand.stacks[i] += chips
    return PotResult(pot.amount, pot.eligible, tuple(winners), tuple(payout.items()), best)


def pay_parts(hand: Hand, pot: Pot, parts: list[BoardShare]) -> PotResult:
    """A pot shared between boards: each board's part to its winners. The pot's winning hand
    is the first board's."""
    total: dict[int, int] = {}
    for part in parts:
        for i, chips in part.shares:
            hand.stacks[i] += chips
            total[i] = total.get(i, 0) + chips
    return PotResult(pot.amount, pot.eligible, tuple(sorted(total)), tuple(sorted(total.items())),
                     parts[0].strength, tuple(parts))
