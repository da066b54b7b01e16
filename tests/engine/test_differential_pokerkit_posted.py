"""Differential test for big blinds posted out of position (CG "Blinds": a seat change two or
more seats away from the button pays the big blind; it is live and moves nobody's turn): seeded
random no-limit hold'em and pot-limit Omaha hands where one or two players past the blinds post
a big blind, played in lockstep through this engine and PokerKit (pinned 0.7.7), whose "post
bet" (a negative value in ``blinds_or_straddles``) is the same live blind that leaves the order
of play alone. Before every action both must agree on who acts, the amount to call, whether a
fold, a bet or a raise is possible and the largest raise; at the end on every finishing stack.
2,000 hands by default (a few seconds); DIFFERENTIAL_POSTED_HANDS=30000 for a deeper hunt.

The differences the straddle test names are set aside the same way (its ``act``): R3 (PVB
42(6)), odd chips over several winners or pots (PVB 62, 63(2)); no stack here is short of its
blind, and a fold when checking is possible is never chosen. The hand is played out by the
straddle test's `play_out_straddled`.
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

HANDS = int(os.environ.get("DIFFERENTIAL_POSTED_HANDS", "2000"))


def new_states(rng: random.Random) -> tuple[Hand, State, tuple[int, ...]]:
    game = rng.choice(["NT", "PO"])
    n = rng.randint(3, 9 if game == "NT" else 6)
    bb = rng.choice([2, 100, 200, 1000])
    # Who posts: one or two players past the blinds (the button too), each a big blind
    posted = tuple(sorted(rng.sample(range(2, n), rng.randint(1, min(2, n - 2)))))
    blinds = [bb // 2, bb] + [bb if k in posted else 0 for k in range(2, n)]
    antes = lockstep.Antes.draw(rng, n, bb)
    stacks = [rng.randint(bb + antes.amount + 1, rng.choice([3, 10, 40]) * bb)
              for _ in range(n)]
    hand = Hand(HandSetup(
        game=game, min_bet=bb, big_blind=bb, dead_antes=not antes.uniform,
        posted=posted,
        players=[PlayerSetup(label=f"p{k + 1}", stack=s, ante=a, blind=b)
                 for k, (s, a, b) in enumerate(zip(stacks, antes.each, blinds, strict=True))],
    ))
    theirs = tuple(-b if k in posted else b for k, b in enumerate(blinds))  # "post bet"
    kind_of_game = NoLimitTexasHoldem if game == "NT" else PotLimitOmahaHoldem
    state = kind_of_game.create_state(lockstep.AUTOMATIONS, antes.uniform, tuple(antes.each),
                                      theirs, bb, tuple(stacks), n)
    return hand, state, posted


def play_one(rng: random.Random, seen: Counter[str]) -> None:
    hand, state, posted = new_states(rng)
    seen[f"{len(posted)} posted"] += 1
    # The post moves nobody's turn: the first to act preflop is left of the big blind (the
    # first decision then compares PokerKit's actor with ours, `act`)
    first = hand.options()
    assert first is not None and first.player == 2 % hand.n
    play_out_straddled(rng, hand, state, seen)


@pytest.mark.long(30)
@pytest.mark.usefixtures("pokerkit_remembered")
def test_posted_big_blinds_agree_with_pokerkit_post_bets() -> None:
    seen = lockstep.play_seeded(play_one, HANDS)
    assert seen["hands compared"] > 0.9 * HANDS
    assert seen["1 posted"] > 0 and seen["2 posted"] > 0 and seen["decisions agreed"] > 0, seen
