"""Each player's equity in a hand whose cards are all known: the share of the pot he can
expect from the board still to come (a tie splits it), for the broadcast feed
(docs/broadcast.md) and anyone reading a sealed record.

Exact where the boards still to come are few enough to count one by one (from the flop on:
at most 1,081 of them), otherwise a Monte Carlo estimate from a seeded random draw of boards
(before the flop: 1.7 million boards for two players, seconds of the floor's CPU), its number
of boards said with the answer so that a screen can say how it was reached. The strength of
each hand is the engine's own (`controller.engine.evaluate`, RULES S6): the same evaluator
that paid the pots. Pure: no clock, no I/O; the same seed gives the same answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from math import comb
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.evaluate import holdem_strength, omaha_strength

BOARD_CARDS = 5
EXACT_LIMIT = 20_000  # boards counted one by one at most (the turn: 46; the flop: 1,081)
SAMPLES = 20_000  # boards drawn otherwise (a share's standard error at most 0.35 points)

Method = Literal["exact", "monte-carlo"]


class Equity(BaseModel):
    """Each seat's expected share of the pot (0 to 1; a tie's share split between its winners,
    so the shares add up to 1), and how it was found."""

    model_config = ConfigDict(frozen=True)

    shares: dict[int, float]
    method: Method
    boards: int = Field(description="Boards counted (exact) or drawn (monte-carlo)")
    seed: int | None = Field(default=None, description="The random draw's seed (monte-carlo)")


def equities(game: Literal["NT", "PO"], hands: Mapping[int, Sequence[int]],
             board: Sequence[int], dead: Iterable[int] = (), *, seed: int = 0,
             samples: int = SAMPLES, exact_limit: int = EXACT_LIMIT) -> Equity:
    """The equity of each seat in ``hands`` (seat -> its hole cards: two in hold'em ``NT``,
    four in Omaha ``PO``) on ``board`` (0 to 5 cards), none of ``dead`` (cards known to be
    out of the deck: a folded hand's) coming. Cards are the engine's integers (0..51)."""
    if len(hands) < 2:
        raise ValueError("equity needs two hands or more")
    if len(board) > BOARD_CARDS:
        raise ValueError("a board has five cards at most")
    wanted = 2 if game == "NT" else 4
    if any(len(cards) != wanted for cards in hands.values()):
        raise ValueError(f"each hand holds {wanted} cards in {game}")
    known = [c for cards in hands.values() for c in cards] + list(board)
    dead = set(dead) - set(known)
    if len(set(known)) != len(known) or not all(0 <= c < 52 for c in [*known, *dead]):
        raise ValueError("a card twice, or not a card")
    deck = [c for c in range(52) if c not in set(known) | dead]
    missing = BOARD_CARDS - len(board)
    if len(deck) < missing:
        raise ValueError("not enough cards left for the board")
    strength: Callable[[Sequence[int], Sequence[int]], int] = (
        holdem_strength if game == "NT" else omaha_strength)
    seats = list(hands)
    holes = [list(hands[s]) for s in seats]
    won = [0.0] * len(seats)
    start = list(board)
    count = comb(len(deck), missing)
    if count <= exact_limit:
        runs: Iterable[Sequence[int]] = combinations(deck, missing)
        method: Method = "exact"
        boards = count
    else:
        draw = random.Random(seed)
        runs = (draw.sample(deck, missing) for _ in range(samples))
        method, boards = "monte-carlo", samples
    for extra in runs:
        full = start + list(extra)
        scores = [strength(hole, full) for hole in holes]
        best = max(scores)
        winners = [k for k, score in enumerate(scores) if score == best]
        for k in winners:
            won[k] += 1.0 / len(winners)
    return Equity(shares={s: won[k] / boards for k, s in enumerate(seats)}, method=method,
                  boards=boards, seed=seed if method == "monte-carlo" else None)


__all__ = ["EXACT_LIMIT", "SAMPLES", "Equity", "equities"]
