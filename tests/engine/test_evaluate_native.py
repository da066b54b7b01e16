"""The evaluator calls phevaluator's native functions with our card numbers (issue 37: its
public wrapper converted every card in Python first). Both must rank every hand alike (RULES S6,
APSA 5.1)."""

from __future__ import annotations

import random

import pytest
from phevaluator import evaluate_cards, evaluate_omaha_cards

from controller.engine.evaluate import WORST_RANK, holdem_strength, omaha_strength


def test_holdem_native_ranks_as_the_public_evaluator() -> None:
    rng = random.Random(37)
    for _ in range(3000):
        count = rng.choice((5, 6, 7))
        cards = rng.sample(range(52), count)
        hole, board = cards[:2], cards[2:]
        assert holdem_strength(hole, board) == WORST_RANK + 1 - evaluate_cards(*board, *hole)


def test_omaha_native_ranks_as_the_public_evaluator() -> None:
    rng = random.Random(38)
    for _ in range(3000):
        cards = rng.sample(range(52), 9)
        hole, board = cards[:4], cards[4:]
        assert omaha_strength(hole, board) == (
            WORST_RANK + 1 - evaluate_omaha_cards(*board, *hole))


def test_a_wrong_number_of_cards_is_refused_not_read_past() -> None:
    with pytest.raises(ValueError, match="4 cards"):
        holdem_strength([0, 1], [2, 3])
    with pytest.raises(ValueError, match="Omaha"):
        omaha_strength([0, 1, 2, 3], [4, 5, 6, 7])
