"""The showdown and the settlement: who shows first (RULES S3), hands shown or mucked, and every
pot settled on its own (PVB 63), cards speak (PVB 53), split pots with the odd chip left of the
button (PVB 62), a pot played on two boards shared between them (`controller.engine.boards`: CG
"Spielvarianten" double board, CG "Run It Twice"); a pot nobody contests goes to the last live
hand.

Functions of a `Hand`, which carries the public ones as its methods (`hand.show(i, cards)`,
`hand.settle()`); each checks the rules first and changes nothing when it refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from controller.engine.boards import share_between_boards
from controller.engine.cards import card_text
from controller.engine.evaluate import holdem_strength, omaha_strength
from controller.engine.pots import Pot, split_pot
from controller.engine.terms import (
    HOLE_CARDS,
    STREET_NAMES,
    Act,
    BoardShare,
    PotResult,
    Stage,
    Street,
)
from controller.errors import FouledDeck, HandStateError, UnknownCards

if TYPE_CHECKING:
    from controller.engine.hand import Hand

_new_act = tuple.__new__
_BETTING, _SHOWDOWN, _OVER = Stage.BETTING, Stage.SHOWDOWN, Stage.OVER
_PREFLOP = Street.PREFLOP


def showdown_order(hand: Hand) -> list[int]:
    """Who tables first at showdown (RULES S3), then clockwise. ``last-aggressor`` (the
    German books: PVB 55, APSA 5.3, BPS 37): the last to bet or raise on the flop, turn or
    river, and if nobody did, the first live player left of the button. ``left-of-button``
    (TDA): the last aggressor of the final round only, else left of the button. When a
    player is all-in and betting is over, all hands are turned at once (PVB 54)."""
    contenders = [i for i in hand.live if not hand.mucked[i]]
    first = hand.aggressor.get(hand.street)
    if first is None and hand.setup.showdown_fallback == "last-aggressor":
        for street in sorted(hand.aggressor, reverse=True):
            if street > _PREFLOP:  # PVB 55(2): no bet on flop, turn and river
                first = hand.aggressor[street]
            break
    if first is None or first not in contenders:
        return contenders
    k = contenders.index(first)
    return contenders[k:] + contenders[:k]


def all_in_showdown(hand: Hand) -> bool:
    """No more betting is possible while two or more hands are live: cards face up (PVB 54)."""
    # (the hand's counters of live players and of those who can still bet: every show of a
    # replay asks)
    return hand.stage is not _BETTING and hand._live_count > 1 and hand._betting_count <= 1


# ---------------------------------------------------------------- showing and mucking

def _verify_showing(hand: Hand, i: int) -> None:
    if not 0 <= i < hand.n or hand.folded[i]:
        raise HandStateError("only a live hand can be shown", "PVB 39")
    if hand.stage is _OVER:
        raise HandStateError("the hand is over", "PVB 64(1)")
    if hand.stage is _BETTING or not (
        hand.stage is _SHOWDOWN or all_in_showdown(hand)
    ):
        raise HandStateError(
            f"{hand.labels[i]} cannot show or muck while the betting is still open", "PVB 55"
        )


def show(hand: Hand, i: int, cards: list[int | None]) -> None:
    """Player ``i`` tables his cards. Cards speak (PVB 53); unseen cards may be passed as
    ``None``; shown cards must match the cards dealt."""
    if not (0 <= i < hand.n and not hand.folded[i] and hand.stage is _SHOWDOWN):
        _verify_showing(hand, i)  # (the showdown's common case passes without the call)
    dealt = hand.hole[i]
    if dealt == cards and None not in dealt:  # the cards he was dealt, all known: as dealt
        hand.shown[i] = True
        hand.log.append(_new_act(Act, (hand.street, i, "show", 0, tuple(dealt), False, 0)))
        return
    if dealt and len(cards) != len(dealt):
        raise HandStateError(
            f"{hand.labels[i]} shows {len(cards)} cards but holds {len(dealt)}", "PVB 56"
        )
    if dealt:
        merged: list[int | None] = []
        fresh: list[int | None] = []
        for old, new in zip(dealt, cards, strict=True):
            if old is not None and new is not None and old != new:
                raise FouledDeck(
                    f"{hand.labels[i]} shows {card_text(new)} but was dealt {card_text(old)}",
                    "PVB 33",
                )
            if old is None and new is not None:
                fresh.append(new)
            merged.append(old if old is not None else new)
        hand._take_cards(fresh)
        hand.hole[i] = merged
    else:
        hand._take_cards(cards)
        hand.hole[i] = list(cards)
    hand.shown[i] = True
    hand.log.append(_new_act(Act, (hand.street, i, "show", 0, tuple(hand.hole[i]), False, 0)))


def muck(hand: Hand, i: int) -> None:
    """A hand mucked at showdown forfeits its claim to every pot (PVB 56)."""
    _verify_showing(hand, i)
    hand.mucked[i] = True
    hand.log.append(_new_act(Act, (hand.street, i, "muck", 0, (), False, 0)))


# ---------------------------------------------------------------- the settlement

def settle(hand: Hand, awards: dict[int, list[int]] | None = None) -> list[PotResult]:
    """Award every pot at showdown: each on its own (PVB 63), cards speak (PVB 53), split
    pots with odd chips left of the button (PVB 62), a pot played on two boards shared
    between them (CG Spielvarianten, Run It Twice). ``awards`` are the floor's decisions
    (pot index -> winners), which replace the evaluation of those pots. Returns the
    results."""
    results = pot_results(hand, awards or {})
    _finish(hand, results)
    return results


def award_uncontested(hand: Hand) -> None:
    """Every pot to the last live hand (the others folded or were killed)."""
    (winner,) = hand.live
    results = [pay(hand, pot, [winner], None) for pot in hand.pots()]
    _finish(hand, results)


def _finish(hand: Hand, results: list[PotResult]) -> None:
    log, street = hand.log, hand.street
    for r in results:
        if not r.parts:
            for i, chips in r.shares:
                log.append(_new_act(Act, (street, i, "win", chips, (), False, 0)))
            continue
        for part in r.parts:
            for i, chips in part.shares:
                log.append(_new_act(Act, (street, i, "win", chips, (), False, part.board)))
    hand.results = results
    hand.actor = None
    hand.stage = _OVER


def strength(hand: Hand, i: int, board: int = 0) -> int:
    """Player ``i``'s hand on board ``board`` (cards speak, PVB 53)."""
    hole = hand.hole[i]
    if len(hole) != HOLE_CARDS[hand.game] or None in hole:
        raise UnknownCards(
            f"the pot cannot be decided: the hole cards of {hand.labels[i]} were never seen "
            "(cards speak, PVB 53)"
        )
    cards = cast("list[int]", hole)  # (no None: checked)
    on = hand.boards.cards[board]
    if hand.game == "PO":
        return omaha_strength(cards, on)
    return holdem_strength(cards, on)


def pot_results(hand: Hand, awards: dict[int, list[int]]) -> list[PotResult]:
    """Every pot's result at showdown. ``awards`` are the floor's decisions (pot index ->
    winners), which replace the evaluation of those pots on every board."""
    if hand.stage is not _SHOWDOWN:
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

    # One board, not run twice (nearly every hand): each pot to its best hands on board 0,
    # each hand evaluated once for all the pots (the replay settles a showdown in every other
    # hand, a side pot in every fourth: issue 37).
    one_board = not hand.boards.runs and len(hand.boards.cards) == 1
    on_board: dict[int, int] = {}
    mucked = hand.mucked
    results: list[PotResult] = []
    for k, pot in enumerate(pots):
        contenders = list(pot.eligible)
        if True in mucked:  # (a hand mucked at showdown: rare, and its own loop)
            contenders = [i for i in contenders if not mucked[i]] or contenders
        if k in awards:
            results.append(pay(hand, pot, sorted(awards[k]), None))
        elif len(contenders) == 1:
            results.append(pay(hand, pot, contenders, None))  # a lone claimant (PVB 56(2))
        elif one_board:
            best, winners = 0, []  # (strengths are 1 and up)
            for i in contenders:
                mine = on_board.get(i)
                if mine is None:
                    mine = on_board[i] = strength(hand, i)
                if mine > best:
                    best, winners = mine, [i]
                elif mine == best:
                    winners.append(i)
            results.append(pay(hand, pot, winners, best))
        elif len(boards := hand.boards.of_pot(k)) == 1:
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
    amount = pot.amount
    if len(winners) == 1:  # (the pot whole: what split_pot gives one winner)
        winner = winners[0]
        hand.stacks[winner] += amount
        # (PotResult(...) without its Python-level __new__, every field given: every pot)
        return _new_act(PotResult, (amount, pot.eligible, (winner,), ((winner, amount),), best,
                                    ()))
    payout = split_pot(amount, winners, hand.setup.odd_chip_unit)
    for i, chips in payout.items():
        hand.stacks[i] += chips
    return _new_act(PotResult, (amount, pot.eligible, tuple(winners), tuple(payout.items()),
                                best, ()))


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
