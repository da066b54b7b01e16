"""A tournament's structure: its levels, its breaks (with the chips that colour up and leave
play, RULES T5), the level at which late registration ends, and for the tournament service what
an entry costs and brings (``[entry]``: the start stack, RULES T6, DFO §2(2); re-entry) and
what the places pay (``[prizes]``). A TOML file, validated before anything runs: a mistake
names the level or break and what is wrong, in the director's words.

`schedule()` lays the structure out on a time line that starts at zero: what the clock runs
and what `pokertable clock --structure FILE --check` prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from controller.errors import ConfigError, first_error
from controller.inputs.text_files import read_toml_file

MAX_CHIP = 10**9


class LevelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sb: int = Field(ge=0, le=MAX_CHIP, description="Small blind")
    bb: int = Field(gt=0, le=MAX_CHIP, description="Big blind")
    ante: int = Field(default=0, ge=0, le=MAX_CHIP, description="Ante, each player")
    bb_ante: int = Field(default=0, ge=0, le=MAX_CHIP, description="Big blind ante (the table)")
    minutes: float = Field(gt=0, le=24 * 60)

    @model_validator(mode="after")
    def _blinds_in_order(self) -> LevelSpec:
        if self.sb > self.bb:
            raise ValueError(f"the small blind ({self.sb}) is more than the big blind ({self.bb})")
        if self.ante and self.bb_ante:
            raise ValueError("an ante for each player or a big blind ante, not both")
        return self


class BreakSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    after_level: int = Field(ge=1, description="The break follows this level")
    minutes: float = Field(gt=0, le=24 * 60)
    colour_up: list[int] = Field(default_factory=list, description="Denominations that colour "
                                 "up at this break and leave play (RULES T5, PVB 15b)")


class AddOnSpec(BaseModel):
    """``[entry.add_on]``: chips every player still in may buy at the break after
    ``after_level`` (default: the level late registration ends with), ``per_player`` times.
    PVB 20(1) allows no add-on in the PVB's own tournaments: a structure offers one by saying so.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    chips: int = Field(gt=0, le=MAX_CHIP, description="The chips an add-on brings")
    price: int = Field(default=0, ge=0, le=MAX_CHIP, description="What it adds to the prize "
                       "pool")
    after_level: int | None = Field(default=None, ge=1, description="Taken at the break after "
                                    "this level (default: late_registration_ends)")
    per_player: int = Field(default=1, ge=1, le=10, description="Add-ons each player may take")


class RebuySpec(BaseModel):
    """``[entry.rebuy]``: chips a player still in may buy while his stack is at or below
    ``below`` (default: the start stack), until the end of level ``until_level`` (default: the
    level late registration ends with), at most ``at_most`` times (default: no limit). Not in
    the PVB's own tournaments either (PVB 20(1))."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chips: int = Field(gt=0, le=MAX_CHIP, description="The chips a rebuy brings")
    price: int = Field(default=0, ge=0, le=MAX_CHIP, description="What it adds to the prize "
                       "pool")
    until_level: int | None = Field(default=None, ge=1, description="Offered until the end of "
                                    "this level (default: late_registration_ends)")
    below: int | None = Field(default=None, gt=0, le=MAX_CHIP, description="Offered while the "
                              "player's stack is at most this (default: the start stack)")
    at_most: int | None = Field(default=None, ge=1, le=100, description="Rebuys each player "
                                "may take (default: no limit)")


class EntrySpec(BaseModel):
    """``[entry]``: what a player gets and pays for an entry, and the chips he may buy later."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stack: int | None = Field(default=None, gt=0, le=MAX_CHIP, description="The start stack")
    stacks: dict[int, int] = Field(
        default_factory=dict, description="Start stacks by players per table (DFO §2(2): 10 ->"
        " 30,000, 9 -> 35,000, 8 -> 40,000): the tournament's table size chooses one")
    reentry: bool = Field(default=False, description="A player who is out may enter again "
                          "while late registration is open")
    buy_in: int = Field(default=0, ge=0, le=MAX_CHIP, description="What each entry adds to "
                        "the prize pool")
    currency: str = Field(default="EUR", min_length=1, max_length=8)
    add_on: AddOnSpec | None = Field(default=None, description="Chips every player may buy "
                                     "at a break")
    rebuy: RebuySpec | None = Field(default=None, description="Chips a short stack may buy "
                                    "while the rebuy period lasts")

    @model_validator(mode="after")
    def _a_stack(self) -> EntrySpec:
        if any(not 2 <= size <= 10 for size in self.stacks):
            raise ValueError("entry.stacks: a table seats 2 to 10 players")
        if any(not 0 < chips <= MAX_CHIP for chips in self.stacks.values()):
            raise ValueError(f"entry.stacks: a start stack is 1 to {MAX_CHIP:,} chips")
        return self

    def start_stack(self, seats: int) -> int | None:
        """The start stack for tables of ``seats`` players (RULES T6, DFO §2(2)); None if the
        structure names none for that size."""
        return self.stacks.get(seats, self.stack)


class PayoutBracket(BaseModel):
    """What the places pay, in percent of the prize pool, for fields up to ``up_to`` entries
    (the last bracket, without ``up_to``, for any larger field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    up_to: int | None = Field(default=None, ge=1, description="For fields of up to this many "
                              "entries")
    percent: list[float] = Field(min_length=1, max_length=1000)

    @model_validator(mode="after")
    def _adds_up(self) -> PayoutBracket:
        where = f"the payouts up to {self.up_to} entries" if self.up_to else "the payouts"
        if any(p <= 0 for p in self.percent):
            raise ValueError(f"{where}: every paid place pays more than 0 percent")
        if abs(sum(self.percent) - 100) > 1e-6:
            raise ValueError(f"{where}: the percentages add up to {sum(self.percent):g}, not 100")
        if any(a < b for a, b in zip(self.percent, self.percent[1:], strict=False)):
            raise ValueError(f"{where}: a place pays more than a better one")
        if self.up_to is not None and len(self.percent) > self.up_to:
            raise ValueError(f"{where}: {len(self.percent)} places paid from at most "
                             f"{self.up_to} entries")
        return self


class PrizeSpec(BaseModel):
    """``[prizes]``: the payout table, and the unit prizes are rounded to (the remainder goes
    to first place)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: int = Field(default=1, ge=1, le=MAX_CHIP, description="Prizes are rounded down to "
                      "this; what is left goes to first place")
    payouts: list[PayoutBracket] = Field(min_length=1)

    @model_validator(mode="after")
    def _in_order(self) -> PrizeSpec:
        limits = [b.up_to for b in self.payouts]
        if None in limits[:-1]:
            raise ValueError("prizes.payouts: only the last bracket may leave out up_to")
        bounded = [n for n in limits if n is not None]
        if bounded != sorted(set(bounded)):
            raise ValueError("prizes.payouts: list the brackets by up_to, smallest first, each "
                             "once")
        return self

    def bracket(self, entries: int) -> PayoutBracket:
        """The bracket for a field of ``entries``: the first whose ``up_to`` covers it (a
        larger field than any: the last)."""
        return next((b for b in self.payouts if b.up_to is None or entries <= b.up_to),
                    self.payouts[-1])


class Structure(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=80)
    chips: list[int] = Field(min_length=1, description="Denominations in play at the start")
    late_registration_ends: int | None = Field(
        default=None, ge=1, description="Late registration closes at the end of this level")
    levels: list[LevelSpec] = Field(min_length=1)
    breaks: list[BreakSpec] = Field(default_factory=list)
    entry: EntrySpec = Field(default_factory=EntrySpec, description="For the tournament "
                             "service: the start stack, re-entry, the buy-in")
    prizes: PrizeSpec | None = Field(default=None, description="For the tournament service: "
                                     "the payout table")

    @model_validator(mode="after")
    def _consistent(self) -> Structure:
        count = len(self.levels)
        if self.late_registration_ends is not None and self.late_registration_ends > count:
            raise ValueError(f"late_registration_ends: level {self.late_registration_ends} does "
                             f"not exist (the structure has {count} levels)")
        after = [b.after_level for b in self.breaks]
        for k, number in enumerate(after):
            if number >= count:
                raise ValueError(f"break {k + 1}: a break after level {number} comes after the "
                                 f"last level ({count}) or at it: the tournament is over by then")
            if after.count(number) > 1:
                raise ValueError(f"break {k + 1}: two breaks after level {number}")
        if after != sorted(after):
            raise ValueError("breaks: list them in the order they come")
        in_play = sorted(set(self.chips))
        if any(c <= 0 for c in in_play):
            raise ValueError("chips: denominations are positive")
        for k, level in enumerate(self.levels, start=1):
            for brk in self.breaks:
                if brk.after_level == k - 1:
                    for chip in brk.colour_up:
                        if chip not in in_play:
                            raise ValueError(f"the break after level {k - 1}: {chip} is not in "
                                             f"play any more (in play: {in_play})")
                        in_play.remove(chip)
                    if not in_play:
                        raise ValueError(f"the break after level {k - 1}: no chip would be "
                                         "left")
                    odd = [c for c in in_play if c % in_play[0]]
                    if brk.colour_up and odd:
                        # A stack's leftover is its value modulo the smallest chip only when
                        # every chip left is a multiple of it (RULES T5)
                        raise ValueError(f"the break after level {k - 1}: {odd[0]} is no "
                                         f"multiple of {in_play[0]}, the smallest chip left: "
                                         "the leftover chips of the colour-up cannot be told")
            smallest = in_play[0]
            for name in ("sb", "bb", "ante", "bb_ante"):
                amount = getattr(level, name)
                if amount % smallest:
                    raise ValueError(f"level {k}: {name} {amount} cannot be "
                                     f"paid in chips of {smallest}, the smallest in play")
        self._purchases_fit(count)
        return self

    def _purchases_fit(self, count: int) -> None:
        add_on, rebuy = self.entry.add_on, self.entry.rebuy
        if add_on is not None:
            level = self.add_on_level()
            if level is None:
                raise ValueError("entry.add_on: at which break? after_level, or "
                                 "late_registration_ends")
            if not any(b.after_level == level for b in self.breaks):
                raise ValueError(f"entry.add_on: the add-on is taken at the break after level "
                                 f"{level}, and the structure has no break there")
            smallest = self.in_play_after(level)[0]
            if add_on.chips % smallest:
                raise ValueError(f"entry.add_on: {add_on.chips:,} chips cannot be given in "
                                 f"chips of {smallest:,}, the smallest in play after that break")
        if rebuy is not None:
            until = self.rebuy_until()
            if until is None:
                raise ValueError("entry.rebuy: until which level? until_level, or "
                                 "late_registration_ends")
            if until > count:
                raise ValueError(f"entry.rebuy: level {until} does not exist (the structure "
                                 f"has {count} levels)")
            # The smallest chip in play shrinks only at breaks: the last rebuy level's is the
            # largest of the period, and a rebuy's chips must be paid in it (as the add-on's)
            smallest = self.in_play_after(until - 1)[0]
            if rebuy.chips % smallest:
                raise ValueError(f"entry.rebuy: {rebuy.chips:,} chips cannot be given in chips "
                                 f"of {smallest:,}, the smallest in play in level {until}, the "
                                 "last a rebuy may be bought in")

    def add_on_level(self) -> int | None:
        """The level after whose break the add-on is taken."""
        add_on = self.entry.add_on
        if add_on is None:
            return None
        return add_on.after_level or self.late_registration_ends

    def rebuy_until(self) -> int | None:
        """The last level in which a rebuy may be bought."""
        rebuy = self.entry.rebuy
        if rebuy is None:
            return None
        return rebuy.until_level or self.late_registration_ends

    def in_play_after(self, level: int) -> list[int]:
        """The denominations in play once the break after ``level`` is over (and every break
        before it): the smallest of them is the unit of its colour-up (RULES T5)."""
        gone = {c for b in self.breaks if b.after_level <= level for c in b.colour_up}
        return sorted(set(self.chips) - gone)

    def break_after(self, level: int) -> BreakSpec | None:
        return next((b for b in self.breaks if b.after_level == level), None)


class Slot(BaseModel):
    """One entry of the schedule: a level or a break, with its start and end in seconds from
    the tournament's start."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["level", "break"]
    level: int = Field(description="The level, or for a break the level it follows")
    start: float
    end: float
    sb: int | None = None
    bb: int | None = None
    ante: int | None = None
    bb_ante: int | None = None
    smallest_chip: int | None = Field(default=None, description="Split pots pay in it (S2)")
    late_registration: bool | None = None
    colour_up: list[int] | None = None


def schedule(structure: Structure) -> list[Slot]:
    """Every level and break on one time line from zero."""
    slots: list[Slot] = []
    now = 0.0
    in_play = sorted(set(structure.chips))
    breaks = {b.after_level: b for b in structure.breaks}
    late = structure.late_registration_ends
    for k, level in enumerate(structure.levels, start=1):
        end = now + level.minutes * 60
        slots.append(Slot(kind="level", level=k, start=now, end=end, sb=level.sb, bb=level.bb,
                          ante=level.ante, bb_ante=level.bb_ante, smallest_chip=in_play[0],
                          late_registration=late is not None and k <= late))
        now = end
        brk = breaks.get(k)
        if brk is not None:
            end = now + brk.minutes * 60
            slots.append(Slot(kind="break", level=k, start=now, end=end,
                              colour_up=list(brk.colour_up)))
            in_play = [c for c in in_play if c not in brk.colour_up]
            now = end
    return slots


def load_structure(path: str | Path) -> Structure:
    """The validated structure, or a `ConfigError` of one line naming the file and the field."""
    path = Path(path)
    raw = read_toml_file(path, "a tournament structure (TOML)")
    try:
        return Structure.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_in_directors_words(exc)}") from None


# What each number of a level or break must be, as a director would read it.
_MUST_BE = {
    "sb": f"a whole number of chips from 0 to {MAX_CHIP:,}",
    "bb": f"a whole number of chips from 1 to {MAX_CHIP:,}",
    "ante": f"a whole number of chips from 0 to {MAX_CHIP:,}",
    "bb_ante": f"a whole number of chips from 0 to {MAX_CHIP:,}",
    "minutes": "a number of minutes above 0 and at most 1440",
    "after_level": "the number of a level (1 or more)",
}


def _in_directors_words(exc: ValidationError) -> str:
    """The first mistake, naming the level or break as a director counts them (from 1), not
    pydantic's ``levels.0.minutes``; the structure's own checks name their field themselves."""
    errors = exc.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = first["loc"]
    if not loc:
        return str(first["msg"]).removeprefix("Value error, ")
    if len(loc) >= 2 and loc[0] in ("levels", "breaks") and isinstance(loc[1], int):
        what = f"{'level' if loc[0] == 'levels' else 'break'} {loc[1] + 1}"
        field = str(loc[2]) if len(loc) > 2 else None
        if field is None:
            return f"{what}: {str(first['msg']).removeprefix('Value error, ')}"
        if first["type"] == "extra_forbidden":
            return f"{what}: unknown key {field!r} (misspelt?)"
        if first["type"] == "missing":
            return f"{what}: {field} is missing"
        if field in _MUST_BE:
            value = first.get("input")
            shown = repr(value) if isinstance(value, str) else str(value)
            return f"{what}: {field} must be {_MUST_BE[field]}, not {shown[:20]}"
    return first_error(exc, "")


__all__ = ["AddOnSpec", "BreakSpec", "EntrySpec", "LevelSpec", "PayoutBracket", "PrizeSpec",
           "RebuySpec", "Slot", "Structure", "load_structure", "schedule"]
