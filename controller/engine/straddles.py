"""Straddles (CG "Straddle"): who may post one, of what size, and which comes first.

"Straddle ist ein freiwilliges zusätzliches Blind, das nach dem Big Blind gesetzt wird und das
Doppelte des Big Blinds ist." A straddle is a blind: once posted, the engine deals it as one
(`Hand`: the preflop action starts left of the largest blind, and the minimum raise is its size).

- **live**: the player left of the big blind (UTG) posts twice the big blind; "eines oder mehrere
  zusätzliche Live-Straddles": the next player may straddle again, each twice the one before,
  up to the button;
- **button**: the player on the button posts twice the big blind; the action starts left of the
  button;
- **Mississippi**: any player but the blinds posts twice the big blind; the action starts left
  of him;
- "Das Live Straddle hat immer Vorrang gegenüber anderen Straddle Varianten": a live straddle
  takes the place of a button or Mississippi straddle (that one's chips go back), and while
  there is a live straddle no other kind is taken;
- "Nur in Absprache mit dem Floorman und bei Tischöffnung": a table plays the kinds it opened
  with, none otherwise.

Where the CG is silent (common practice, said where it applies): a straddle is posted before the
cards are dealt, as the blinds are (APSA 5.4.1, RULES H4); it is the full amount (a player who
has less cannot straddle: an all-in for less would be no "double" of the big blind); there is no
straddle heads-up (the seat after the big blind is the small blind, who posted already); the
blinds do not straddle; a split-limit table plays none (the CG names straddles for the
hold'em games with pot-limit and no-limit betting, "z.B. Pot Limit Omaha").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

StraddleKind = Literal["live", "button", "mississippi"]
STRADDLE_KINDS: tuple[StraddleKind, ...] = ("live", "button", "mississippi")
KIND_NAMES: dict[str, str] = {"live": "live straddle", "button": "button straddle",
                              "mississippi": "Mississippi straddle"}
RULE = "CG Straddle"


@dataclass(frozen=True, slots=True)
class Posted:
    """A straddle posted this hand."""

    seat: int
    amount: int
    kind: StraddleKind


@dataclass(frozen=True, slots=True)
class Decision:
    """A straddle taken: its kind, and the straddles it takes the place of (precedence)."""

    kind: StraddleKind
    replaces: tuple[Posted, ...] = ()


class StraddleRefused(ValueError):
    """Why chips put out before the cards are no straddle, in the dealer's words."""


def decide(
    *, allowed: Sequence[StraddleKind], dealt: Sequence[int], button: int,
    blinds: Sequence[int], big_blind: int, posted: Sequence[Posted], seat: int, amount: int,
    stack: int,
) -> Decision:
    """Whether ``seat`` may straddle ``amount`` with ``stack`` (chips after his ante), given the
    straddles ``posted`` already. ``dealt``: the seats dealt in, in order from left of the
    button (the button last); ``blinds``: the seats that posted a blind. Raises
    `StraddleRefused` with the reason."""
    if not allowed:
        raise StraddleRefused("this table plays no straddles: it did not open with them")
    if seat not in dealt:
        raise StraddleRefused(f"seat {seat} is not dealt in this hand")
    if len(dealt) < 3:
        raise StraddleRefused("no straddle heads-up")
    if seat in blinds:
        raise StraddleRefused(f"seat {seat} posts a blind: the blinds do not straddle")
    if any(p.seat == seat for p in posted):
        raise StraddleRefused(f"seat {seat} has straddled already")
    live = [p for p in posted if p.kind == "live"]
    others = [p for p in posted if p.kind != "live"]
    # the live chain: the seat after the big blind (or after the last live straddle)
    after = max((dealt.index(s) for s in blinds if s in dealt), default=-1)
    if live:
        after = dealt.index(live[-1].seat)
    next_live = dealt[after + 1] if after + 1 < len(dealt) else None
    live_amount = 2 * (live[-1].amount if live else big_blind)
    if "live" in allowed and seat == next_live:  # (the first is twice the big blind too)
        _full(seat, amount, live_amount, stack, "the last straddle" if live else "the big blind")
        return Decision("live", tuple(others))
    if live:
        raise StraddleRefused(
            f"a live straddle is on: the next straddle is seat {next_live}'s, {live_amount:,} "
            "(the live straddle has precedence)" if next_live is not None else
            "a live straddle is on: the live straddle has precedence")
    if others:
        raise StraddleRefused(f"seat {others[0].seat} has straddled already: one "
                              f"{KIND_NAMES[others[0].kind]} a hand")
    kind: StraddleKind | None = None
    if seat == button and "button" in allowed:
        kind = "button"
    elif "mississippi" in allowed:
        kind = "mississippi"
    if kind is None:
        names = " and the ".join(KIND_NAMES[k] for k in allowed)
        raise StraddleRefused(f"seat {seat} cannot straddle: this table plays the {names} only "
                              f"(seat {next_live} left of the big blind, seat {button} on the "
                              "button)")
    _full(seat, amount, 2 * big_blind, stack, "the big blind")
    return Decision(kind)


def _full(seat: int, amount: int, wanted: int, stack: int, what: str) -> None:
    if amount != wanted:
        raise StraddleRefused(f"seat {seat} put out {amount:,}: a straddle is {wanted:,}, "
                              f"twice {what}")
    if stack < amount:
        raise StraddleRefused(f"seat {seat} has {stack:,}: a straddle of {wanted:,} is the "
                              "full amount")


__all__ = ["KIND_NAMES", "RULE", "STRADDLE_KINDS", "Decision", "Posted", "StraddleKind",
           "StraddleRefused", "decide"]
