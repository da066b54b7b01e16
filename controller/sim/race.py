"""The simulated dealer's chip race (RULES T5, APSA 2.1.18), pure: who wins the race's chips.

At a colour-up with leftover chips the dealer deals each racing player, from seat 1 on, one card
for every leftover chip he has, all of a player's cards before the next player's (APSA 2.1.18).
The highest cards win the race's chips (equal ranks: spades, hearts, diamonds, clubs), at most
one a player. A player whose whole stack was leftover keeps one chip of the unit whether he wins
or not; a chip he wins is one of the race's all the same (what `chips_leaving` allows for).

The cards are dealt face up beside the antennas (the table's antennas do not read them): the
table learns the result from each racer's stack laid on his zone (or, where no chips are read,
from the floor's `stack`). The cards come from a random source seeded by the colour-up itself,
so that a dealer restarted in the middle of the race deals the same race again.
"""

from __future__ import annotations

import random

from controller.session.colour_up import ColourUp
from drivers.registry import REGISTRATION_ORDER

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # clubs lowest, spades highest (APSA 2.1.18: "Pik, Herz, Karo, Treff")


def card_order(card: str) -> tuple[int, int]:
    return RANKS.index(card[0]), SUITS.index(card[1])


def leftover_chips(leftover: int, leaving: list[int]) -> int:
    """How many chips a leftover is made of, fewest first (a player changes what he can)."""
    count = 0
    for value in sorted(leaving, reverse=True):
        count += leftover // value
        leftover %= value
    return count + (1 if leftover else 0)  # an odd remainder (chips not in the list): one card


def race_seed(up: ColourUp) -> str:
    stacks = ",".join(f"{seat}:{stack}" for seat, stack in sorted(up.before.items()))
    return f"{up.ref}/{up.hand}/{stacks}"


def deal_race(up: ColourUp) -> dict[int, list[str]]:
    """Each racing seat's cards, dealt from seat 1 on, a player's all at once."""
    deck = list(REGISTRATION_ORDER)
    random.Random(race_seed(up)).shuffle(deck)
    cards: dict[int, list[str]] = {}
    for seat, racer in sorted(up.race.items()):
        wanted = max(1, leftover_chips(racer.leftover, up.chips))
        cards[seat] = [deck.pop() for _ in range(min(wanted, len(deck)))]
    return cards


def race_winners(up: ColourUp, cards: dict[int, list[str]]) -> list[int]:
    """The seats the race's chips go to: the highest cards first, one chip a player."""
    dealt = sorted(((card_order(c), seat) for seat, hand in cards.items() for c in hand),
                   reverse=True)
    winners: list[int] = []
    for _, seat in dealt:
        if len(winners) == up.race_chips:
            break
        if seat not in winners:
            winners.append(seat)
    return sorted(winners)


def stacks_after(up: ColourUp, winners: list[int]) -> dict[int, int]:
    """Each racing seat's stack after the race: what it keeps, and one chip of the unit more
    for a winner or a seat whose whole stack was leftover."""
    return {seat: racer.keeps + (up.unit if seat in winners or racer.sure else 0)
            for seat, racer in up.race.items()}


__all__ = ["card_order", "deal_race", "leftover_chips", "race_winners", "stacks_after"]
