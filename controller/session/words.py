"""How the session words cards and blinds for the dealer and the screens.
"""

from __future__ import annotations

from controller.engine.cards import card_text
from controller.engine.table import Level


def blinds_text(level: Level) -> str:
    text = f"blinds {level.sb:,}/{level.bb:,}"
    if level.ante:
        text += f", ante {level.ante:,}"
    if level.bb_ante:
        text += f", big-blind ante {level.bb_ante:,}"
    return text


def spaced(cards: str) -> str:
    return " ".join(cards[i:i + 2] for i in range(0, len(cards), 2))


def card_text_list(cards: list[int | None] | list[int]) -> str:
    return "".join(card_text(c) if c is not None else "??" for c in cards)
