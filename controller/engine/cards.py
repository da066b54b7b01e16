"""Cards as small integers, in the encoding the evaluator library uses.

A card is ``rank * 4 + suit`` with ranks ``23456789TJQKA`` and suits ``cdhs`` (so ``2c`` is 0 and
``As`` is 51). Integers keep the hot replay path cheap; text only appears at the boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.errors import FouledDeck

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = {
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight",
    "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
}

_CODES: dict[str, int] = {
    r + s: i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)
}
_CODES_OR_UNSEEN: dict[str, int | None] = {**_CODES, "??": None}
_TEXT: list[str] = [r + s for r in RANKS for s in SUITS]

DECK: tuple[int, ...] = tuple(range(52))


def parse_card(text: str) -> int:
    """``"As"`` -> 51. An unknown text is a foreign card (RULES I4)."""
    try:
        return _CODES[text]
    except KeyError:
        raise FouledDeck(f"{text!r} is not a card of a standard deck", "PVB 33") from None


def parse_cards(text: str) -> list[int | None]:
    """``"AsKs"`` -> [51, 47]; ``"????"`` -> [None, None] (cards nobody saw)."""
    if len(text) % 2:
        raise FouledDeck(f"{text!r} is not a sequence of two-character cards", "PVB 33")
    try:  # one lookup a card: the replay reads a card in every other action
        if len(text) == 4:  # (hold'em's hole cards, without a loop)
            return [_CODES_OR_UNSEEN[text[:2]], _CODES_OR_UNSEEN[text[2:]]]
        return [_CODES_OR_UNSEEN[text[k : k + 2]] for k in range(0, len(text), 2)]
    except KeyError:
        for k in range(0, len(text), 2):
            if text[k : k + 2] != "??":
                parse_card(text[k : k + 2])  # says which one is no card
        raise  # (not reached: one of them was no card)


def card_text(card: int | None) -> str:
    return "??" if card is None else _TEXT[card]


def cards_text(cards: Sequence[int | None]) -> str:
    return "".join(card_text(c) for c in cards)


def rank_of(card: int) -> int:
    """0 for a deuce ... 12 for an ace."""
    return card >> 2


def suit_of(card: int) -> int:
    """0 clubs, 1 diamonds, 2 hearts, 3 spades: also the suit order of the high-card draw (B1)."""
    return card & 3
