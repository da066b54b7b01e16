"""Why a table may not shuffle the next hand: its holds, one per source, each with its reason in
the floor's words (docs/rules.md, "The room's holds").

- ``break``: the clock's break (PVB 14): no hand until the clock resumes play.
- ``hand_for_hand``: the clock's hand-for-hand (PVB 35a): the table waits after each hand until
  the clock releases it for one hand of the next round (``released_round``).
- ``floor``: a floor person's own hold on this table (DFO), lifted by the floor.
- ``upgrade``: the table's own, while its software is replaced between hands (RULES H1: no hand
  starts until the new version runs; it lifts the hold when it starts).
- ``seating``: the tournament's, while players are on their way to a table with three or more
  empty seats (PVB 09(3)): play stops until they have taken their seats.

A table may shuffle only when it has none. The holds stack: hand-for-hand switched on during a
break adds its hold to the break's; a round released during a break deals its hand only after
the break. Every change is a new value, and a command that changes nothing says so (None), so
that the clock may ask again without a word at the table.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

HoldKind = Literal["break", "hand_for_hand", "floor", "upgrade", "seating"]
HOLD_KINDS: tuple[HoldKind, ...] = ("break", "floor", "seating", "hand_for_hand", "upgrade")
HAND_FOR_HAND = "hand-for-hand"  # the reason of the clock's hand-for-hand hold


def kind_of(reason: str) -> HoldKind:
    """A hold command without a kind (a console, an older clock): the kind its reason says."""
    if reason.startswith("break"):
        return "break"
    if reason.startswith(HAND_FOR_HAND):
        return "hand_for_hand"
    if reason.startswith("seating"):
        return "seating"
    return "floor"


class TableHolds(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reasons: dict[HoldKind, str] = Field(default_factory=dict, description="Each hold on the "
                                         "table, by its source, with its reason")
    released_round: int | None = Field(default=None, ge=1, description="Hand-for-hand: the "
                                       "clock released the table for one hand of this round, "
                                       "not yet begun (RULES T2 counts by it)")

    @property
    def may_shuffle(self) -> bool:
        return not self.reasons

    def summary(self) -> str | None:
        """The reasons in the order a dealer needs them: the break, the floor, hand-for-hand."""
        told = [self.reasons[k] for k in HOLD_KINDS if k in self.reasons]
        return "; ".join(told) or None

    def first(self) -> tuple[HoldKind, str] | None:
        return next(((k, self.reasons[k]) for k in HOLD_KINDS if k in self.reasons), None)

    # ---------------------------------------------------------------- changes

    def held(self, kind: HoldKind, reason: str) -> TableHolds | None:
        """A hold put on. Hand-for-hand's also withdraws a release not yet dealt: the clock
        decides which round a table plays."""
        released = None if kind == "hand_for_hand" else self.released_round
        if self.reasons.get(kind) == reason and released == self.released_round:
            return None
        return TableHolds(reasons={**self.reasons, kind: reason}, released_round=released)

    def lifted(self, kind: HoldKind | None) -> TableHolds | None:
        """A hold taken off (``None``: every hold, the floor's override). Lifting hand-for-hand
        ends it: a release not yet dealt goes too."""
        kinds = set(HOLD_KINDS) if kind is None else {kind}
        released = None if "hand_for_hand" in kinds else self.released_round
        reasons = {k: r for k, r in self.reasons.items() if k not in kinds}
        if reasons == self.reasons and released == self.released_round:
            return None
        return TableHolds(reasons=reasons, released_round=released)

    def released(self, round_number: int, played_round: int | None) -> TableHolds | None:
        """Hand-for-hand: the clock releases the table for one hand of ``round_number``. Once
        a round (the release again, or after its hand was played, changes nothing): every
        released table deals exactly one hand per round (PVB 35a)."""
        if round_number in (self.released_round, played_round):
            return None
        reasons = {k: r for k, r in self.reasons.items() if k != "hand_for_hand"}
        return TableHolds(reasons=reasons, released_round=round_number)

    def dealt(self) -> TableHolds:
        """A hand begins: a hand-for-hand release is used up, and the table waits after it."""
        if self.released_round is None:
            return self
        return TableHolds(reasons={**self.reasons, "hand_for_hand": HAND_FOR_HAND})


__all__ = ["HAND_FOR_HAND", "HOLD_KINDS", "HoldKind", "TableHolds", "kind_of"]
