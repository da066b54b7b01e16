"""The betting round: the actions (fold, check, call, bet or raise, a dead hand), who acts next,
and closing the round (an uncalled bet returned, then cards awaited or the pot settled).

Functions of a `Hand`, which carries them as its methods (`hand.call(i)`); each action checks
the rules first (`controller.engine.betting_rules`) and changes nothing when it refuses. This is
the replay's hot path: the functions call each other directly, as module names, and build log
entries without detours (issue 37).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.engine.betting_rules import (
    target,
    to_call,
    verify_bet_or_raise_to,
    verify_call,
    verify_check,
    verify_fold,
    verify_kill,
    verify_turn,
)
from controller.engine.showdown import award_uncontested
from controller.engine.terms import SPLIT_LIMIT_RAISES, Act, Stage, Street

if TYPE_CHECKING:
    from controller.engine.hand import Hand

_new_act = tuple.__new__
# Enum members as module globals: `Stage.OVER` is a lookup through the enum's metaclass (some
# 60 ns here, eight times a global's), and every action tests the stage and street (issue 37).
_BETTING, _DEALING, _SHOWDOWN = Stage.BETTING, Stage.DEALING, Stage.SHOWDOWN
_RIVER = Street.RIVER


def record_act(
    hand: Hand, player: int | None, kind: str, amount: int = 0,
    cards: tuple[int | None, ...] = (), all_in: bool = False,
) -> None:
    # tuple.__new__ with every field: what Act(...) does, without its Python-level
    # __new__ and defaults (an entry for every action: the replay's hot path)
    hand.log.append(_new_act(Act, (hand.street, player, kind, amount, cards, all_in, 0)))


def fold(hand: Hand, i: int, forfeit: int = 0) -> None:
    """A fold in turn; also binding when a check was possible (PVB 38(1)). ``forfeit``: chips
    of a short call that stay in the pot when the player will not complete it (R8,
    APSA 5.4.30)."""
    if forfeit or not (hand.actor == i and hand.stage is _BETTING and not hand.folded[i]):
        verify_fold(hand, i, forfeit)  # (else: his turn, which is all a fold asks)
    if forfeit:
        _put_in(hand, i, forfeit)
    hand.folded[i] = True
    hand._can_bet[i] = False
    hand._live_count -= 1
    hand._betting_count -= 1  # only a player who can still bet is ever to act
    hand.log.append(_new_act(Act, (hand.street, i, "fold", forfeit, (), False, 0)))
    _acted(hand, i)


def kill(hand: Hand, i: int) -> None:
    """A dead hand, in turn or not: a floor decision (at-seat rule, penalty, a fold out of
    turn, which is binding: PVB 37(5)). His chips stay in the pot."""
    verify_kill(hand, i)
    hand.folded[i] = True
    hand._can_bet[i] = False
    hand._live_count -= 1
    if not hand.all_in[i]:
        hand._betting_count -= 1
    hand._to_act[i] = False
    record_act(hand, i, "kill")
    if hand._live_count == 1:
        if hand.stage is _BETTING:
            end_round(hand)
        else:
            hand.bets = [0] * hand.n
            award_uncontested(hand)
    elif hand.stage is _BETTING:
        continue_from(hand, i + 1 if hand.actor == i else hand.actor or 0)


def check(hand: Hand, i: int) -> None:
    verify_check(hand, i)
    record_act(hand, i, "check")
    _acted(hand, i)


def call(hand: Hand, i: int) -> None:
    verify_call(hand, i)
    amount = to_call(hand, i)
    _put_in(hand, i, amount)
    record_act(hand, i, "call", amount, all_in=hand.all_in[i])
    _acted(hand, i)


def check_or_call(hand: Hand, i: int) -> None:
    """PHH's ``cc``: a check when nothing is owed, else a call. (Every other action of a
    replay: `verify_turn`'s own first test, `to_call`, `_put_in` and `_acted` are written
    out here rather than called.)"""
    if not (hand.actor == i and hand.stage is _BETTING and not hand.folded[i]):
        verify_turn(hand, i)  # (raises: not his turn)
    # He is the player to act, so he can still bet himself: the amount owed is up to the
    # current bet while someone else can too (`to_call`, written out).
    bets = hand.bets
    owed = (hand.current_bet if hand._betting_count > 1 else target(hand, i)) - bets[i]
    if owed > 0:
        stacks = hand.stacks
        amount = owed if owed < stacks[i] else stacks[i]
        stacks[i] -= amount
        bets[i] += amount
        hand.contributions[i] += amount
        all_in = stacks[i] == 0
        if all_in:
            hand.all_in[i] = True
            hand._can_bet[i] = False
            hand._betting_count -= 1
        hand.log.append(_new_act(Act, (hand.street, i, "call", amount, (), all_in, 0)))
    else:
        hand.log.append(_new_act(Act, (hand.street, i, "check", 0, (), False, 0)))
    hand._to_act[i] = False
    hand._acted_at[i] = hand.current_bet
    if hand._live_count == 1:
        end_round(hand)
    else:
        continue_from(hand, i + 1)


def bet_or_raise_to(hand: Hand, i: int, amount: int) -> None:
    """Bet or raise to ``amount`` in total this round (what the dealer announces)."""
    verify_bet_or_raise_to(hand, i, amount)
    kind = "bet" if hand.current_bet == 0 else "raise"
    increment = amount - hand.current_bet
    if hand.current_bet == 0 or increment >= hand.min_raise:
        hand.min_raise = max(hand.min_raise, increment)  # a full bet or raise
        if (increment >= hand.min_raise and hand.full_bets == SPLIT_LIMIT_RAISES
                and hand._live_count <= 2):
            hand._uncapped = True  # CG Raise: only two left before the third raise
        hand.full_bets += increment >= hand.min_raise  # an all-in bet for less is not one
    _put_in(hand, i, amount - hand.bets[i])
    hand.current_bet = amount
    street = hand.street
    hand.aggressor[street] = i
    hand._to_act = to_act = hand._can_bet.copy()  # every other who can still bet acts again
    to_act[i] = False  # (`_acted`, written out)
    hand._acted_at[i] = amount
    hand.log.append(_new_act(Act, (street, i, kind, amount, (), hand.all_in[i], 0)))
    if hand._live_count == 1:
        end_round(hand)
    else:
        continue_from(hand, i + 1)


def _put_in(hand: Hand, i: int, amount: int) -> None:
    hand.stacks[i] -= amount
    hand.bets[i] += amount
    hand.contributions[i] += amount
    if hand.stacks[i] == 0 and not hand.all_in[i]:
        hand.all_in[i] = True
        hand._can_bet[i] = False
        hand._betting_count -= 1


def _acted(hand: Hand, i: int) -> None:
    hand._to_act[i] = False
    hand._acted_at[i] = hand.current_bet
    if hand._live_count == 1:
        end_round(hand)
        return
    continue_from(hand, i + 1)


# ---------------------------------------------------------------- the round's course

def continue_from(hand: Hand, start: int) -> None:
    """Hand the action to the next player who must act, or close the round. A player must act
    when he can still bet and faces more than he put in, or has not acted since the last bet
    while someone else can still bet. (This runs after every action: the replay's hottest
    step.)"""
    to_act = hand._to_act
    if hand._betting_count > 1:  # someone else can still bet, for anyone who can himself
        # Then the players who must act are exactly those marked in ``_to_act``: a round's
        # start and every bet or raise mark each other player who can still bet (so one
        # who faces more than he put in is marked too), only his own action (or a dead
        # hand) clears his mark, and one who folded or is all-in is never marked. The first
        # mark from ``start`` round the table is the next actor, found by the list's own
        # search in C rather than a loop over the seats
        # (tests/engine/test_next_actor_property.py holds it to the rule's wording).
        if True in to_act:
            try:
                hand.actor = to_act.index(True, start)
            except ValueError:  # (none after him: round the table)
                hand.actor = to_act.index(True)
            hand.stage = _BETTING
            return
    else:
        n = hand.n
        can_bet, bets = hand._can_bet, hand.bets
        order = _SEAT_ORDERS[n][start] if n < _MOST_SEATS else _seat_order(n, start)
        for j in order:
            if can_bet[j] and bets[j] < target(hand, j):
                hand.actor = j
                hand.stage = _BETTING
                return
    end_round(hand)


def _seat_order(n: int, start: int) -> tuple[int, ...]:
    """The players from ``start`` on, around a hand of ``n`` (``start`` may be ``n``: 0)."""
    return tuple((start + k) % n for k in range(n))


# The orders `continue_from` walks, made once: _SEAT_ORDERS[n][start] (no modulo per seat).
_MOST_SEATS = 11
_SEAT_ORDERS = tuple(tuple(_seat_order(n, s) for s in range(n + 1)) if n else ()
                     for n in range(_MOST_SEATS))


def end_round(hand: Hand) -> None:
    """Close the betting round: return an uncalled bet, then await cards or settle."""
    hand.actor = None
    ordered = sorted(hand.bets, reverse=True)
    if ordered[0] > ordered[1]:
        top = hand.bets.index(ordered[0])
        excess = ordered[0] - ordered[1]
        hand.bets[top] -= excess
        hand.stacks[top] += excess
        hand.contributions[top] -= excess
        if hand.all_in[top] and not hand.folded[top]:
            hand.all_in[top] = False
            hand._can_bet[top] = True
            hand._betting_count += 1
        record_act(hand, top, "return", excess)
    hand.bets = [0] * hand.n
    if hand._live_count == 1:
        award_uncontested(hand)
    elif hand.street is _RIVER:
        hand.stage = _SHOWDOWN
    else:
        hand.stage = _DEALING


def start_round(hand: Hand) -> None:
    """A new street's betting round, once its board cards are out."""
    if hand.variant == "flip":  # CG Spielvarianten: the board without any betting
        hand.stage = _SHOWDOWN if hand.street is _RIVER else _DEALING
        return
    hand.current_bet = 0
    hand.min_raise = hand.setup.min_bet
    if hand.betting == "split-limit":
        hand.min_raise = hand.setup.limit_bet(hand.street)  # CG Limits, APSA 5.2
    hand.full_bets = 0
    hand._uncapped = False
    hand._acted_at = [None] * hand.n
    hand._to_act = hand._can_bet.copy()  # everyone who can still bet acts
    if hand._betting_count >= 2:
        continue_from(hand, 0)  # after the flop the first live player left of the button
    elif hand.street is _RIVER:
        hand.stage = _SHOWDOWN
    else:
        hand.stage = _DEALING
