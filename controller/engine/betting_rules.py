"""What the player to act may do in a betting round, and why not: what he owes, the smallest and
largest bet or raise (no-limit, pot-limit, split limit: CG Limits), whether the betting is
reopened for him (PVB 42(6)(7)) or capped (CG Raise), and the checks of each betting action,
which raise a `RuleViolation` naming the rule and change nothing.

Functions of a `Hand`, which carries them as its methods (`hand.to_call(i)`, `hand.options()`,
`hand.verify_check(i)`); the betting actions themselves are `controller.engine.betting_round`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.engine.terms import SPLIT_LIMIT_RAISES, STREET_NAMES, Options, Stage, Street
from controller.errors import HandStateError, IllegalAmount, NotYourTurn, RuleViolation

if TYPE_CHECKING:
    from controller.engine.hand import Hand

# Enum members as module globals: every action tests the stage and street (issue 37).
_BETTING, _OVER = Stage.BETTING, Stage.OVER
_PREFLOP = Street.PREFLOP


def others_can_bet(hand: Hand, i: int) -> bool:
    mine = 0 if hand.folded[i] or hand.all_in[i] else 1
    return hand._betting_count - mine > 0


def raise_has_callers(hand: Hand, i: int) -> bool:
    """Somebody else could still put in more than the current bet: a raise means something."""
    folded, all_in, bets, stacks = hand.folded, hand.all_in, hand.bets, hand.stacks
    current = hand.current_bet
    for j in range(hand.n):  # (a loop, not any() over a generator: every bet asks)
        if j != i and not folded[j] and not all_in[j] and bets[j] + stacks[j] > current:
            return True
    return False


def target(hand: Hand, i: int) -> int:
    """The bet player ``i`` must reach to stay in: the current bet, or only the largest other
    live bet when nobody else could act on anything more."""
    if others_can_bet(hand, i):
        return hand.current_bet
    others = [hand.bets[j] for j in range(hand.n) if j != i and not hand.folded[j]]
    return min(hand.current_bet, max(others, default=0))


def to_call(hand: Hand, i: int) -> int:
    # `target` inlined for the common case, somebody else can still bet (every call and
    # check of a replay asks this)
    mine = 0 if hand.folded[i] or hand.all_in[i] else 1
    owed = (hand.current_bet if hand._betting_count > mine else target(hand, i)) - hand.bets[i]
    if owed <= 0:
        return 0
    stack = hand.stacks[i]
    return owed if owed < stack else stack


def betting_reopened(hand: Hand, i: int) -> bool:
    """Whether ``i`` may raise: he has not acted this round, or faces at least a full raise
    in total since he acted (PVB 42(6)(7); several short all-ins add up)."""
    acted_at = hand._acted_at[i]
    return acted_at is None or hand.current_bet - acted_at >= hand.min_raise


def min_raise_to(hand: Hand, i: int) -> int:
    """The smallest legal bet or raise total for ``i`` (ignoring his stack). In split limit
    the only one: one bet of the street over the current bet (CG Limits), also over an
    all-in for less (where the CG is silent: as PokerKit and in no-limit)."""
    if hand.current_bet == 0:
        if hand.betting == "split-limit":
            return hand.setup.limit_bet(hand.street)
        return hand.setup.min_bet
    return hand.current_bet + hand.min_raise


def max_raise_to(hand: Hand, i: int) -> int:
    """All-in in no-limit; the pot in pot-limit (call first, then raise the pot: RULES R1);
    the one size in split limit (CG Limits)."""
    everything = hand.bets[i] + hand.stacks[i]
    if hand.betting == "pot-limit":
        call = hand.current_bet - hand.bets[i]
        pot_limit = hand.current_bet + hand.pot_total() + call
        return min(everything, pot_limit)
    if hand.betting == "split-limit":
        return min(everything, min_raise_to(hand, i))
    return everything


def capped(hand: Hand) -> bool:
    """Split limit: a bet and three raises made this round, with more than two players
    left before the third raise (CG Raise; heads-up the raises are not limited)."""
    return (hand.betting == "split-limit" and not hand._uncapped
            and hand.full_bets > SPLIT_LIMIT_RAISES)


def options(hand: Hand) -> Options | None:
    """The legal choices of the player to act, or None when nobody is to act."""
    i = hand.actor
    if i is None:
        return None
    low: int | None = None
    high: int | None = None
    everything = hand.bets[i] + hand.stacks[i]
    if everything > hand.current_bet and raise_has_callers(hand, i) and (
        betting_reopened(hand, i)
    ) and not capped(hand):
        high = max_raise_to(hand, i)
        low = min(min_raise_to(hand, i), high)
    return Options(i, to_call(hand, i), low, high)


# ---------------------------------------------------------------- the checks of each action

def verify_turn(hand: Hand, i: int) -> None:
    if hand.actor == i and hand.stage is _BETTING and not hand.folded[i]:
        return  # (the player to act: what every check below would pass, in one test)
    if not 0 <= i < hand.n:
        raise NotYourTurn(f"there is no player {i + 1} in this hand", "PVB 36")
    if hand.stage is _OVER:
        raise HandStateError(f"{hand.labels[i]} acted, but the hand is over", "PVB 64(1)")
    if hand.folded[i]:
        raise NotYourTurn(f"{hand.labels[i]} has folded and cannot act", "PVB 39")
    if hand.stage is not _BETTING:
        raise HandStateError(
            f"{hand.labels[i]} acted, but the {STREET_NAMES[hand.street]} betting is over",
            "PVB 36",
        )
    if hand.actor != i:
        assert hand.actor is not None
        raise NotYourTurn(
            f"{hand.labels[i]} acted out of turn: it is {hand.labels[hand.actor]}'s turn",
            "PVB 36, 37",
        )


def verify_fold(hand: Hand, i: int, forfeit: int = 0) -> None:
    verify_turn(hand, i)
    if not forfeit:
        return
    short_of_the_call = 0 < forfeit < hand.stacks[i] and (
        hand.bets[i] + forfeit < target(hand, i)
    )
    if forfeit and not short_of_the_call:
        raise IllegalAmount(
            f"{hand.labels[i]} can forfeit only chips short of the call, not {forfeit:,}",
            "APSA 5.4.30",
        )


def verify_check(hand: Hand, i: int) -> None:
    verify_turn(hand, i)
    owed = to_call(hand, i)
    if owed:
        raise IllegalAmount(
            f"{hand.labels[i]} cannot check: {owed:,} to call", "PVB 36"
        )


def verify_call(hand: Hand, i: int) -> None:
    verify_turn(hand, i)
    if not to_call(hand, i):
        raise IllegalAmount(f"{hand.labels[i]} has nothing to call: check", "PVB 36")


def verify_bet_or_raise_to(hand: Hand, i: int, amount: int) -> None:
    # (every bet and raise of a replay: the checks that pass call nothing they need not)
    if not (hand.actor == i and hand.stage is _BETTING and not hand.folded[i]):
        verify_turn(hand, i)
    who = hand.labels[i]
    current = hand.current_bet
    word = "bet" if current == 0 else "raise to"
    everything = hand.bets[i] + hand.stacks[i]
    if everything <= current:
        raise IllegalAmount(
            f"{who} cannot {word.split()[0]}: his {everything:,} do not exceed the "
            f"bet of {hand.current_bet:,}; he can only call all-in or fold", "PVB 42(7)"
        )
    if not raise_has_callers(hand, i):
        raise IllegalAmount(
            f"{who} cannot {word.split()[0]}: every other player is all-in or can only call; "
            "call or fold", "PVB 42(7)",
        )
    split = hand.betting == "split-limit"
    acted_at = hand._acted_at[i]  # (`betting_reopened`, written out)
    if acted_at is not None and current - acted_at < hand.min_raise:
        raise IllegalAmount(
            f"{who} cannot raise: the all-in was less than a full raise and does not reopen "
            f"the betting for a player who already acted; call or fold",
            # PVB 42(6) is for no-limit and pot-limit; the CG's rule is for every game
            "CG Unvollständiges Raise" if split else "PVB 42(6)",
        )
    if split and capped(hand):
        raise IllegalAmount(
            f"{who} cannot raise: three raises already this round; call or fold", "CG Raise"
        )
    if amount <= hand.current_bet:
        raise IllegalAmount(
            f"{word} {amount:,} does not exceed the current bet of {hand.current_bet:,}",
            "PVB 42(2)",
        )
    if amount > everything:
        raise IllegalAmount(
            f"{word} {amount:,} is more than {who} has ({everything:,} in all)", "PVB 43"
        )
    if split and amount != min(min_raise_to(hand, i), everything):
        raise IllegalAmount(_limit_refusal(hand, i, amount), "CG Limits")
    if hand.betting == "pot-limit":
        limit = max_raise_to(hand, i)
        if amount > limit:
            raise IllegalAmount(
                f"{word} {amount:,} is over the pot limit of {limit:,}", "APSA 5.2"
            )
    minimum = current + hand.min_raise if current and not split else min_raise_to(hand, i)
    if amount < minimum and amount < everything:
        if hand.current_bet == 0:
            raise IllegalAmount(
                f"bet of {amount:,} is below the minimum bet of {minimum:,}", "PVB 42(2)"
            )
        rule = "PVB 42(2)" if hand.street is _PREFLOP else "PVB 42(3)"
        raise IllegalAmount(
            f"raise to {amount:,} is below the minimum raise to {minimum:,}", rule
        )


def _limit_refusal(hand: Hand, i: int, amount: int) -> str:
    """Split limit: a bet or raise of another size than the street's (CG Limits)."""
    street = STREET_NAMES[hand.street]
    step = hand.setup.limit_bet(hand.street)
    size = min_raise_to(hand, i)
    if hand.current_bet == 0:
        words = f"bet of {amount:,}: in split limit the {street} bet is {step:,}"
    else:
        words = (f"raise to {amount:,}: in split limit a raise on the {street} is {step:,} "
                 f"more, to {size:,}")
    everything = hand.bets[i] + hand.stacks[i]
    if everything < size:
        words += f"; with {everything:,} in all, {hand.labels[i]} can only go all-in"
    return words


def verify_kill(hand: Hand, i: int) -> None:
    if not 0 <= i < hand.n:
        raise HandStateError(f"there is no player {i + 1} in this hand", "PVB 39")
    if hand.stage is _OVER:
        raise HandStateError("the hand is over", "PVB 64(1)")
    if hand.folded[i]:
        raise HandStateError(f"{hand.labels[i]} has no live hand", "PVB 39")


def can(hand: Hand, check: str, *args: int) -> bool:
    """``hand.can("bet_or_raise_to", 2, 500)``: would the action be accepted?"""
    try:
        getattr(hand, f"verify_{check}")(*args)
    except RuleViolation:
        return False
    return True
