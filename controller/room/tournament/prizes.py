"""Payouts and ranking points (RULES T7; APSA 3.1.1.3, 4.1.1.2; PVB 64b(2)), pure.

**Payouts.** The structure's payout table gives each paid place a percentage of the prize pool
for the number of entries (re-entries counted). Every place but the first is rounded down to the
structure's unit; what is left goes to first place, so the prizes add up to the pool exactly.
A field with fewer places than the bracket pays (fewer entries, or fewer players than entries
with re-entries: places run 1..players) pays only the places it has, each its own percentage;
the money of the places nobody can take is left over like any remainder, and goes to first
place by the same rule (the percentages are not stretched over the places paid).
Players sharing places (PVB 64b(2)) share the prizes of those places evenly: each share rounded
down to the unit, and what the split leaves goes to first place as well.

**Points**, a profile choice:

- ``apsa-ranking`` (APSA 4.1.1.2): 9·√players / √place for about the best 30% of the field
  (the places up to 30% of the players, rounded, at least one), and 5 points to every player
  for taking part.
- ``apsa-sit-and-go`` (APSA 3.1.1.3): 9, 7, 5, 3, 2, 1 for places 1 to 6, and one point more for
  a winner who took every chip before the regular time ran out.
- ``none``.

Shared places share their points evenly too (PVB 64b(2)).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

from controller.room.clock.structure import PrizeSpec

PointsProfile = Literal["none", "apsa-ranking", "apsa-sit-and-go"]
POINTS_PROFILES: tuple[PointsProfile, ...] = ("none", "apsa-ranking", "apsa-sit-and-go")
SIT_AND_GO = {1: 9, 2: 7, 3: 5, 4: 3, 5: 2, 6: 1}  # APSA 3.1.1.3
RANKING_SHARE = 0.3  # APSA 4.1.1.2: "rund 30% aller Teilnehmer"
TAKING_PART = 5  # APSA 4.1.1.2: bonus points for every player


def prize_pool(entries: int, buy_in: int) -> int:
    return entries * buy_in


def payouts(prizes: PrizeSpec | None, pool: int, entries: int,
            places: int | None = None) -> list[int]:
    """The prize of each paid place, first place first: rounded down to the unit, the
    remainder to first place. ``places``: how many places the field has (the players; by
    default the entries): a place beyond them is not paid, its money is remainder."""
    if prizes is None or pool <= 0 or entries <= 0:
        return []
    paid = min(entries, entries if places is None else places)
    # Exact fractions: 35% of 1,000 is 350 and not a float a hair below it, rounded to 345.
    percent = [Fraction(str(p)) for p in prizes.bracket(entries).percent[:max(paid, 1)]]
    unit = prizes.unit
    rest = [math.floor(pool * p / 100 / unit) * unit for p in percent[1:]]
    return [pool - sum(rest), *rest]


def shared_prize(table: list[int], first: int, last: int, unit: int = 1) -> tuple[int, int]:
    """Places ``first``..``last`` shared (PVB 64b(2)): what each player takes (their prizes
    added up and split evenly, each share rounded down to the ``unit``), and what the split
    leaves (for first place, as the payout table's remainder)."""
    count = last - first + 1
    total = sum(table[p - 1] for p in range(first, min(last, len(table)) + 1))
    each = total // count // unit * unit
    return each, total - each * count


def points(profile: PointsProfile, players: int, place: int, in_time: bool = True) -> float:
    """Points for ``place`` among ``players`` (not shared)."""
    if profile == "apsa-ranking":
        paid = max(1, math.floor(players * RANKING_SHARE + 0.5))
        ranked = 9 * math.sqrt(players) / math.sqrt(place) if place <= paid else 0.0
        return ranked + TAKING_PART
    if profile == "apsa-sit-and-go":
        return SIT_AND_GO.get(place, 0) + (1 if place == 1 and in_time else 0)
    return 0.0


def shared_points(profile: PointsProfile, players: int, first: int, last: int,
                  in_time: bool = True) -> float:
    """Each sharing player's points: the places' points split evenly (PVB 64b(2))."""
    count = last - first + 1
    return sum(points(profile, players, p, in_time) for p in range(first, last + 1)) / count


__all__ = ["POINTS_PROFILES", "RANKING_SHARE", "SIT_AND_GO", "TAKING_PART", "PointsProfile",
           "payouts", "points", "prize_pool", "shared_points", "shared_prize"]
