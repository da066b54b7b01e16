"""Differential test for split limit (CG "Limits", "Raise"): seeded random hands of fixed-limit
hold'em and Omaha played in lockstep through this engine and PokerKit (pinned 0.7.7;
``FixedLimitTexasHoldem``, and for Omaha the same streets with Omaha hands, which PokerKit
builds but does not name: its ``FixedLimitOmahaHoldemHighLowSplitEightOrBetter`` is hi/lo and
pot-limit). Before every action both must agree on who acts, the amount to call, whether a fold
is possible, whether a bet or raise is possible and its one size, and refuse a wrong size; at
the end both must agree on every finishing stack. 2,000 hands by default (a few seconds);
DIFFERENTIAL_LIMIT_HANDS=20000 for a deeper local hunt.

Where the books make us differ from PokerKit, the difference is named, checked to be exactly
that difference, and then left out of the comparison (the hand goes on with an action both
allow):
- CG Raise, preflop: the big blind is the round's bet, so three raises cap it at four big
  blinds; PokerKit counts four raises after the blinds (five big blinds).
- CG Raise, heads-up: two players left before the third raise may raise without limit;
  PokerKit caps every round at four bets and raises.
- CG Unvollständiges Raise: an all-in for less than a full bet or raise is not a raise, so it
  is not one of the three; PokerKit counts it.
- R3 (PVB 42(6), CG Unvollständiges Raise): a player who already acted (a check too) and faces
  less than a full raise in all may only call or fold, also when the round's first bet or raise
  was the all-in for less; PokerKit counts that one from nothing, so it reopens the round for
  everyone. (The same holds in no-limit; the no-limit test only plays our legal actions, so it
  never asks.)
The count behind each is compared as well: PokerKit's count of bets and raises this round must
equal our full bets and raises, less the big blind preflop, plus the short all-ins.
The differences the no-limit test sets aside (short blinds, a fold with nothing to call, odd
chips over several winners or pots: see test_differential_pokerkit.py) are set aside here too.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass

import pytest
from pokerkit import (
    FixedLimitPokerMixin,
    FixedLimitTexasHoldem,
    Holdem,
    OmahaHoldemHand,
    OmahaHoldemMixin,
    State,
)

from controller.engine.hand import Hand, HandSetup, PlayerSetup, Street
from tests.engine import pokerkit_lockstep as lockstep

HANDS = int(os.environ.get("DIFFERENTIAL_LIMIT_HANDS", "2000"))


class FixedLimitOmahaHoldem(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):
    """Fixed-limit Omaha high: PokerKit's hold'em streets, four hole cards, Omaha hands."""

    hand_types = (OmahaHoldemHand,)


def new_states(rng: random.Random) -> tuple[Hand, State]:
    game = rng.choice(["NT", "PO"])
    n = rng.randint(2, 9 if game == "NT" else 6)
    bb = rng.choice([2, 100, 200, 1000])
    sb = bb // 2
    # Our order: the first seat left of the button first (heads-up: the big blind), the button
    # last. PokerKit reads heads-up lists reversed (phh-std).
    antes = lockstep.Antes.draw(rng, n, bb, big_blind_seat=1 if n > 2 else 0)
    blinds = [sb, bb] + [0] * (n - 2) if n > 2 else [bb, sb]
    # Short stacks often (all-ins for less than a bet), never short of the blinds (R4).
    stacks = [rng.randint(bb + antes.amount + 1, rng.choice([4, 12, 40]) * bb) for _ in range(n)]
    hand = Hand(HandSetup(
        game=game, betting="split-limit", min_bet=bb, big_blind=bb,
        players=[PlayerSetup(label=f"p{k + 1}", stack=s, ante=a, blind=b)
                 for k, (s, a, b) in enumerate(zip(stacks, antes.each, blinds, strict=True))],
        dead_antes=not antes.uniform,
    ))
    order = (lambda xs: xs[::-1]) if n == 2 else (lambda xs: xs)
    kind = FixedLimitTexasHoldem if game == "NT" else FixedLimitOmahaHoldem
    state = kind(lockstep.AUTOMATIONS, antes.uniform, tuple(order(antes.each)),
                 tuple(order(blinds)), bb, 2 * bb)(tuple(stacks), n)
    return hand, state


def play_one(rng: random.Random, seen: Counter[str]) -> None:
    hand, state = new_states(rng)
    cards = lockstep.deal_holes(rng, hand, state)
    # this round: all-ins for less than a full bet or raise, and whether the first bet or
    # raise (after the blinds) was one
    round_ = Round()
    street = hand.street

    def decide() -> None:
        nonlocal street, round_
        if hand.street is not street:
            street, round_ = hand.street, Round()
        act(rng, hand, state, round_, seen)

    lockstep.play_out(hand, state, decide, lambda: lockstep.deal_street(hand, state, cards))
    lockstep.compare_stacks(hand, state, seen)


@dataclass
class Round:
    shorts: int = 0  # all-ins for less than a full bet or raise
    first_short: bool = False  # the first bet or raise after the blinds was one
    raised: bool = False  # a bet or raise was made (blinds aside)


def act(rng: random.Random, hand: Hand, state: State, round_: Round, seen: Counter[str]) -> None:
    """One decision, compared, then made in both."""
    options = lockstep.agreed_options(hand, state)
    i = options.player
    ours = options.min_raise_to
    assert ours == options.max_raise_to
    theirs = state.min_completion_betting_or_raising_to_amount
    assert theirs == state.max_completion_betting_or_raising_to_amount
    # PokerKit's count of bets and raises this round, and ours (full ones, the big blind as the
    # preflop bet): the two caps differ only by what the CG says.
    blind_bet = 1 if hand.street is Street.PREFLOP else 0
    count = state.completion_betting_or_raising_count
    assert count == hand.full_bets - blind_bet + round_.shorts
    if (ours is None) != (theirs is None):
        seen[explain(hand, i, ours is None, count >= 4, round_)] += 1
        ours = theirs = None  # the hand goes on with what both allow
    else:
        assert ours == theirs
        seen["decisions agreed"] += 1
    if ours is not None:
        wrong = ours + rng.choice([-1, 1]) * rng.randint(1, hand.setup.min_bet)
        assert hand.can("bet_or_raise_to", i, wrong) == state.can_complete_bet_or_raise_to(wrong)
    choices = ["cc"] * 5 + (["f"] if options.to_call else []) + (["r"] * 5 if ours else [])
    choice = rng.choice(choices)
    if choice == "r":
        assert ours is not None
        short = ours - hand.current_bet < hand.min_raise
        round_.first_short = round_.first_short or (short and not round_.raised)
        round_.shorts += short
        round_.raised = True
    lockstep.make(hand, state, i, choice, ours)


def explain(hand: Hand, i: int, ours_refuses: bool, pk_capped: bool, round_: Round) -> str:
    """The named difference behind a bet or raise one side allows and the other refuses."""
    if ours_refuses and not hand.capped():
        # R3 (PVB 42(6), CG Unvollständiges Raise): a player who already acted, facing less
        # than a full raise in all, may not raise. PokerKit counts a first bet or raise from
        # nothing, so an all-in for less that opens the round reopens it for everyone.
        assert not hand.betting_reopened(i) and round_.first_short
        return "R3: an all-in for less opening the round does not reopen it (PokerKit: it does)"
    assert hand.capped() != pk_capped
    if ours_refuses:
        # CG Raise: the big blind is the bet; three raises cap the preflop round
        assert hand.street is Street.PREFLOP and round_.shorts == 0
        return "CG Raise: preflop capped at three raises (PokerKit allows four)"
    if hand.full_bets > 3:
        return "CG Raise: two players left before the third raise, no cap (PokerKit caps)"
    assert round_.shorts > 0
    return "CG Unvollständiges Raise: a short all-in is not one of the raises (PokerKit counts it)"



@pytest.mark.long(20)
@pytest.mark.usefixtures("pokerkit_remembered")
def test_split_limit_agrees_with_pokerkit_fixed_limit() -> None:
    seen = lockstep.play_seeded(play_one, HANDS)
    assert seen["hands compared"] > 0.9 * HANDS
    # every named difference came up, so none of them is dead code in this test
    assert all(n > 0 for n in seen.values()) and len(seen) >= 5, seen
