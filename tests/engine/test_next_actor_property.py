"""Who acts next, against the rule's own wording (PVB 36, 42(6)(7)): after every action of random
hands, the engine's player to act is the first player after the one who acted who must still
act, and a round closes only when nobody must.

The engine finds the next actor from its own marks (`continue_from`, issue 37). This test keeps
its own account, in the rule's terms, of who has acted since the last bet or raise, and asks the
question directly: a player must act when he can still bet (neither folded nor all-in) and either
faces more than he has put in, or has not acted since the last bet or raise while somebody else
can still bet. Short all-ins (which do not reopen the betting), blinds that put a player all-in,
and dead hands (`kill`, out of turn) come often, for they are where a mark could go stale.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.hand import Hand, Stage
from controller.engine.terms import PlainPlayer, PlainSetup


def _must_act(hand: Hand, j: int, acted: set[int]) -> bool:
    if hand.folded[j] or hand.all_in[j]:
        return False
    others_can_bet = any(not hand.folded[k] and not hand.all_in[k]
                         for k in range(hand.n) if k != j)
    if others_can_bet:
        return hand.bets[j] < hand.current_bet or j not in acted
    return hand.bets[j] < hand.target(j)  # alone: only a bet to match, nothing to reopen


def _expected_actor(hand: Hand, after: int, acted: set[int]) -> int | None:
    for k in range(1, hand.n + 1):
        j = (after + k) % hand.n
        if _must_act(hand, j, acted):
            return j
    return None


def _check_bookkeeping(hand: Hand) -> None:
    can_bet = [not f and not a for f, a in zip(hand.folded, hand.all_in, strict=True)]
    assert hand._can_bet == can_bet
    assert hand._betting_count == sum(can_bet)
    assert hand._live_count == hand.n - sum(hand.folded)


@settings(max_examples=300)
@given(st.data(), st.integers(2, 9))
def test_the_next_actor_is_the_first_who_must_still_act(data: st.DataObject, n: int) -> None:
    stacks = [data.draw(st.integers(1, 400), label=f"stack {k}") for k in range(n)]
    blinds = [10, 20] + [0] * (n - 2) if n > 2 else [20, 10]
    ante = data.draw(st.sampled_from([0, 0, 5]), label="ante")
    hand = Hand(PlainSetup(
        players=tuple(PlainPlayer(f"P{k + 1}", stacks[k], ante, blinds[k]) for k in range(n)),
        min_bet=20))
    deck = iter(data.draw(st.permutations(range(52)), label="deck"))
    for i in range(n):
        hand.deal_hole(i, [next(deck), next(deck)])
    acted: set[int] = set()  # who has acted since the last bet or raise of this round
    street = hand.street
    last: int | None = None  # preflop, the first to act is the blinds' business
    _check_bookkeeping(hand)
    while hand.stage is not Stage.OVER:
        if hand.street != street:  # a new round: nobody has acted in it yet, and the first
            street, acted, last = hand.street, set(), -1  # from left of the button acts
        if hand.stage is Stage.BETTING:
            assert hand.actor is not None
            if last is not None:
                assert hand.actor == _expected_actor(hand, last, acted)
            i = hand.actor
            options = hand.options()
            assert options is not None
            moves = ["check_or_call", "fold", "kill"]
            if options.min_raise_to is not None:
                moves += ["raise", "raise"]
            move = data.draw(st.sampled_from(moves), label="move")
            if move == "kill":  # a dead hand, the player to act or anyone still live
                killed = data.draw(st.sampled_from(hand.live), label="killed")
                hand.kill(killed)
            elif move == "fold":
                hand.fold(i)
            elif move == "check_or_call":
                hand.check_or_call(i)
                acted.add(i)
            else:
                assert options.min_raise_to is not None and options.max_raise_to is not None
                to = data.draw(st.sampled_from([options.min_raise_to, options.max_raise_to]),
                               label="to")
                hand.bet_or_raise_to(i, to)
                acted = {i}
            # the search for the next actor starts after the one who acted; after a dead
            # hand out of turn, at the player to act himself (he keeps his turn if he must)
            last = i if move != "kill" or killed == i else (i - 1) % n
            _check_bookkeeping(hand)
            if hand.stage is not Stage.BETTING and hand._betting_count > 1:
                # the round closed while two or more could still bet: each has acted since
                # the last bet or raise (the bets themselves are cleared by then)
                assert all(j in acted for j in range(hand.n) if hand._can_bet[j])
        elif hand.stage is Stage.DEALING:
            hand.deal_board([next(deck) for _ in range(3 if not hand.board else 1)])
            _check_bookkeeping(hand)
        else:
            hand.settle()
    assert sum(hand.stacks) == sum(stacks)
