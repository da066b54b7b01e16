"""How the session words cards and blinds for the dealer and the screens.
"""

from __future__ import annotations

from typing import Protocol

from controller.engine.cards import card_text


class HasBlinds(Protocol):
    """A table's level, or a level of the clock's schedule (whose fields are optional)."""

    @property
    def sb(self) -> int | None: ...
    @property
    def bb(self) -> int | None: ...
    @property
    def ante(self) -> int | None: ...
    @property
    def bb_ante(self) -> int | None: ...


# What the table waits for before a street's cards where it reads burn cards (PVB 35(2)); the
# simulated dealer watches for it to go (controller/sim/hands.py).
BURN_FIRST = "burn a card, then "


def blinds_text(level: HasBlinds) -> str:
    text = f"blinds {level.sb or 0:,}/{level.bb or 0:,}"
    if level.ante:
        text += f", ante {level.ante:,}"
    if level.bb_ante:
        text += f", big-blind ante {level.bb_ante:,}"
    return text


def spaced(cards: str) -> str:
    return " ".join(cards[i:i + 2] for i in range(0, len(cards), 2))


def card_text_list(cards: list[int | None] | list[int]) -> str:
    return "".join(card_text(c) if c is not None else "??" for c in cards)
