"""Main and side pots (RULES S1) and the split of a pot with odd chips (RULES S2)."""

# (no `from __future__ import annotations`: a NamedTuple compiles each string annotation
# into a ForwardRef at import, some 40 compiles of the replay's start-up; issue 37)

from itertools import compress
from typing import NamedTuple

_new_pot = tuple.__new__  # (Pot(...) without its Python-level __new__: a pot of every hand)


class Pot(NamedTuple):  # (a NamedTuple: built for every hand replayed, issue 37)
    amount: int
    eligible: tuple[int, ...]  # player indices, in order from the first seat left of the button


def build_pots(contributions: list[int], dead_money: int, live: list[bool]) -> list[Pot]:
    """Pots from what each player put in; never merged, each settled on its own (PVB 63).

    A player can only win, from each opponent, as much as he put in himself (APSA 5.3): one pot per
    all-in level. ``dead_money`` (a big-blind ante, antes the profile treats as dead) goes into
    the main pot, which every live player can win.
    """
    # (the live players' amounts gathered in C, not in a comprehension's loop: the pots of
    # every hand replayed are built, issue 37)
    levels = sorted(set(compress(contributions, live)))
    if levels and levels[0] <= 0:
        levels = [c for c in levels if c > 0]  # (a live player who put in nothing)
    if len(levels) == 1:
        # Nobody all-in for less (the common case): one pot of everything put in, the money of
        # players who folded beyond the level included.
        top = levels[0]
        pots = [_new_pot(Pot, (sum(contributions), tuple(
            [i for i, c in enumerate(contributions) if c == top and live[i]])))]
    else:
        pots = _pots_by_level(contributions, live, levels)
    if dead_money:
        everyone = tuple(compress(range(len(live)), live))
        main = pots[0] if pots else Pot(0, everyone)
        if main.eligible == everyone:
            pots[:1] = [Pot(main.amount + dead_money, everyone)]
        else:  # a live player put in nothing but dead money (all-in on a big-blind ante): he
            # can win the dead money alone, a pot of its own (S1)
            pots.insert(0, Pot(dead_money, everyone))
    return pots


def _pots_by_level(contributions: list[int], live: list[bool], levels: list[int]) -> list[Pot]:
    """One pot per all-in level of the live players, from each player what he put in up to it."""
    pots: list[Pot] = []
    previous = 0
    players = range(len(contributions))
    for level in levels:
        # (loops, not sums over generators: a side pot at every other showdown of a replay)
        amount = 0
        eligible = []
        for i in players:
            c = contributions[i]
            if c > previous:  # from each what he put in above the last level, up to this one
                amount += (c if c < level else level) - previous
                if c >= level and live[i]:
                    eligible.append(i)
        pots.append(_new_pot(Pot, (amount, tuple(eligible))))
        previous = level
    # Money above the top live level (only possible from players who folded) stays in play.
    beyond = 0
    for c in contributions:
        if c > previous:
            beyond += c - previous
    if beyond:
        top = pots[-1] if pots else Pot(0, tuple(i for i, alive in enumerate(live) if alive))
        pots[-1:] = [Pot(top.amount + beyond, top.eligible)]
    return pots


def split_pot(amount: int, winners: list[int], unit: int) -> dict[int, int]:
    """Share ``amount`` among ``winners`` (ordered from the first seat left of the button).

    Shares are whole multiples of ``unit`` (the smallest chip in play, PVB 62; or the small blind
    under the cash profile); the odd units go one each to the winners in seat order starting left
    of the button (PVB 62, BPS 3, APSA 5.3).
    """
    count = len(winners)
    share = amount // (count * unit) * unit
    payout = dict.fromkeys(winners, share)
    odd = amount - share * count
    k = 0
    while odd > 0:
        piece = min(unit, odd)
        payout[winners[k % count]] += piece
        odd -= piece
        k += 1
    return payout
