"""The differential tests' PokerKit with its evaluations remembered (tests/pokerkit_evaluations.py)
gives the answers PokerKit gives without: the same rank for every hand, asked with card text or
with PokerKit's own cards, the first time and again."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from pokerkit import Card, OmahaHoldemHand, StandardHighHand

from tests.pokerkit_evaluations import remember_evaluations

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def deals(seed: int, count: int, hole: int) -> list[tuple[str, str]]:
    """``count`` hole cards and five-card boards from one deck each, as card text."""
    rng = random.Random(seed)
    dealt = [rng.sample(DECK, hole + 5) for _ in range(count)]
    return [("".join(cards[:hole]), "".join(cards[hole:])) for cards in dealt]


@pytest.mark.parametrize(("kind", "hole"), [(StandardHighHand, 2), (OmahaHoldemHand, 4)])
def test_remembered_evaluations_are_pokerkits_own(monkeypatch: pytest.MonkeyPatch, kind: type,
                                                  hole: int) -> None:
    hands = deals(5, 200, hole)
    fresh = [kind.from_game(cards, board) for cards, board in hands]
    ranks = [hand.entry for hand in fresh]
    order = [a < b for a, b in pairwise(fresh)]
    remember_evaluations(monkeypatch)
    for _ in range(2):  # the first time and again
        as_text = [kind.from_game(cards, board) for cards, board in hands]
        as_cards = [kind.from_game(tuple(Card.parse(cards)), tuple(Card.parse(board)))
                    for cards, board in hands]
        for remembered in (as_text, as_cards):
            assert [hand.entry for hand in remembered] == ranks
            assert [a < b for a, b in pairwise(remembered)] == order
            assert remembered == fresh
