"""Hand strength for hold'em and Omaha (RULES S6), backed by phevaluator.

phevaluator (a C extension, perfect-hash tables, no dependencies) was chosen by measurement over
eval7, treys and PokerKit's own evaluator: see ``bench/evaluators.py`` and the README. It ranks the
7,462 distinct five-card hands from 1 (royal flush) to 7462 (seven-five high); we flip that so a
larger strength wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# phevaluator's native functions, called with our card numbers (its own encoding: rank * 4 +
# suit) directly. Its public `evaluate_cards` converts each card in Python first (Card.to_id)
# and costs five times the evaluation itself; tests/engine/test_evaluate_native.py checks that
# both rank every hand alike.
from phevaluator._pheval import (
    evaluate_5cards,
    evaluate_6cards,
    evaluate_7cards,
    evaluate_omaha_cards,
)

WORST_RANK = 7462

# Upper bounds of phevaluator's rank ranges, best category first (APSA 5.1 ranking order).
_CATEGORIES: tuple[tuple[int, str], ...] = (
    (10, "straight flush"),
    (166, "four of a kind"),
    (322, "full house"),
    (1599, "flush"),
    (1609, "straight"),
    (2467, "three of a kind"),
    (3325, "two pair"),
    (6185, "one pair"),
    (7462, "high card"),
)

_BY_COUNT: dict[int, Callable[..., int]] = {
    5: evaluate_5cards, 6: evaluate_6cards, 7: evaluate_7cards,
}


def holdem_strength(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best five of the seven cards (RULES S6, APSA 5.1): any mix of hole and board cards."""
    count = len(hole) + len(board)
    if count not in _BY_COUNT:
        raise ValueError(f"{count} cards: a hand is evaluated from 5 to 7")
    rank: int = _BY_COUNT[count](*board, *hole)
    return WORST_RANK + 1 - rank


def omaha_strength(hole: Sequence[int], board: Sequence[int]) -> int:
    """Omaha: exactly two of the four hole cards and three of the five board cards (RULES S6)."""
    if len(hole) != 4 or len(board) != 5:
        raise ValueError("Omaha is evaluated from four hole cards and five board cards")
    rank: int = evaluate_omaha_cards(*board, *hole)
    return WORST_RANK + 1 - rank


def category(strength: int) -> str:
    """``"two pair"`` and so on, for the readable account of a hand."""
    rank = WORST_RANK + 1 - strength
    for bound, name in _CATEGORIES:
        if rank <= bound:
            return name
    raise ValueError(f"strength {strength} is out of range")
