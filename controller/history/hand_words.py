"""A made hand in the words of a tracker-text hand history: "a pair of Aces", "two pair, Kings and
Sevens", "a straight, Ten to Ace".

The words come from phevaluator's rank alone (1, the royal flush, to 7462), whose classes are in
the classic order: within each category by the ranks that decide it, highest first. Decoding the
rank is a few integer steps, where finding the best five cards would cost a loop per shown hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from phevaluator import evaluate_cards, evaluate_omaha_cards

RANK = ("Deuce", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack",
        "Queen", "King", "Ace")
RANKS = ("Deuces", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines", "Tens",
         "Jacks", "Queens", "Kings", "Aces")
ACE = 12


def _top_of_distinct(index: int) -> int:
    """The highest rank of the ``index``-th set of five distinct ranks that is no straight,
    best first (the order of flushes and of high-card hands)."""
    for top in range(ACE, 3, -1):
        count = comb(top, 4) - 1 - (1 if top == ACE else 0)  # less the straight(s) it tops
        if index < count:
            return top
        index -= count
    raise ValueError("rank out of range")


def words(rank: int) -> str:
    """phevaluator's rank (1 best) as the hand's name."""
    if rank <= 10:
        if rank == 1:
            return "a Royal Flush"
        top = ACE - (rank - 1)
        return f"a straight flush, {_straight(top)}"
    if rank <= 166:
        return f"four of a kind, {RANKS[ACE - (rank - 11) // 12]}"
    if rank <= 322:
        index = rank - 167
        trips = ACE - index // 12
        pair = [r for r in range(ACE, -1, -1) if r != trips][index % 12]
        return f"a full house, {RANKS[trips]} full of {RANKS[pair]}"
    if rank <= 1599:
        return f"a flush, {RANK[_top_of_distinct(rank - 323)]} high"
    if rank <= 1609:
        return f"a straight, {_straight(ACE - (rank - 1600))}"
    if rank <= 2467:
        return f"three of a kind, {RANKS[ACE - (rank - 1610) // 66]}"
    if rank <= 3325:
        pairs = rank - 2468
        for high in range(ACE, 0, -1):
            if pairs // 11 < high:
                low = high - 1 - pairs // 11
                return f"two pair, {RANKS[high]} and {RANKS[low]}"
            pairs -= high * 11
        raise ValueError(f"rank {rank} is out of range")
    if rank <= 6185:
        return f"a pair of {RANKS[ACE - (rank - 3326) // 220]}"
    if rank <= 7462:
        return f"high card {RANK[_top_of_distinct(rank - 6186)]}"
    raise ValueError(f"rank {rank} is out of range")


def _straight(top: int) -> str:
    if top == 3:  # the wheel: five high
        return "Ace to Five"
    return f"{RANK[top - 4]} to {RANK[top]}"


def made_hand(hole: Sequence[int], board: Sequence[int], game: str) -> str | None:
    """The best hand of ``hole`` with the ``board`` in words; None before five cards are out
    (a hand shown before the board was complete is named at the showdown)."""
    if len(board) < 3 or not hole:
        return None
    if game == "PO":
        if len(board) < 5 or len(hole) != 4:
            return None
        return words(evaluate_omaha_cards(*board, *hole))
    return words(evaluate_cards(*board, *hole))


__all__ = ["made_hand", "words"]
