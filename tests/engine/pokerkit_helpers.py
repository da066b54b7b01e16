"""A hand played out in lockstep with PokerKit, each decision compared as the straddle test does."""

from __future__ import annotations

import random
from collections import Counter

from pokerkit import State

from controller.engine.hand import Hand, Street
from tests.engine import pokerkit_lockstep as lockstep


def play_out_straddled(rng: random.Random, hand: Hand, state: State, seen: Counter[str]
                       ) -> None:
    """The hand set up in both engines, dealt and played to its end, every decision compared
    (`act`), then the finishing stacks (set aside where the named differences move odd chips)."""
    cards = lockstep.deal_holes(rng, hand, state)
    top = max(p.blind for p in hand.setup.players)
    lockstep.play_out(hand, state, lambda: act(rng, hand, state, top, seen),
                      lambda: lockstep.deal_street(hand, state, cards))
    lockstep.compare_stacks(hand, state, seen)


def act(rng: random.Random, hand: Hand, state: State, top: int, seen: Counter[str]) -> None:
    """One decision, compared, then made in both."""
    options = lockstep.agreed_options(hand, state)
    i = options.player
    ours = (options.min_raise_to, options.max_raise_to)
    theirs = (state.min_completion_betting_or_raising_to_amount,
              state.max_completion_betting_or_raising_to_amount)
    if hand.game == "PO" and theirs[1] is not None:
        theirs = (theirs[0], state.pot_completion_betting_or_raising_to_amount)
    if (ours[0] is None) != (theirs[0] is None):
        # R3: ours refuses a raise PokerKit allows (a round opened by an all-in for less)
        assert ours[0] is None and not hand.betting_reopened(i)
        seen["R3: an all-in for less opening the round does not reopen it"] += 1
        low = high = None
    elif ours[0] is None:
        low = high = None
        seen["decisions agreed"] += 1
    else:
        assert theirs[0] is not None and ours[1] is not None and theirs[1] is not None
        assert ours[1] == theirs[1], (ours, theirs)
        if ours[0] != theirs[0]:
            # CG Straddle: the smallest raise is the largest straddle's size until a full raise
            # is made over it; PokerKit raises by the big blind
            everything = hand.bets[i] + hand.stacks[i]
            assert hand.street is Street.PREFLOP and top > hand.setup.min_bet
            assert hand.min_raise == top and ours[0] == min(everything, hand.current_bet + top)
            assert theirs[0] < ours[0]
            seen["CG Straddle: the smallest raise is the straddle's size (PokerKit: min_bet)"] += 1
        else:
            seen["decisions agreed"] += 1
        low, high = max(ours[0], theirs[0]), ours[1]
    choices = ["cc"] * 5 + (["f"] if options.to_call else []) + (["r"] * 4 if low else [])
    choice = rng.choice(choices)
    amount = None
    if choice == "r":
        assert low is not None and high is not None
        amount = rng.choice([low, high, rng.randint(low, high)])
    lockstep.make(hand, state, i, choice, amount)
