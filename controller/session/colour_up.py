"""Colour-ups at the table (RULES T5), pure: what each seat keeps when the smallest chips leave
play, and the chip race for what is left over.

At a colour-up the dealer changes every player's small chips for larger ones (PVB 15b(1): five
100s make a 500). What cannot be changed is a stack's **leftover**: its part below one chip of
the smallest denomination still in play (the ``unit``). Every chip left in play is a multiple of
the unit (the structure makes sure of it), so the leftover is the stack's value modulo the unit,
whatever chips it is made of.

The books differ on the leftovers (a profile setting of the tournament):

- ``race`` (APSA 2.1.18, BPS 2; RULES T5): the chip race. Each leftover chip gets a card; the
  highest cards win the new chips, at most one per player. The table races as many chips as its
  leftovers make together, rounded *up* to the unit (APSA 2.1.18: "auf die nächsthöhere
  Werteinheit aufgerundet"; BPS 2: "aufgerundet"). A player whose whole stack was leftover and
  who loses the race still gets one chip of the unit (APSA 2.1.18): nobody is eliminated by the
  race (PVB 15b(2)). When the leftovers make as many chips as there are racers (a lone racer
  always: a leftover is less than one chip of the unit), each racer gets one and no card could
  change that: nothing is raced, the stacks are made at once (`ColourUp.contested`).
- ``chip-up`` (PVB 15b(1)): no race; each player's leftover becomes one chip of the next value.

Who wins the race is for the cards, which no antenna reads for it: each racing seat ends with
what it keeps or one chip more, and the table learns which from the stack read on the seat's
zone (or the floor's count). `chips_leaving` is how many chips may leave play at a table by the
rules (fewer than none when the race rounds up): what the tournament's chip count allows.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ColourUpMethod = Literal["race", "chip-up"]
COLOUR_UP_METHODS: tuple[ColourUpMethod, ...] = ("race", "chip-up")
RACE_RULE = "APSA 2.1.18"
CHIP_UP_RULE = "PVB 15b(1)"


class RaceSeat(BaseModel):
    """A seat with leftover chips at a colour-up."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    leftover: int = Field(gt=0, description="The stack's part below one chip of the unit")
    keeps: int = Field(ge=0, description="The stack without its leftover")
    sure: bool = Field(default=False, description="The whole stack was leftover: one chip of "
                       "the unit whatever the race (APSA 2.1.18, PVB 15b(2))")
    won: bool = Field(default=False, description="Read with one chip of the unit more (the "
                      "race's, or the chip-up's)")
    counted: bool = Field(default=False, description="The floor entered the stack (`stack`: a "
                          "table without chip readers, or a count): readings no longer change it")

    def stack(self, unit: int) -> int:
        return self.keeps + unit if self.won or self.sure else self.keeps


class ColourUp(BaseModel):
    """A colour-up at one table: the stacks before it, the seats with leftovers, the race."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: str = Field(description="The requester's key: the same colour-up is made once")
    chips: list[int] = Field(description="The denominations leaving play")
    unit: int = Field(gt=0, description="The smallest chip left in play")
    method: ColourUpMethod
    hand: int = Field(description="The table's last hand before it")
    before: dict[int, int] = Field(description="Every seat's stack before it")
    race: dict[int, RaceSeat] = Field(default_factory=dict, description="Seats with leftovers")
    race_chips: int = Field(default=0, description="Chips of the unit the leftovers make "
                            "(rounded up): raced for, or (chip-up) given one to each seat")
    open: bool = Field(default=True, description="The race's readings count, until the next "
                       "hand begins")

    @property
    def rule(self) -> str:
        return RACE_RULE if self.method == "race" else CHIP_UP_RULE

    def stacks(self) -> dict[int, int]:
        """The racing seats' stacks as the colour-up has them now."""
        return {seat: r.stack(self.unit) for seat, r in self.race.items()}

    @property
    def contested(self) -> bool:
        """Whether the cards decide anything: fewer chips raced than racers. With as many (a
        lone racer, or leftovers that round up to a chip each) every racer has his chip, at
        most one a player (APSA 2.1.18), and no card is dealt."""
        return self.method == "race" and self.race_chips < len(self.race)

    def winners(self) -> list[int]:
        return sorted(s for s, r in self.race.items() if r.won and not r.sure)

    def entered(self) -> list[int]:
        """Racing seats whose stack the floor entered."""
        return sorted(s for s, r in self.race.items() if r.counted)


def colour_up(ref: str, chips: list[int], unit: int, method: ColourUpMethod, hand: int,
              seats: dict[int, tuple[str, int]]) -> ColourUp:
    """The colour-up of ``seats`` (seat -> player, stack): every racing seat keeps its stack
    without the leftover (one chip of the unit at least); under ``chip-up`` each gets one chip
    of the unit for its leftover at once, and so does each racer of a race with a chip for
    every racer (nothing to race: `ColourUp.contested`)."""
    race = {}
    for seat, (player, stack) in sorted(seats.items()):
        rest = stack % unit
        if rest:
            race[seat] = RaceSeat(player=player, leftover=rest, keeps=stack - rest,
                                  sure=stack < unit)
    if method == "race":
        chips_raced = math.ceil(sum(r.leftover for r in race.values()) / unit)
    else:
        chips_raced = len(race)
    if chips_raced == len(race):  # a chip each (a leftover is below the unit: never more)
        race = {seat: r.model_copy(update={"won": True}) for seat, r in race.items()}
    return ColourUp(ref=ref, chips=sorted(chips), unit=unit, method=method, hand=hand,
                    before={seat: stack for seat, (_, stack) in sorted(seats.items())},
                    race=race, race_chips=chips_raced)


def reading(up: ColourUp, seat: int, total: int) -> ColourUp | None:
    """A racing seat's stack read on its zone while the race is open: what it keeps (no chip
    from the race) or one chip more (a chip won). Anything else is not this seat's stack after
    the race (chips still being laid down): None, as is a reading that changes nothing."""
    racer = up.race.get(seat)
    if not up.open or not up.contested or racer is None or racer.sure or racer.counted:
        return None
    if total == racer.keeps + up.unit:
        won = True
    elif total == racer.keeps:
        won = False
    else:
        return None
    if won == racer.won:
        return None
    return _with(up, seat, racer.model_copy(update={"won": won}))


def chips_added(up: ColourUp, seat: int, chips: int) -> ColourUp:
    """Chips bought during the race (an add-on at the same break) move what the seat keeps."""
    racer = up.race.get(seat)
    if racer is None or not up.open:
        return up
    return _with(up, seat, racer.model_copy(update={"keeps": racer.keeps + chips}))


def counted_by_hand(up: ColourUp, seat: int, stack: int) -> ColourUp:
    """The floor entered the seat's stack (a table without chip readers, or a count): its
    count stands and the seat's readings no longer change it; what it keeps and one chip more
    is a chip won in the race, as a reading of it would be."""
    racer = up.race.get(seat)
    if racer is None or not up.open:
        return up
    won = racer.won if racer.sure else stack == racer.keeps + up.unit
    return _with(up, seat, racer.model_copy(update={"won": won, "counted": True}))


def _with(up: ColourUp, seat: int, racer: RaceSeat) -> ColourUp:
    return up.model_copy(update={"race": {**up.race, seat: racer}})


def chips_leaving(before: dict[int, int], unit: int, method: ColourUpMethod) -> tuple[int, int]:
    """The chips that may leave play at a table whose stacks were ``before`` (least, most): the
    leftovers, less the chips the race or the chip-up gives. Under ``race`` the total depends on
    who wins: a player whose whole stack was leftover has his chip either way, so a race chip he
    wins is one chip fewer for the others."""
    kept = sum(stack - stack % unit for stack in before.values())
    racing = [stack for stack in before.values() if stack % unit]
    sure = sum(1 for stack in racing if stack < unit)
    total = sum(before.values())
    if method == "chip-up":
        after = kept + unit * len(racing)
        return total - after, total - after
    raced = math.ceil(sum(stack % unit for stack in racing) / unit)
    fewest = kept + unit * max(raced, sure)
    most = kept + unit * (sure + min(raced, len(racing) - sure))
    return total - most, total - fewest


def race_words(up: ColourUp) -> str:
    """What the dealer is told to do, in the floor's words."""
    leaving = ", ".join(f"{c:,}" for c in up.chips)
    if not up.race:
        return f"the {leaving} chips leave play; nobody has leftover chips"
    seats = ", ".join(str(s) for s in sorted(up.race))
    if up.method == "chip-up":
        return (f"the {leaving} chips leave play; seats {seats} get one chip of {up.unit:,} "
                f"for their leftover chips ({CHIP_UP_RULE})")
    if not up.contested:  # a chip for each racer: nobody races (APSA 2.1.18)
        made = (f"seat {seats}'s leftover chips make one chip of {up.unit:,} (rounded up): "
                f"seat {seats} gets it" if len(up.race) == 1 else
                f"the leftover chips of seats {seats} make {up.race_chips} chips of "
                f"{up.unit:,} (rounded up): one each")
        return f"the {leaving} chips leave play; {made}, no race ({RACE_RULE})"
    sure = [s for s, r in sorted(up.race.items()) if r.sure]
    also = (f"; seat(s) {', '.join(map(str, sure))} keep one chip of {up.unit:,} whatever "
            "the race (APSA 2.1.18)") if sure else ""
    return (f"the {leaving} chips leave play; chip race for {up.race_chips} chip(s) of "
            f"{up.unit:,} among seats {seats}, at most one each (highest cards: "
            f"{RACE_RULE}){also}; lay each racer's stack on their zone")


__all__ = ["CHIP_UP_RULE", "COLOUR_UP_METHODS", "RACE_RULE", "ColourUp", "ColourUpMethod",
           "RaceSeat", "chips_added", "chips_leaving", "colour_up", "counted_by_hand",
           "race_words", "reading"]
