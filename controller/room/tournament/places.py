"""Eliminations and places (RULES T2; PVB 64b; APSA 2.1.19; BPS 44), pure.

Players out in the same hand place by the chips they had when the hand began: more chips, the
better place; equal stacks share the places (PVB 64b(1)(2), APSA 2.1.19), and a shared place is
the best of them (two players sharing 8th and 9th are both 8th), its prizes and points split
evenly (`prizes`). Under hand-for-hand one round on different tables counts as one hand (PVB
64b(3)): every elimination of a round is placed together, and only once the round has ended at
every table. Eliminations in different hands place in the order they happened (BPS 44): a later
one places better.

Places are counted from the top: the players still in share nothing yet; the last group out
takes the places just below them, the group before that the next ones, and so on. So a place is
always one of 1..(players), whatever order the eliminations were heard in, and a late
registration moves every earlier place one down, as it should.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

GroupKey = tuple[Any, ...]


class Bust(BaseModel):
    """One player out: at which table, in which hand, with how many chips at its start."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    table: str
    hand: int = Field(ge=0)
    started: float | None = Field(default=None, description="When the hand began (the table's "
                                  "shuffle press)")
    round: int | None = Field(default=None, description="The hand-for-hand round of the hand "
                              "(PVB 64b(3)); None outside hand-for-hand")
    stack: int = Field(ge=0, description="Chips at the start of the hand (PVB 64b(1))")
    seq: int = Field(ge=0, description="The order in which eliminations happened")

    def group(self) -> GroupKey:
        """The hand it counts as: a hand-for-hand round is one hand for every table."""
        if self.round is not None:
            return ("round", self.round)
        return ("hand", self.table, self.hand, self.started)


@dataclass(frozen=True)
class Placing:
    """A player's place: ``place`` is the best of the places shared (``last`` the worst);
    ``pending``: the group waits for the end of its hand-for-hand round, so its places are known
    as a range but not yet who takes which."""

    player: str
    place: int
    last: int
    shared_with: tuple[str, ...] = ()
    pending: bool = False
    group: GroupKey = ()


def group_words(key: GroupKey) -> str:
    if key and key[0] == "round":
        return f"hand-for-hand round {key[1]}"
    if len(key) >= 3:
        return f"table {key[1]}, hand {key[2]}"
    return "?"


def _began(members: list[Bust]) -> tuple[float, int]:
    starts = [b.started for b in members if b.started is not None]
    return (min(starts) if starts else math.inf, min(b.seq for b in members))


def placings(players_in: int, busts: list[Bust],
             settled: frozenset[GroupKey] | set[GroupKey] | None = None) -> list[Placing]:
    """Every eliminated player's place, best first. ``players_in``: those still playing (they
    take places 1..players_in between them, later). ``settled``: the groups whose places are
    given (None: all of them); the others come out ``pending`` with their range."""
    groups: dict[GroupKey, list[Bust]] = {}
    for bust in sorted(busts, key=lambda b: b.seq):
        groups.setdefault(bust.group(), []).append(bust)
    # Hands at different tables place in the order they began (the shuffle press the records
    # keep), as the offline standings order them; hands whose start is unknown (ledgers from
    # before it was kept) in the order they were heard. Later groups place better.
    order = sorted(groups, key=lambda key: _began(groups[key]))
    out: list[Placing] = []
    place = players_in + 1
    for key in reversed(order):
        members = groups[key]
        pending = settled is not None and key not in settled
        if pending:
            names = tuple(sorted(b.player for b in members))
            last = place + len(members) - 1
            out += [Placing(b.player, place, last, tuple(n for n in names if n != b.player),
                            True, key) for b in members]
        else:
            by_stack: dict[int, list[str]] = {}
            for bust in members:
                by_stack.setdefault(bust.stack, []).append(bust.player)
            at = place
            for stack in sorted(by_stack, reverse=True):  # more chips, the better place
                sharing = sorted(by_stack[stack])
                last = at + len(sharing) - 1
                out += [Placing(p, at, last, tuple(n for n in sharing if n != p), False, key)
                        for p in sharing]
                at = last + 1
        place += len(members)
    return out


__all__ = ["Bust", "GroupKey", "Placing", "group_words", "placings"]
