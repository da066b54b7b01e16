"""The names of made hands in tracker text, decoded from phevaluator's rank: checked on one hand
of every one of the 7,462 classes against names read off the five cards themselves."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

from phevaluator import evaluate_cards

from controller.engine.cards import parse_cards
from controller.history.hand_words import RANK, RANKS, made_hand, words


def straight_top(ranks: list[int]) -> int | None:
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct == [0, 1, 2, 3, 12]:
        return 3  # the wheel: five high
    return distinct[-1] if distinct[-1] - distinct[0] == 4 else None


def named_from_the_cards(cards: list[int]) -> str:
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    groups = sorted(Counter(ranks).items(), key=lambda g: (-g[1], -g[0]))
    flush = len({c & 3 for c in cards}) == 1
    top = straight_top(ranks)
    run = None if top is None else (
        "Ace to Five" if top == 3 else f"{RANK[top - 4]} to {RANK[top]}")
    (first, n1), second = groups[0], groups[1] if len(groups) > 1 else (0, 0)
    if run and flush:
        return "a Royal Flush" if top == 12 else f"a straight flush, {run}"
    if n1 == 4:
        return f"four of a kind, {RANKS[first]}"
    if n1 == 3 and second[1] == 2:
        return f"a full house, {RANKS[first]} full of {RANKS[second[0]]}"
    if flush:
        return f"a flush, {RANK[ranks[0]]} high"
    if run:
        return f"a straight, {run}"
    if n1 == 3:
        return f"three of a kind, {RANKS[first]}"
    if n1 == 2 and second[1] == 2:
        return f"two pair, {RANKS[first]} and {RANKS[second[0]]}"
    if n1 == 2:
        return f"a pair of {RANKS[first]}"
    return f"high card {RANK[ranks[0]]}"


def test_every_class_of_five_cards_is_named_as_its_cards_say() -> None:
    ranks_seen: set[int] = set()
    for ranks in combinations_with_replacement(range(13), 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4:
            continue
        used: Counter[int] = Counter()
        mixed = []
        for k, rank in enumerate(ranks):  # suits that never make a flush
            mixed.append(rank * 4 + (used[rank] if len(counts) < 5 else k % 2))
            used[rank] += 1
        hands = [mixed] + ([[r * 4 for r in ranks]] if len(counts) == 5 else [])
        for cards in hands:
            rank = evaluate_cards(*cards)
            ranks_seen.add(rank)
            assert words(rank) == named_from_the_cards(cards), cards
    assert ranks_seen == set(range(1, 7463))


def test_hold_em_and_omaha_take_their_own_five_cards() -> None:
    board = [c for c in parse_cards("AhKhQh2c3d") if c is not None]
    ace_jack = [c for c in parse_cards("JhTh") if c is not None]
    assert made_hand(ace_jack, board, "NT") == "a Royal Flush"
    omaha = [c for c in parse_cards("JhTs4c4d") if c is not None]  # two hole cards, no flush
    assert made_hand(omaha, board, "PO") == "a straight, Ten to Ace"
    assert made_hand(omaha, board[:4], "PO") is None  # Omaha: named on a full board
