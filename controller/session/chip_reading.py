"""What the chips in a betting zone say: the rulebooks' reading of a bet made with chips.

Pure: a `Situation` (the seat's bet so far, its stack, the bet to match, the raise limits) and the
chips before and after one motion (RULES R9: what settled in one burst) give a `Reading`:

* `Bet`: the action the rules make of the chips (call, bet/raise to an amount, all-in);
* `Doubt`: the rules leave it to the dealer (an oversized chip that is a raise only if "raise"
  was said before it touched the table; a short call); `confirm` takes the default;
* `NoBet`: nothing was added.

The rules, by tag (docs/rules.md): R2 the half-bet rule (PVB 42(4)(5), APSA 5.4.29, CG
"Unvollständiges Raise"), R5 one oversized chip (PVB 44, APSA 5.4.28, CG "Höherer Jeton"), R6
several chips (PVB 45, CG "Höherer Jeton"; the profile decides whether same-colour chips reaching
a full raise raise), R8 a short call (APSA 5.4.30, CG "Einsätze"), R3 a round not reopened
(PVB 42(6)).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Announced = Literal["call", "bet", "raise", "allin"]


@dataclass(frozen=True)
class Situation:
    """One seat's position in the betting round, as the engine sees it."""

    committed: int  # the seat's bet this round before the motion
    stack: int  # chips behind
    current_bet: int  # the highest bet of the round
    target: int  # what the seat must reach to stay in (less when nobody could call more)
    min_raise_to: int | None  # the smallest legal bet or raise; None: he may not raise (R3)
    max_raise_to: int | None  # pot limit; None or the stack in no-limit
    min_bet: int  # the big blind (PVB 42(2))
    preflop: bool
    same_colour_full_raise: bool  # the profile's R6 setting

    @property
    def everything(self) -> int:
        return self.committed + self.stack

    @property
    def to_call(self) -> int:
        return max(0, min(self.target, self.everything) - self.committed)


@dataclass(frozen=True)
class Bet:
    """An action read from the chips. ``to`` is the seat's total bet this round after it."""

    action: Literal["check", "call", "raise", "allin"]
    to: int
    rule: str
    reason: str


@dataclass(frozen=True)
class Doubt:
    """The rules need the dealer: ``confirm`` takes ``default`` (None: only a declare can
    decide); ``short`` marks a short call (R8: complete it, or fold and forfeit the chips);
    ``more`` says the announced raise is still to come (more chips will settle)."""

    question: str
    rule: str
    default: Bet | None
    short: bool = False
    more: bool = False


@dataclass(frozen=True)
class NoBet:
    reason: str


Reading = Bet | Doubt | NoBet


def chips_text(chips: Sequence[int]) -> str:
    """'2×1,000 + 500', largest first: how a dealer counts chips aloud."""
    counts = Counter(chips)
    parts = [f"{n}×{value:,}" if n > 1 else f"{value:,}"
             for value, n in sorted(counts.items(), reverse=True)]
    return " + ".join(parts) if parts else "nothing"


def added_chips(before: Sequence[int], after: Sequence[int]) -> list[int]:
    """The chips that came into the zone in the motion (a multiset difference)."""
    return sorted((Counter(after) - Counter(before)).elements(), reverse=True)


def read_motion(situation: Situation, before: Sequence[int], after: Sequence[int], total: int,
                announced: Announced | None = None) -> Reading:
    """Read one settled motion. ``total`` is the seat's bet this round at face value once the
    zone settled on ``after`` (the caller subtracts chips that belong to nobody's bet: change
    not yet given, bets of an earlier round not yet swept)."""
    s = situation
    added = added_chips(before, after)
    if total <= s.committed and announced != "allin":
        return NoBet("no chips were added to the bet")
    if total > s.everything:
        return Doubt(f"the zone holds {total:,}, more than the player has ({s.everything:,}): "
                     "count the chips; confirm for all-in", "PVB 43",
                     Bet("allin", s.everything, "PVB 43", "all-in (the chips were counted)"))
    if total == s.everything:
        return Bet("allin", total, "PVB 43", "the whole stack is in the betting zone: all-in")
    if announced is not None:
        return _announced(s, added, total, announced)
    if s.to_call > 0:
        return _facing_a_bet(s, added, total)
    if s.current_bet == 0:
        return _opening_bet(s, added, total)
    # Nothing to call but a bet stands: the big blind's option (PVB 44(3): a blind taken back
    # and one bigger chip put in raises to the chip; the total shows it: the blind left the zone).
    if s.min_raise_to is None:
        return Bet("check", s.committed, "PVB 42(6)", "nobody can call a raise: a check, the "
                   "chips go back")
    swapped = len(added) == 1 and len(after) == 1  # nothing of the blind left beside it
    return _half_bet_rule(s, total, "PVB 44(3)" if swapped else "PVB 42(4)")


def _announced(s: Situation, added: list[int], total: int, announced: Announced) -> Reading:
    if announced == "allin":
        return Doubt(f"all-in was announced: the whole stack goes in ({s.everything:,}); "
                     "confirm when it is in", "PVB 43(1)",
                     Bet("allin", s.everything, "PVB 43(1)", "all-in as announced"))
    if announced == "call":
        return Bet("call", min(s.target, s.everything), "PVB 50(3)", "call as announced")
    if total < s.target or (s.current_bet == 0 and total < s.min_bet and s.min_raise_to):
        return Doubt(f"{announced} announced: the {announced} is still to come "
                     "(PVB 41(1)(c))", "PVB 41(1)(c)", None, more=True)
    if s.min_raise_to is None:
        return Bet("call", s.target, "PVB 42(6)", "the betting is not reopened for this seat: "
                   "a call, the rest goes back")
    top = total if s.max_raise_to is None else min(total, s.max_raise_to)
    if len(added) == 1:
        if top >= s.min_raise_to:
            return Bet("raise", top, "PVB 44(5)", f"{announced} announced with one "
                       f"{added[0]:,} chip: the largest {announced} up to the chip")
        return Bet("raise", s.min_raise_to, "PVB 42(3)", f"{announced} announced: completed "
                   f"to the minimum, {s.min_raise_to:,}")
    if top >= s.min_raise_to:
        return Bet("raise", top, "PVB 41(1)(b)", f"{announced} announced: the chips make it")
    return Bet("raise", s.min_raise_to, "PVB 42(3)", f"{announced} announced: completed to the "
               f"minimum, {s.min_raise_to:,}")


def _facing_a_bet(s: Situation, added: list[int], total: int) -> Reading:
    target = min(s.target, s.everything)
    if total < target:
        return Doubt(f"{total - s.committed:,} in, {s.to_call:,} to call: complete the call "
                     "(confirm), or fold and the chips stay in the pot", "APSA 5.4.30",
                     Bet("call", target, "APSA 5.4.30", "the short call is completed; no "
                         "raise (CG Einsätze)"), short=True)
    if total == target:
        return Bet("call", target, "", "")
    one_colour = bool(added) and len(set(added)) == 1
    if one_colour and total - added[0] < target:  # each chip was needed for the call
        if len(added) == 1:  # R5: one oversized chip
            what = f"one {added[0]:,} chip, no raise announced: a call"
            call = Bet("call", target, "PVB 44(1)", what)
            if _could_raise(s, total):
                return Doubt(f"{what} unless 'raise' was said before the chip touched the "
                             "table (PVB 44(4)); confirm for the call, or declare the raise",
                             "PVB 44(1)", call)
            return call
        chips = chips_text(added)
        if s.same_colour_full_raise and s.min_raise_to is not None and total >= s.min_raise_to:
            top = total if s.max_raise_to is None else min(total, s.max_raise_to)
            return Bet("raise", top, "PVB 45(1)", f"{chips} reach a full raise: a raise")
        return Bet("call", target, "PVB 45(1)" if s.same_colour_full_raise else "CG Höherer "
                   "Jeton", f"{chips} without an announcement, one chip less would not "
                   "cover the call: a call")
    return _half_bet_rule(s, total, "PVB 45(2)" if len(set(added)) > 1 else "PVB 42(4)")


def _opening_bet(s: Situation, added: list[int], total: int) -> Reading:
    """The first bet of a round after the flop (PVB 44(6): one chip counts at full value)."""
    rule = "PVB 44(6)" if len(added) == 1 else "PVB 42(2)"
    if s.min_raise_to is None:
        return Bet("check", s.committed, "PVB 42(6)", "nobody can call a bet: a check, the "
                   "chips go back")
    top = total if s.max_raise_to is None else min(total, s.max_raise_to)
    if top >= s.min_raise_to:
        why = "one chip opens the betting at its full value" if len(added) == 1 else "a bet"
        return Bet("raise", top, rule, why)
    if 2 * total >= s.min_raise_to:
        return Bet("raise", s.min_raise_to, "APSA 5.4.29", f"a bet of {total:,}, at least half "
                   f"the minimum bet: completed to {s.min_raise_to:,}")
    return Doubt(f"{total:,} is less than half the minimum bet ({s.min_raise_to:,}): a check "
                 "with the chips back (confirm), or declare the bet", "APSA 5.4.29",
                 Bet("check", s.committed, "APSA 5.4.29", "too small for a bet: a check, the "
                     "chips go back"))


def _could_raise(s: Situation, total: int) -> bool:
    if s.min_raise_to is None:
        return False
    return total >= s.min_raise_to or 2 * (total - s.current_bet) >= s.min_raise_to - s.current_bet


def _half_bet_rule(s: Situation, total: int, rule: str) -> Reading:
    # ``rule``: the tag that sent the chips here (mixed colours, PVB 45(2); the big blind's
    # swap, PVB 44(3)); it names a plain call.
    """R2 on the chips' total, when it is more than the call (PVB 42(4)(5), 45(2))."""
    target = min(s.target, s.everything)
    if total <= target:
        return Bet("call", target, rule, "a call")
    if s.min_raise_to is None:
        return Bet("call", target, "PVB 42(6)", "the betting is not reopened for this seat: a "
                   "call, the rest goes back")
    top = total if s.max_raise_to is None else min(total, s.max_raise_to)
    if top >= s.min_raise_to:
        if rule == "PVB 44(3)":
            return Bet("raise", top, rule, "the blind taken back for one bigger chip: a raise "
                       "to the chip")
        return Bet("raise", top, "PVB 41(1)(a)", "in one motion")
    full = s.min_raise_to - s.current_bet
    increment = top - s.current_bet
    if 2 * increment >= full:
        return Bet("raise", s.min_raise_to, "PVB 42(4)", f"a raise of {increment:,}, at least "
                   f"half the minimum raise of {full:,}: completed to exactly "
                   f"{s.min_raise_to:,}")
    return Bet("call", target, "PVB 42(5)", f"a raise of {increment:,}, less than half the "
               f"minimum raise of {full:,}: a call, the rest goes back")


__all__ = ["Announced", "Bet", "Doubt", "NoBet", "Reading", "Situation", "added_chips",
           "chips_text", "read_motion"]
