"""The room's chips, counted live (RULES T5, T6), pure.

The chips in play are what the tournament issued (a start stack for every entry and re-entry,
the chips of every add-on and rebuy, the chips the floor gave back to a player whose bust it
took back) less what left play at colour-ups. Hands move chips between
players and never make or lose any, so after every hand each table must hold what it held
before, plus the stacks of the players the tournament seated there and the chips it sold them,
less the stacks of those who left for another table. `ChipCount` keeps that expectation per
table and compares it with the table's own stacks at the end of each hand: a difference is said
once, naming the table and the hand where it appeared (and that table's expectation follows what
it now holds, so the next difference is a new one). The room's total, every table's stacks and
the stacks of players on their way between tables (and chips sold, not yet at the table), must
equal the chips in play; `room_difference` says by how much it does not.

**A colour-up** (RULES T5) changes a table's stacks without a hand: its leftover chips leave
play and the race (or the chip-up) brings chips of the next value in. The rules bound what may
leave at a table (`controller.session.colour_up.chips_leaving`: who wins the race is the
cards'), so while the table races, what left is taken as the part of its difference within those
bounds (its chips in play follow the race as it is read, silently). When the table begins its
next hand the colour-up is over: its stacks as last counted between hands are what the race
left, and whatever is beyond the bounds (a chip lost in the race, one too many) is a difference
like any other, said once with the table and that hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


class PendingColourUp(BaseModel):
    """A table's colour-up until its next hand: the chips that may leave play there by the rules
    (None: not known, whatever left is taken), and what left so far."""

    model_config = ConfigDict(extra="forbid")

    ref: str
    hand: int = Field(description="The table's last hand before it")
    least: int | None = None
    most: int | None = None
    left: int = 0
    words: str = ""

    def bounded(self, left: int) -> int:
        if self.least is not None:
            left = max(left, self.least)
        if self.most is not None:
            left = min(left, self.most)
        return left


class TableChips(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expected: int = 0
    held: int = Field(default=0, description="The table's stacks at the end of its last hand")
    hand: int = 0
    colour_up: PendingColourUp | None = None


@dataclass(frozen=True)
class Difference:
    table: str
    hand: int
    held: int
    expected: int
    after: str = ""  # what came before the count: the colour-up

    @property
    def amount(self) -> int:
        return self.held - self.expected

    def words(self) -> str:
        more = "more" if self.amount > 0 else "fewer"
        after = f" after {self.after}" if self.after else ""
        return (f"table {self.table}, hand {self.hand}: the stacks add up to {self.held:,}, "
                f"{abs(self.amount):,} chips {more} than the table should hold{after} "
                f"({self.expected:,}); count the table")


class ChipCount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    issued: int = Field(default=0, ge=0, description="Start stacks of every entry, chips of "
                        "every add-on and rebuy, chips the floor gave back (RULES T6)")
    given_back: int = Field(default=0, ge=0, description="Of those issued: the chips the floor "
                            "gave back to players whose busts it took back")
    coloured_up: int = Field(default=0, description="Chips that left play at colour-ups, less "
                             "those the races' rounding up brought in (T5)")
    tables: dict[str, TableChips] = Field(default_factory=dict)

    def in_play(self) -> int:
        return self.issued - self.coloured_up

    def issue(self, chips: int) -> None:
        self.issued += chips

    def give_back(self, chips: int) -> None:
        """The floor took back a bust and gave the player ``chips`` with a new seat: they come
        into play as issued chips (the chips he lost stay with those who won them)."""
        self.issue(chips)
        self.given_back += chips

    def arrived(self, table: str, chips: int) -> None:
        """A player the tournament seated there sat down with ``chips``."""
        self.tables.setdefault(table, TableChips()).expected += chips

    def left(self, table: str, chips: int) -> None:
        """A player left the table for another with ``chips``."""
        self.tables.setdefault(table, TableChips()).expected -= chips

    def withdraw(self, chips: int) -> None:
        """Chips sold that never reached a table (the player went out first)."""
        self.issued -= chips

    def colouring(self, table: str, pending: PendingColourUp) -> Difference | None:
        """The table made a colour-up: its chip count follows the race until its next hand.
        One still racing (two breaks without a hand between them) ends first."""
        difference = self.end_colour_up(table)
        self.tables.setdefault(table, TableChips()).colour_up = pending
        return difference

    def counted(self, table: str, hand: int, held: int) -> Difference | None:
        """The table's stacks at the end of ``hand`` (between hands): a difference from what it
        should hold, once. While it races, what left play follows the race within the rules'
        bounds, silently; a count after its next hand ends the colour-up first (when its
        beginning was not seen)."""
        chips = self.tables.setdefault(table, TableChips())
        chips.held, chips.hand = held, hand
        pending = chips.colour_up
        if pending is not None:
            self._follow_race(chips, pending)
            if hand <= pending.hand:
                return None
            return self.end_colour_up(table)
        return self._compare(table, chips)

    def end_colour_up(self, table: str, hand: int | None = None) -> Difference | None:
        """The colour-up is over (the table began ``hand``, its next; or it was broken): its
        stacks as last counted are what the race left; what left within the bounds left play,
        anything beyond them is a difference (named with ``hand``)."""
        chips = self.tables.get(table)
        pending = chips.colour_up if chips is not None else None
        if chips is None or pending is None:
            return None
        self._follow_race(chips, pending)
        chips.colour_up = None
        chips.expected -= pending.left
        return self._compare(table, chips, pending.words, hand)

    def _follow_race(self, chips: TableChips, pending: PendingColourUp) -> None:
        left = pending.bounded(chips.expected - chips.held)
        self.coloured_up += left - pending.left
        pending.left = left

    @staticmethod
    def _compare(table: str, chips: TableChips, after: str = "",
                 hand: int | None = None) -> Difference | None:
        if chips.held == chips.expected:
            return None
        difference = Difference(table, chips.hand if hand is None else hand, chips.held,
                                chips.expected, after)
        chips.expected = chips.held
        return difference

    def room_difference(self, in_transit: int) -> int:
        """What the tables hold with the stacks on their way, less the chips in play."""
        return sum(t.held for t in self.tables.values()) + in_transit - self.in_play()


__all__ = ["ChipCount", "Difference", "PendingColourUp", "TableChips"]
