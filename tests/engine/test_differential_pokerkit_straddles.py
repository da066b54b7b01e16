"""Differential test for straddles (CG "Straddle"): seeded random no-limit hold'em and pot-limit
Omaha hands with live straddles (one to three, each twice the one before), a button straddle or
a Mississippi straddle, played in lockstep through this engine and PokerKit (pinned 0.7.7), whose
``blinds_or_straddles`` models a straddle as a blind, as we do. Before every action both must
agree on who acts, the amount to call, whether a fold, a bet or a raise is possible and the
largest raise (all-in, or the pot in pot-limit); at the end on every finishing stack. 2,000
hands by default (a few seconds); DIFFERENTIAL_STRADDLE_HANDS=30000 for a deeper hunt.

Where the books make us differ from PokerKit, the difference is named, checked to be exactly
that difference, and the hand goes on with what both allow:
- CG Straddle (a straddle is a blind, R1: "preflop at least the big blind", the straddle being
  the largest): until a full raise is made over it, the smallest raise is the largest
  straddle's size; PokerKit raises by ``min_bet`` (the big blind) over any straddle. (An all-in
  between the two is a full raise for PokerKit, not for us: the difference lasts the round.)
- R3 (PVB 42(6)): a player who already acted, facing less than a full raise in all, may only
  call or fold; PokerKit counts a round's first raise from nothing (see the split-limit test).
The differences the no-limit test sets aside are set aside here too: short blinds (no stack is
short of its blind or straddle here), a fold when checking is possible (never chosen), and odd
chips over several winners or pots (PVB 62, 63(2)).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from pokerkit import NoLimitTexasHoldem, PotLimitOmahaHoldem, State

from controller.engine.hand import Hand, HandSetup, PlayerSetup
from tests.engine import pokerkit_lockstep as lockstep
from tests.engine.pokerkit_helpers import play_out_straddled

HANDS = int(os.environ.get("DIFFERENTIAL_STRADDLE_HANDS", "2000"))


def straddled_blinds(rng: random.Random, n: int, bb: int) -> tuple[list[int], str]:
    """Blinds and straddles in action order (the first seat left of the button first, the
    button last), and the kind of straddle (CG Straddle)."""
    blinds = [bb // 2, bb] + [0] * (n - 2)
    kind = rng.choice(["live", "live", "button", "mississippi"])
    if kind == "live":
        amount = bb
        for k in range(2, 2 + rng.randint(1, min(3, n - 2))):
            amount *= 2
            blinds[k] = amount
    elif kind == "button":
        blinds[n - 1] = 2 * bb
    else:
        blinds[rng.randint(2, n - 1)] = 2 * bb
    return blinds, kind


def new_states(rng: random.Random) -> tuple[Hand, State, str]:
    game = rng.choice(["NT", "PO"])
    n = rng.randint(3, 9 if game == "NT" else 6)
    bb = rng.choice([2, 100, 200, 1000])
    blinds, kind = straddled_blinds(rng, n, bb)
    antes = lockstep.Antes.draw(rng, n, bb)
    top = max(blinds)
    stacks = [rng.randint(top + antes.amount + 1, rng.choice([3, 10, 40]) * top)
              for _ in range(n)]
    hand = Hand(HandSetup(
        game=game, min_bet=bb, big_blind=bb, dead_antes=not antes.uniform,
        players=[PlayerSetup(label=f"p{k + 1}", stack=s, ante=a, blind=b)
                 for k, (s, a, b) in enumerate(zip(stacks, antes.each, blinds, strict=True))],
    ))
    kind_of_game = NoLimitTexasHoldem if game == "NT" else PotLimitOmahaHoldem
    state = kind_of_game.create_state(lockstep.AUTOMATIONS, antes.uniform, tuple(antes.each),
                                      tuple(blinds), bb, tuple(stacks), n)
    return hand, state, kind


def play_one(rng: random.Random, seen: Counter[str]) -> None:
    hand, state, kind = new_states(rng)
    seen[f"{kind} straddles"] += 1
    play_out_straddled(rng, hand, state, seen)


@pytest.mark.usefixtures("pokerkit_remembered")
def test_straddles_agree_with_pokerkit_blinds_or_straddles() -> None:
    seen = lockstep.play_seeded(play_one, HANDS)
    assert seen["hands compared"] > 0.9 * HANDS
    assert all(n > 0 for n in seen.values()) and len(seen) >= 7, seen
