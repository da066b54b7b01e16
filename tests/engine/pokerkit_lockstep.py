"""One hand played in lockstep through this engine and PokerKit (pinned 0.7.7), for the
differential tests (tests/engine/test_differential_pokerkit_*.py): PokerKit's automations, the
hands played from their seeds, the antes drawn, the cards dealt in both, each decision's common
checks and the action made in both, the showdown, and the finishing stacks compared. What a
test compares before an action and the differences it names (its own `act`) stay with the test
(the straddle test's, which the posted-blind test plays its hands with too, is in
tests/engine/pokerkit_helpers.py). The tests ask PokerKit with its evaluations remembered
(the `pokerkit_remembered` fixture, tests/pokerkit_evaluations.py)."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from pokerkit import Automation, State

from controller.engine.cards import card_text
from controller.engine.hand import HOLE_CARDS, Hand, PotResult, Stage
from controller.engine.terms import Options

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def play_seeded(play_one: Callable[[random.Random, Counter[str]], None], hands: int
                ) -> Counter[str]:
    """``hands`` hands, hand k played by ``play_one`` from ``random.Random(k)`` (a failure names
    k, to play that hand again alone); what the hands saw, printed with the time they took."""
    seen: Counter[str] = Counter()
    started = time.perf_counter()
    for k in range(hands):
        try:
            play_one(random.Random(k), seen)
        except AssertionError as exc:
            raise AssertionError(f"hand {k} (random.Random({k})): {exc}") from exc
    print(f"{hands} hands in {time.perf_counter() - started:.1f} s: {dict(seen)}")
    return seen


@dataclass(frozen=True)
class Antes:
    """The antes drawn for a hand: none, the same from everyone, or a big-blind ante."""

    amount: int  # each ante's size (0: none)
    each: list[int]  # in action order (the first seat left of the button first)
    uniform: bool  # everyone's: PokerKit returns a lone one (its ante trimming); else dead

    @classmethod
    def draw(cls, rng: random.Random, n: int, bb: int, big_blind_seat: int = 1) -> Antes:
        kind = rng.choice(["none", "none", "uniform", "bb-ante"])
        amount = 0 if kind == "none" else rng.choice([bb // 4 or 1, bb // 2 or 1, bb])
        each = [amount] * n if kind == "uniform" else [0] * n
        if kind == "bb-ante":
            each[big_blind_seat] = amount
        return cls(amount, each, kind == "uniform")


def cards_text(cards: Iterable[int]) -> str:
    return "".join(card_text(c) for c in cards)


def deal_holes(rng: random.Random, hand: Hand, state: State) -> Iterator[int]:
    """A deck shuffled by ``rng``, every player's hole cards dealt from it in both; the rest of
    the deck, for the boards."""
    deck = list(range(52))
    rng.shuffle(deck)
    cards = iter(deck)
    for i in range(hand.n):
        dealt = [next(cards) for _ in range(HOLE_CARDS[hand.game])]
        hand.deal_hole(i, list(dealt))
        state.deal_hole(cards_text(dealt))
    return cards


def deal_street(hand: Hand, state: State, cards: Iterator[int]) -> None:
    """The next street of the one board in both (PokerKit burns a card first)."""
    board = [next(cards) for _ in range(3 if not hand.board else 1)]
    hand.deal_board(board)
    state.burn_card("??")  # the burn is not read; PokerKit's own deck must not give it
    state.deal_board(cards_text(board))


def play_out(hand: Hand, state: State, act: Callable[[], None],
             deal: Callable[[], None]) -> None:
    """The hand to its end in both: ``deal`` when cards are due, ``act`` for each decision,
    every hand shown at the showdown in our order (PVB 55) and the pots settled; then PokerKit
    shows what it still asks for, and must be done too."""
    while hand.stage is not Stage.OVER:
        if hand.stage is Stage.DEALING:
            deal()
        elif hand.stage is Stage.SHOWDOWN:
            for i in hand.showdown_order():
                hand.show(i, list(hand.hole[i]))
            hand.settle()
        else:
            act()
    while state.status and state.can_show_or_muck_hole_cards(True):
        state.show_or_muck_hole_cards(True)
    assert not state.status, "PokerKit did not finish the hand"


def odd_chips_apart(results: list[PotResult]) -> bool:
    """Whether odd chips go over several winners or pots, which both engines share their own
    way (PVB 62, 63(2); see test_differential_pokerkit.py): one odd chip of one pot aside."""
    odd = [r for r in results if len(r.winners) > 1 and r.amount % len(r.winners)]
    return bool(odd) and not (len(results) == 1 and odd[0].amount % len(odd[0].winners) == 1)


def compare_stacks(hand: Hand, state: State, seen: Counter[str]) -> None:
    """Every finishing stack the same in both, unless odd chips were shared apart (counted)."""
    if odd_chips_apart(hand.results):
        seen["set aside: odd chips over several winners or pots"] += 1
        return
    assert hand.stacks == [int(s) for s in state.stacks]
    seen["hands compared"] += 1


def agreed_options(hand: Hand, state: State) -> Options:
    """Our options for the next decision, once PokerKit agrees on who acts and the amount to
    call, and, with chips to call, that a fold is possible."""
    options = hand.options()
    assert options is not None and options.player == state.actor_index
    assert options.to_call == state.checking_or_calling_amount
    if options.to_call:
        assert state.can_fold()
    return options


def make(hand: Hand, state: State, i: int, choice: str, amount: int | None = None) -> None:
    """Player ``i``'s action in both: "f" folds, "cc" checks or calls, "r" bets or raises to
    ``amount``."""
    if choice == "f":
        hand.fold(i)
        state.fold()
    elif choice == "cc":
        hand.check_or_call(i)
        state.check_or_call()
    else:
        assert choice == "r" and amount is not None
        hand.bet_or_raise_to(i, amount)
        state.complete_bet_or_raise_to(amount)
